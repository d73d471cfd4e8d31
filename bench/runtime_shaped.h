/* Runtime-shaped float32 kernels: the baseline kernelgen's generated kernels are measured against.
 *
 * They compute what kernelgen's kernels compute, with the same contract (every index checked before anything is
 * written, negative indices counting from the back, -1 and the output untouched when one is out of range), the
 * way interpreters' reference kernels do it (TensorFlow Lite Micro's gather.cc and gather_nd.cc): shapes are
 * passed at run time, strides and slice sizes are computed on every call, and each contiguous slice is one
 * memcpy. Like those kernels they are written for one element type (float) and int32 indices.
 */
#ifndef KERNELGEN_BENCH_RUNTIME_SHAPED_H
#define KERNELGEN_BENCH_RUNTIME_SHAPED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor's shape at run time. */
typedef struct {
    const int32_t *dims;
    int rank;
} rs_shape;

enum { RS_OK = 0, RS_ERROR_INDEX_OUT_OF_RANGE = -1 };
typedef enum { RS_REDUCTION_NONE, RS_REDUCTION_ADD } rs_reduction;

int rs_gather(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape, int axis,
              float *output);
int rs_gather_elements(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape,
                       int axis, float *output);
int rs_gather_nd(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape,
                 int batch_dims, float *output);
int rs_scatter_nd(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape,
                  const float *updates, rs_reduction reduction, float *output);

#ifdef __cplusplus
}
#endif

#endif
