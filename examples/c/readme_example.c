#include <stdio.h>
#include "svmgo.h"

int main(void)
{
    /* Four rows of two features (row-major) and their classes. */
    const float x[] = {1, 1, 2, 1.5f, -1, -1, -2, -0.5f};
    const double y[] = {1, 1, -1, -1};
    svmgo_trainer *trainer = NULL;
    svmgo_model *model = NULL;
    double label = 0;

    int st = svmgo_trainer_new("-s 1 -c 10", 4, 2, 0, &trainer);
    if (st == SVMGO_OK) st = svmgo_trainer_add_dense_f32(trainer, y, x, 4, 2);
    if (st == SVMGO_OK) st = svmgo_trainer_fit(trainer, &model);
    if (st == SVMGO_OK) /* one row: (-1, -1) */
        st = svmgo_predict_dense_f32(model, SVMGO_OUTPUT_LABEL, &label, 1, x + 4, 1, 2);
    if (st == SVMGO_OK)
        printf("predicted class %g\n", label);
    else
        fprintf(stderr, "%s: %s\n", svmgo_status_name(st), svmgo_last_error());

    svmgo_model_free(model); /* NULL is a no-op */
    svmgo_trainer_free(trainer);
    return st == SVMGO_OK ? 0 : 1;
}
