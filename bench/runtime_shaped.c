/* Runtime-shaped float32 kernels (see runtime_shaped.h): shapes at run time, strides per call, one memcpy per
 * contiguous slice. */
#include "runtime_shaped.h"

#include <string.h>

#define RS_MAX_RANK 8

static int64_t product(const int32_t *dims, int from, int to)
{
    int64_t p = 1;
    for (int d = from; d < to; ++d) {
        p *= dims[d];
    }
    return p;
}

static int in_range(int32_t index, int32_t size)
{
    return index >= -size && index < size;
}

static int64_t wrap(int32_t index, int32_t size)
{
    return index < 0 ? (int64_t)index + size : index;
}

int rs_gather(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape, int axis,
              float *output)
{
    const int32_t axis_size = data_shape.dims[axis];
    const int64_t outer = product(data_shape.dims, 0, axis);
    const int64_t inner = product(data_shape.dims, axis + 1, data_shape.rank);
    const int64_t count = product(indices_shape.dims, 0, indices_shape.rank);
    for (int64_t i = 0; i < count; ++i) {
        if (!in_range(indices[i], axis_size)) {
            return RS_ERROR_INDEX_OUT_OF_RANGE;
        }
    }
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < count; ++i) {
            const int64_t row = wrap(indices[i], axis_size);
            memcpy(output + (o * count + i) * inner, data + (o * axis_size + row) * inner,
                   (size_t)inner * sizeof(float));
        }
    }
    return RS_OK;
}

int rs_gather_elements(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape,
                       int axis, float *output)
{
    const int rank = data_shape.rank;
    const int32_t axis_size = data_shape.dims[axis];
    int64_t strides[RS_MAX_RANK];
    int32_t coordinate[RS_MAX_RANK] = {0};
    int64_t step = 1;
    for (int d = rank - 1; d >= 0; --d) {
        strides[d] = step;
        step *= data_shape.dims[d];
    }
    const int64_t count = product(indices_shape.dims, 0, rank);
    for (int64_t i = 0; i < count; ++i) {
        if (!in_range(indices[i], axis_size)) {
            return RS_ERROR_INDEX_OUT_OF_RANGE;
        }
    }
    if (count == 0) {
        return RS_OK;
    }
    /* Row by row along the last dimension: the outer coordinates' offset once per row, then the row. */
    const int32_t row_length = indices_shape.dims[rank - 1];
    for (int64_t at = 0; at < count; at += row_length) {
        int64_t base = 0;
        for (int d = 0; d < rank - 1; ++d) {
            if (d != axis) {
                base += coordinate[d] * strides[d];
            }
        }
        if (axis == rank - 1) {
            for (int32_t j = 0; j < row_length; ++j) {
                output[at + j] = data[base + wrap(indices[at + j], axis_size)];
            }
        } else {
            for (int32_t j = 0; j < row_length; ++j) {
                output[at + j] = data[base + j + wrap(indices[at + j], axis_size) * strides[axis]];
            }
        }
        for (int d = rank - 2; d >= 0; --d) {
            if (++coordinate[d] < indices_shape.dims[d]) {
                break;
            }
            coordinate[d] = 0;
        }
    }
    return RS_OK;
}

/* Offset in data of the index tuple at `tuple` (k values selecting along dims from `first`). */
static int64_t tuple_offset(const int32_t *tuple, int k, const int32_t *dims, const int64_t *strides)
{
    int64_t from = 0;
    for (int j = 0; j < k; ++j) {
        from += wrap(tuple[j], dims[j]) * strides[j];
    }
    return from;
}

/* Checks every value of a tensor of index tuples of k values against dims[0..k-1]. */
static int tuples_in_range(const int32_t *indices, int64_t tuples, int k, const int32_t *dims)
{
    for (int64_t t = 0; t < tuples; ++t) {
        for (int j = 0; j < k; ++j) {
            if (!in_range(indices[t * k + j], dims[j])) {
                return 0;
            }
        }
    }
    return 1;
}

/* Strides of dims[first..first+k-1] of data, in elements. */
static void data_strides(rs_shape data_shape, int first, int k, int64_t *strides)
{
    for (int j = 0; j < k; ++j) {
        strides[j] = product(data_shape.dims, first + j + 1, data_shape.rank);
    }
}

int rs_gather_nd(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape,
                 int batch_dims, float *output)
{
    const int q = indices_shape.rank;
    const int k = indices_shape.dims[q - 1];
    const int64_t batches = product(data_shape.dims, 0, batch_dims);
    const int64_t tuples = product(indices_shape.dims, batch_dims, q - 1);
    const int64_t batch_stride = product(data_shape.dims, batch_dims, data_shape.rank);
    const int64_t slice = product(data_shape.dims, batch_dims + k, data_shape.rank);
    const int32_t *dims = data_shape.dims + batch_dims;
    int64_t strides[RS_MAX_RANK];
    data_strides(data_shape, batch_dims, k, strides);
    if (!tuples_in_range(indices, batches * tuples, k, dims)) {
        return RS_ERROR_INDEX_OUT_OF_RANGE;
    }
    for (int64_t b = 0; b < batches; ++b) {
        for (int64_t t = 0; t < tuples; ++t) {
            const int64_t at = b * tuples + t;
            const int64_t from = b * batch_stride + tuple_offset(indices + at * k, k, dims, strides);
            memcpy(output + at * slice, data + from, (size_t)slice * sizeof(float));
        }
    }
    return RS_OK;
}

int rs_scatter_nd(const float *data, rs_shape data_shape, const int32_t *indices, rs_shape indices_shape,
                  const float *updates, rs_reduction reduction, float *output)
{
    const int q = indices_shape.rank;
    const int k = indices_shape.dims[q - 1];
    const int64_t tuples = product(indices_shape.dims, 0, q - 1);
    const int64_t slice = product(data_shape.dims, k, data_shape.rank);
    int64_t strides[RS_MAX_RANK];
    data_strides(data_shape, 0, k, strides);
    if (!tuples_in_range(indices, tuples, k, data_shape.dims)) {
        return RS_ERROR_INDEX_OUT_OF_RANGE;
    }
    if (output != data) {
        memcpy(output, data, (size_t)product(data_shape.dims, 0, data_shape.rank) * sizeof(float));
    }
    for (int64_t t = 0; t < tuples; ++t) {
        const int64_t to = tuple_offset(indices + t * k, k, data_shape.dims, strides);
        if (reduction == RS_REDUCTION_NONE) {
            memcpy(output + to, updates + t * slice, (size_t)slice * sizeof(float));
        } else {
            for (int64_t e = 0; e < slice; ++e) {
                output[to + e] += updates[t * slice + e];
            }
        }
    }
    return RS_OK;
}
