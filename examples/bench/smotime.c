/* smotime: time LIBSVM's svm_train (libsvm-dev) in-process on one data
 * file, for data sets whose runs are too short for a process timing.
 *
 *   smotime [-s type] [-t kernel] [-c C] [-g gamma] [-p eps] [-m MB] FILE
 *
 * Reads FILE (LIBSVM text format), trains repeatedly until at least one
 * second of CPU time has passed, and prints "ns_per_train runs nSV". Built
 * and run by examples/bench/smo.sh; links with -lsvm -lm. */
#define _POSIX_C_SOURCE 200809L
#include <libsvm/svm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void quiet(const char *s) { (void)s; }

static double cpu_seconds(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
	struct svm_parameter par = {0};
	par.svm_type = C_SVC;
	par.kernel_type = RBF;
	par.degree = 3;
	par.gamma = 0; /* 1/num_features below */
	par.C = 1;
	par.nu = 0.5;
	par.p = 0.1;
	par.cache_size = 100;
	par.eps = 1e-3;
	par.shrinking = 1;
	int a = 1;
	for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
		double v = atof(argv[a + 1]);
		switch (argv[a][1]) {
		case 's': par.svm_type = (int)v; break;
		case 't': par.kernel_type = (int)v; break;
		case 'c': par.C = v; break;
		case 'g': par.gamma = v; break;
		case 'p': par.p = v; break;
		case 'm': par.cache_size = v; break;
		default: fprintf(stderr, "smotime: unknown option %s\n", argv[a]); return 2;
		}
	}
	if (a + 1 != argc) {
		fprintf(stderr, "usage: smotime [-s t] [-t k] [-c C] [-g g] [-p e] [-m MB] FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[a], "r");
	if (!f) { perror(argv[a]); return 1; }
	/* Two passes: count rows and nonzeros, then parse into one node array. */
	size_t rows = 0, nodes = 0, cap = 0;
	char *line = NULL;
	while (getline(&line, &cap, f) > 0) {
		rows++;
		for (char *p = line; *p; p++) nodes += *p == ':';
	}
	rewind(f);
	struct svm_problem prob;
	prob.l = (int)rows;
	prob.y = malloc(rows * sizeof *prob.y);
	prob.x = malloc(rows * sizeof *prob.x);
	struct svm_node *x = malloc((nodes + rows) * sizeof *x);
	int maxIndex = 0;
	size_t r = 0, k = 0;
	while (r < rows && getline(&line, &cap, f) > 0) {
		char *p = line, *end;
		prob.y[r] = strtod(p, &end);
		prob.x[r] = &x[k];
		p = end;
		for (;;) {
			long idx = strtol(p, &end, 10);
			if (end == p || *end != ':') break;
			x[k].index = (int)idx;
			x[k].value = strtod(end + 1, &p);
			if (idx > maxIndex) maxIndex = (int)idx;
			k++;
		}
		x[k++].index = -1;
		r++;
	}
	fclose(f);
	free(line);
	if (par.gamma == 0 && maxIndex > 0) par.gamma = 1.0 / maxIndex;
	svm_set_print_string_function(quiet);
	const char *err = svm_check_parameter(&prob, &par);
	if (err) { fprintf(stderr, "smotime: %s\n", err); return 1; }
	int runs = 0, nsv = 0;
	double t0 = cpu_seconds(), t;
	do {
		struct svm_model *m = svm_train(&prob, &par);
		nsv = svm_get_nr_sv(m);
		svm_free_and_destroy_model(&m);
		runs++;
		t = cpu_seconds() - t0;
	} while (t < 1.0);
	printf("%.0f %d %d\n", t / runs * 1e9, runs, nsv);
	return 0;
}
