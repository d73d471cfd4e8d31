#include "reference.h"

#include <cmath>
#include <type_traits>

#include "half_reference.h"

namespace reference {

int64_t count(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

namespace {

int64_t normalized_axis(const Problem& p) {
    const auto r = static_cast<int64_t>(p.data_shape.size());
    return p.axis < 0 ? p.axis + r : p.axis;
}

Shape slice(const Shape& shape, size_t begin, size_t end) {
    return Shape(shape.begin() + static_cast<std::ptrdiff_t>(begin), shape.begin() + static_cast<std::ptrdiff_t>(end));
}

Shape concat(Shape a, const Shape& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Row-major position of a multi-index.
int64_t flat(const Shape& shape, const Shape& index) {
    int64_t position = 0;
    for (size_t i = 0; i < shape.size(); ++i) position = position * shape[i] + index[i];
    return position;
}

// Every multi-index of a shape, in row-major order.
std::vector<Shape> all_positions(const Shape& shape) {
    std::vector<Shape> out;
    if (count(shape) == 0) return out;
    Shape index(shape.size(), 0);
    while (true) {
        out.push_back(index);
        size_t i = shape.size();
        while (i > 0) {
            --i;
            if (++index[i] < shape[i]) break;
            index[i] = 0;
            if (i == 0) return out;
        }
        if (shape.empty()) return out;
    }
}

bool in_range(int64_t value, int64_t size) { return value >= -size && value <= size - 1; }
int64_t wrap(int64_t value, int64_t size) { return value < 0 ? value + size : value; }

// numpy's maximum/minimum, which ONNX's reference uses: NaN propagates, and on a tie (only -0 against +0 can
// tell) the second operand, the update, is returned.
template <typename F>
bool takes_update(const std::string& reduction, F current, F update) {
    if (std::isnan(current)) return false;
    if (std::isnan(update)) return true;
    return reduction == "max" ? update >= current : update <= current;
}

template <typename T>
T combine(const std::string& reduction, T current, T update) {
    if (reduction == "none") return update;
    if constexpr (std::is_same_v<T, std::string>) {
        return update;  // strings have no reductions
    } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        // Arithmetic in float32, rounded to the nearest pattern (ties to even) as a tensor of the type would.
        const halfref::Format format = std::is_same_v<T, Float16> ? halfref::kFloat16 : halfref::kBFloat16;
        const float a = halfref::to_float(current.bits, format), b = halfref::to_float(update.bits, format);
        if (reduction == "add") return T{halfref::from_double(static_cast<float>(a + b), format)};
        if (reduction == "mul") return T{halfref::from_double(static_cast<float>(a * b), format)};
        return takes_update(reduction, a, b) ? update : current;
    } else if constexpr (std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>) {
        if (reduction == "add") return T{current.re + update.re, current.im + update.im};
        return T{current.re * update.re - current.im * update.im, current.re * update.im + current.im * update.re};
    } else if constexpr (std::is_same_v<T, bool>) {
        if (reduction == "add" || reduction == "max") return current || update;
        return current && update;  // mul, min
    } else if constexpr (std::is_floating_point_v<T>) {
        if (reduction == "add") return current + update;
        if (reduction == "mul") return current * update;
        return takes_update(reduction, current, update) ? update : current;
    } else {
        // Integer add and mul wrap modulo 2^bits: do them on unsigned 64-bit values and keep the low bits.
        const auto a = static_cast<uint64_t>(current), b = static_cast<uint64_t>(update);
        if (reduction == "add") return static_cast<T>(a + b);
        if (reduction == "mul") return static_cast<T>(a * b);
        if (reduction == "max") return update > current ? update : current;
        return update < current ? update : current;
    }
}

}  // namespace

Shape output_shape(const Problem& p) {
    const Shape& data = p.data_shape;
    const Shape& indices = p.indices_shape;
    if (p.op == "Gather") {
        const auto a = static_cast<size_t>(normalized_axis(p));
        return concat(concat(slice(data, 0, a), indices), slice(data, a + 1, data.size()));
    }
    if (p.op == "GatherElements") return indices;
    if (p.op == "GatherND") {
        const auto b = static_cast<size_t>(p.batch_dims);
        const auto k = static_cast<size_t>(indices.back());
        return concat(slice(indices, 0, indices.size() - 1), slice(data, b + k, data.size()));
    }
    return data;  // ScatterND, ScatterElements
}

Shape updates_shape(const Problem& p) {
    if (p.op == "ScatterElements") return p.indices_shape;
    if (p.op == "TensorScatter") return p.update_shape;
    const auto k = static_cast<size_t>(p.indices_shape.back());
    return concat(slice(p.indices_shape, 0, p.indices_shape.size() - 1), slice(p.data_shape, k, p.data_shape.size()));
}

template <typename T>
bool run(const Problem& p, const std::vector<T>& data, const std::vector<int64_t>& indices,
         const std::vector<T>& updates, std::vector<T>& output) {
    const Shape& ds = p.data_shape;
    const Shape& is = p.indices_shape;
    const Shape os = output_shape(p);
    std::vector<T> result(static_cast<size_t>(count(os)));

    if (p.op == "Gather") {
        const auto a = static_cast<size_t>(normalized_axis(p));
        const int64_t s = ds[a];
        for (int64_t v : indices) {
            if (!in_range(v, s)) return false;
        }
        for (const Shape& o : all_positions(os)) {
            // o = [data dims before axis] + [index position] + [data dims after axis]
            Shape index_position = slice(o, a, a + is.size());
            Shape d = slice(o, 0, a);
            d.push_back(wrap(indices[static_cast<size_t>(flat(is, index_position))], s));
            d = concat(d, slice(o, a + is.size(), o.size()));
            result[static_cast<size_t>(flat(os, o))] = data[static_cast<size_t>(flat(ds, d))];
        }
    } else if (p.op == "GatherElements") {
        const auto a = static_cast<size_t>(normalized_axis(p));
        const int64_t s = ds[a];
        for (int64_t v : indices) {
            if (!in_range(v, s)) return false;
        }
        for (const Shape& o : all_positions(os)) {
            Shape d = o;
            d[a] = wrap(indices[static_cast<size_t>(flat(is, o))], s);
            result[static_cast<size_t>(flat(os, o))] = data[static_cast<size_t>(flat(ds, d))];
        }
    } else if (p.op == "TensorScatter") {
        // ONNX's pseudocode, with the circular mode as corrected: for each prefix (batch, axes before the sequence
        // axis) and sequence position j, the update's row goes to the cache at write_indices[batch] + j, wrapped
        // modulo the sequence axis' size in circular mode (that coordinate only).
        const auto a = static_cast<size_t>(normalized_axis(p));
        const int64_t max = ds[a], length = p.update_shape[a];
        for (int64_t w : indices) {
            if (w < 0 || (p.mode == "linear" && w > max - length)) return false;
        }
        result = data;
        for (const Shape& u : all_positions(p.update_shape)) {
            const int64_t w = indices[static_cast<size_t>(u[0])];
            Shape d = u;
            d[a] = p.mode == "circular" ? (w % max + u[a]) % max : w + u[a];
            result[static_cast<size_t>(flat(ds, d))] = updates[static_cast<size_t>(flat(p.update_shape, u))];
        }
    } else if (p.op == "ScatterElements") {
        // For every position u of updates (= of indices): output at u, with its axis coordinate replaced by
        // indices[u], combines updates[u]; row-major order applies duplicates in turn.
        const auto a = static_cast<size_t>(normalized_axis(p));
        const int64_t s = ds[a];
        for (int64_t v : indices) {
            if (!in_range(v, s)) return false;
        }
        result = data;
        for (const Shape& u : all_positions(is)) {
            Shape d = u;
            d[a] = wrap(indices[static_cast<size_t>(flat(is, u))], s);
            const auto at = static_cast<size_t>(flat(ds, d));
            result[at] = combine<T>(p.reduction, result[at], updates[static_cast<size_t>(flat(is, u))]);
        }
    } else {
        // GatherND and ScatterND: indices[..., k] are tuples into data, after b batch dimensions.
        const auto b = static_cast<size_t>(p.op == "GatherND" ? p.batch_dims : 0);
        const auto k = static_cast<size_t>(is.back());
        const Shape tuple_grid = slice(is, 0, is.size() - 1);
        for (const Shape& t : all_positions(tuple_grid)) {
            for (size_t j = 0; j < k; ++j) {
                if (!in_range(indices[static_cast<size_t>(flat(tuple_grid, t)) * k + j], ds[b + j])) return false;
            }
        }
        auto target = [&](const Shape& t, const Shape& rest) {
            Shape d = slice(t, 0, b);  // batch coordinates are shared by indices and data
            for (size_t j = 0; j < k; ++j) {
                d.push_back(wrap(indices[static_cast<size_t>(flat(tuple_grid, t)) * k + j], ds[b + j]));
            }
            return flat(ds, concat(d, rest));
        };
        if (p.op == "GatherND") {
            for (const Shape& o : all_positions(os)) {
                const Shape t = slice(o, 0, is.size() - 1);
                result[static_cast<size_t>(flat(os, o))] = data[static_cast<size_t>(target(t, slice(o, is.size() - 1, o.size())))];
            }
        } else {
            result = data;
            const Shape us = updates_shape(p);
            // Row-major order over updates visits the tuples in the order of indices: duplicates apply in turn.
            for (const Shape& u : all_positions(us)) {
                const Shape t = slice(u, 0, is.size() - 1);
                const auto at = static_cast<size_t>(target(t, slice(u, is.size() - 1, u.size())));
                result[at] = combine<T>(p.reduction, result[at], updates[static_cast<size_t>(flat(us, u))]);
            }
        }
    }
    output = result;
    return true;
}

#define REFERENCE_INSTANTIATE(T)                                                                       \
    template bool run<T>(const Problem&, const std::vector<T>&, const std::vector<int64_t>&,          \
                         const std::vector<T>&, std::vector<T>&);
REFERENCE_INSTANTIATE(float)
REFERENCE_INSTANTIATE(double)
REFERENCE_INSTANTIATE(int8_t)
REFERENCE_INSTANTIATE(int16_t)
REFERENCE_INSTANTIATE(int32_t)
REFERENCE_INSTANTIATE(int64_t)
REFERENCE_INSTANTIATE(uint8_t)
REFERENCE_INSTANTIATE(uint16_t)
REFERENCE_INSTANTIATE(uint32_t)
REFERENCE_INSTANTIATE(uint64_t)
REFERENCE_INSTANTIATE(bool)
REFERENCE_INSTANTIATE(Float16)
REFERENCE_INSTANTIATE(BFloat16)
REFERENCE_INSTANTIATE(Complex<float>)
REFERENCE_INSTANTIATE(Complex<double>)
REFERENCE_INSTANTIATE(std::string)

std::vector<double> dequantize(const Shape& data_shape, const std::vector<int32_t>& values, int64_t axis, int64_t block_size,
                               const std::vector<double>& scales, const std::vector<int32_t>& zero_points,
                               double (*round)(double)) {
    const size_t rank = data_shape.size();
    // The scales' shape, from ONNX's text: none (one scale), [d_axis] (per axis), data's with the axis' size
    // ceil(d_axis / block_size) (blocked).
    Shape scale_shape;
    if (axis >= 0 && block_size == 0) scale_shape = {data_shape[static_cast<size_t>(axis)]};
    if (axis >= 0 && block_size > 0) {
        scale_shape = data_shape;
        scale_shape[static_cast<size_t>(axis)] = (data_shape[static_cast<size_t>(axis)] + block_size - 1) / block_size;
    }
    std::vector<double> out;
    for (int64_t flat = 0; flat < count(data_shape); ++flat) {
        // The element's coordinates, last axis fastest.
        std::vector<int64_t> c(rank);
        int64_t rest = flat;
        for (size_t k = rank; k-- > 0;) {
            c[k] = rest % data_shape[k];
            rest /= data_shape[k];
        }
        // Its scale's coordinates, and their row-major position among the scales.
        int64_t at = 0;
        if (axis >= 0 && block_size == 0) at = c[static_cast<size_t>(axis)];
        if (axis >= 0 && block_size > 0) {
            for (size_t k = 0; k < rank; ++k) {
                const int64_t coordinate = k == static_cast<size_t>(axis) ? c[k] / block_size : c[k];
                at = at * scale_shape[k] + coordinate;
            }
        }
        const int32_t zero = zero_points.empty() ? 0 : zero_points.size() == 1 ? zero_points[0] : zero_points[static_cast<size_t>(at)];
        out.push_back(round(static_cast<double>(values[static_cast<size_t>(flat)] - zero) * scales[static_cast<size_t>(at)]));
    }
    return out;
}

}  // namespace reference
