/*
 * fleet_client.c — a C client of a device's model directory, which
 * `svmgo follow` fills from the fleet's object store: it watches the
 * directory and predicts continuously, serving each version as it arrives.
 *
 *   fleet_client DIR STOP_FILE
 *
 * Until STOP_FILE exists it predicts one sparse row every millisecond or so
 * and prints "served VERSION" each time the version in use changes. Before
 * the first model loads a prediction answers SVMGO_E_NO_MODEL, which is not
 * a failure; any other failed call is. At the end it prints
 * "calls N failed F last VERSION" and exits with 1 when a call failed.
 * make test-fleet builds it (bin/fleet_client_c) and the fleet test runs it.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "svmgo.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fleet_client DIR STOP_FILE\n");
        return 2;
    }
    svmgo_model *model = NULL;
    int status = svmgo_model_watch(argv[1], &model);
    if (status != SVMGO_OK) {
        fprintf(stderr, "fleet_client: svmgo_model_watch: %s: %s\n", svmgo_status_name(status), svmgo_last_error());
        return 1;
    }
    const int64_t indptr[2] = {0, 3};
    const int32_t indices[3] = {0, 1, 2};
    const float values[3] = {0.5f, 1.0f, 0.25f};
    const struct timespec pause = {0, 1000000};
    int64_t last = 0;
    uint64_t calls = 0, failed = 0;
    while (access(argv[2], F_OK) != 0) {
        double label = 0;
        status = svmgo_predict_csr_f32(model, SVMGO_OUTPUT_LABEL, &label, 1, indptr, indices, values, 1);
        if (status != SVMGO_E_NO_MODEL) {
            calls++;
        }
        if (status != SVMGO_OK && status != SVMGO_E_NO_MODEL) {
            failed++;
            fprintf(stderr, "fleet_client: predict: %s: %s\n", svmgo_status_name(status), svmgo_last_error());
        }
        int64_t version = 0;
        if (svmgo_model_get(model, SVMGO_MODEL_VERSION, &version) == SVMGO_OK && version != last) {
            last = version;
            printf("served %" PRId64 "\n", version);
            fflush(stdout);
        }
        nanosleep(&pause, NULL);
    }
    printf("calls %" PRIu64 " failed %" PRIu64 " last %" PRId64 "\n", calls, failed, last);
    svmgo_model_free(model);
    return failed > 0;
}
