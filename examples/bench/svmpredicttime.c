/*
 * svmpredicttime — time LIBSVM's svm_predict in process, parsing excluded,
 * for examples/bench/predict.sh to set beside svmgo's in-process predict
 * (examples/bench/predicttime).
 *
 * Usage: svmpredicttime [-repeat N] test_file model_file [labels_out]
 *
 * It loads the model with svm_load_model, reads every row of test_file
 * (LIBSVM format) into svm_node arrays, then calls svm_predict on every row,
 * N times (default 3), and prints the median wall and process CPU time of
 * one pass as key=value fields. labels_out gets the predictions of the last
 * pass, one a line ("%g", as svm-predict writes them).
 *
 * Built by predict.sh: cc -O2 svmpredicttime.c -lsvm.
 */
#define _POSIX_C_SOURCE 200809L
#include <libsvm/svm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(clockid_t clk) {
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void die(const char *msg, const char *arg) {
	fprintf(stderr, "svmpredicttime: %s%s\n", msg, arg ? arg : "");
	exit(1);
}

int main(int argc, char **argv) {
	int repeat = 3, a = 1;
	if (argc > 2 && strcmp(argv[1], "-repeat") == 0) {
		repeat = atoi(argv[2]);
		a = 3;
	}
	if (argc - a < 2 || repeat < 1) {
		fprintf(stderr, "usage: svmpredicttime [-repeat N] test_file model_file [labels_out]\n");
		return 2;
	}
	const char *test = argv[a], *modelFile = argv[a + 1], *out = argc - a > 2 ? argv[a + 2] : NULL;
	struct svm_model *model = svm_load_model(modelFile);
	if (!model)
		die("cannot load model ", modelFile);

	FILE *f = fopen(test, "r");
	if (!f)
		die("cannot open ", test);
	size_t rows = 0, cap = 1024, ncap = 1 << 20, nn = 0;
	size_t *start = malloc(cap * sizeof *start);
	double *label = malloc(cap * sizeof *label);
	struct svm_node *nodes = malloc(ncap * sizeof *nodes);
	char *line = NULL;
	size_t lcap = 0;
	while (getline(&line, &lcap, f) > 0) {
		char *p = line, *end;
		double y = strtod(p, &end);
		if (end == p)
			continue;
		if (rows == cap) {
			cap *= 2;
			start = realloc(start, cap * sizeof *start);
			label = realloc(label, cap * sizeof *label);
		}
		start[rows] = nn;
		label[rows] = y;
		p = end;
		for (;;) {
			long idx = strtol(p, &end, 10);
			if (end == p || *end != ':')
				break;
			p = end + 1;
			double v = strtod(p, &end);
			p = end;
			if (nn + 2 >= ncap) {
				ncap *= 2;
				nodes = realloc(nodes, ncap * sizeof *nodes);
			}
			nodes[nn].index = (int)idx;
			nodes[nn].value = v;
			nn++;
		}
		nodes[nn].index = -1;
		nodes[nn].value = 0;
		nn++;
		rows++;
	}
	fclose(f);
	free(line);

	double *pred = malloc(rows * sizeof *pred);
	double *wall = malloc((size_t)repeat * sizeof *wall), *cpu = malloc((size_t)repeat * sizeof *cpu);
	for (int r = 0; r < repeat; r++) {
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		for (size_t i = 0; i < rows; i++)
			pred[i] = svm_predict(model, nodes + start[i]);
		wall[r] = now(CLOCK_MONOTONIC) - w0;
		cpu[r] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	qsort(wall, (size_t)repeat, sizeof *wall, cmp);
	qsort(cpu, (size_t)repeat, sizeof *cpu, cmp);
	size_t correct = 0;
	for (size_t i = 0; i < rows; i++)
		correct += pred[i] == label[i];
	printf("tool=svm_predict rows=%zu sv=%d predict_ms=%.2f cpu_ms=%.2f acc=%.4f\n", rows, svm_get_nr_sv(model),
	       1e3 * wall[repeat / 2], 1e3 * cpu[repeat / 2], rows ? (double)correct / (double)rows : 0.0);
	if (out) {
		FILE *o = fopen(out, "w");
		if (!o)
			die("cannot write ", out);
		for (size_t i = 0; i < rows; i++)
			fprintf(o, "%.17g\n", pred[i]);
		fclose(o);
	}
	svm_free_and_destroy_model(&model);
	free(start);
	free(label);
	free(nodes);
	free(pred);
	free(wall);
	free(cpu);
	return 0;
}
