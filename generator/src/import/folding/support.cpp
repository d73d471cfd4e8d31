#include "import/folding/support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/shape_math.h"

namespace kernelgen::folding {

using onnx::TensorProto;

TensorValue make(int32_t type, Dims dims) {
    TensorValue value;
    value.type = type;
    value.dims = std::move(dims);
    const uint64_t count = checked_count(value.dims, std::numeric_limits<uint64_t>::max()).value_or(0);
    if (value.is_real()) value.reals.assign(count, 0.0);
    else value.ints.assign(count, 0);
    return value;
}

void copy_element(TensorValue& to, uint64_t at, const TensorValue& from, uint64_t from_at) {
    if (to.is_real()) to.reals[at] = from.reals[from_at];
    else to.ints[at] = from.ints[from_at];
}

TensorValue scalar_int64(int64_t value) {
    TensorValue out = make(TensorProto::INT64, {});
    out.ints[0] = value;
    return out;
}

TensorValue vector_int64(const Dims& values) {
    TensorValue out = make(TensorProto::INT64, {static_cast<int64_t>(values.size())});
    out.ints = values;
    return out;
}


// The values of a 1-D (or, where ONNX allows, rank-0) int32/int64 tensor.
std::optional<Dims> int_list(const TensorValue* value, bool allow_scalar) {
    if (!value || (value->type != TensorProto::INT64 && value->type != TensorProto::INT32)) return std::nullopt;
    if (value->dims.size() != 1 && !(allow_scalar && value->dims.empty())) return std::nullopt;
    return value->ints;
}

// Whether a value of these dims may be made: a foldable count (see foldable_count) of at most `limit` elements, the
// part of the folding budget left (checked before computing, so that a value over budget costs nothing).
bool fits(const Dims& dims, uint64_t limit) {
    const auto count = foldable_count(dims);
    return count && *count <= limit;
}

// --- broadcasting ---------------------------------------------------------------------------------------------

// numpy's multidirectional broadcast of several shapes, or nothing when they do not broadcast.
std::optional<Dims> broadcast(const std::vector<const Dims*>& shapes) {
    size_t rank = 0;
    for (const Dims* shape : shapes) rank = std::max(rank, shape->size());
    Dims out(rank, 1);
    for (const Dims* shape : shapes) {
        for (size_t i = 0; i < shape->size(); ++i) {
            int64_t& o = out[rank - shape->size() + i];
            const int64_t d = (*shape)[i];
            if (d == o || d == 1) continue;
            if (o == 1) o = d;
            else return std::nullopt;
        }
    }
    return out;
}

// Walks every element of `out_dims` in order and gives, for each input, the flat index it broadcasts from.
void for_each_broadcast(const Dims& out_dims, const std::vector<const Dims*>& shapes,
                        const std::function<void(uint64_t, const std::vector<uint64_t>&)>& visit) {
    const size_t rank = out_dims.size();
    const uint64_t count = checked_count(out_dims, std::numeric_limits<uint64_t>::max()).value_or(0);
    // Each input's stride along each output axis (0 where it broadcasts).
    std::vector<std::vector<uint64_t>> strides;
    for (const Dims* shape : shapes) {
        std::vector<uint64_t> own = row_major_strides(*shape), along(rank, 0);
        for (size_t i = 0; i < shape->size(); ++i) {
            if ((*shape)[i] != 1) along[rank - shape->size() + i] = own[i];
        }
        strides.push_back(along);
    }
    Dims index(rank, 0);
    std::vector<uint64_t> at(shapes.size(), 0);
    for (uint64_t flat = 0; flat < count; ++flat) {
        visit(flat, at);
        for (size_t axis = rank; axis-- > 0;) {
            ++index[axis];
            for (size_t s = 0; s < shapes.size(); ++s) at[s] += strides[s][axis];
            if (index[axis] < out_dims[axis]) break;
            for (size_t s = 0; s < shapes.size(); ++s) at[s] -= strides[s][axis] * static_cast<uint64_t>(index[axis]);
            index[axis] = 0;
        }
    }
}

// Integer arithmetic in the type's own width, wrapping (unsigned arithmetic: no undefined behaviour here).
std::optional<int64_t> integer_binary(const std::string& op, int32_t type, int64_t a, int64_t b, int64_t fmod) {
    const auto kind = *element_kind(type);
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    if (op == "Add") return wrap_integer(type, ua + ub);
    if (op == "Sub") return wrap_integer(type, ua - ub);
    if (op == "Mul") return wrap_integer(type, ua * ub);
    if (op == "Div" || op == "Mod") {
        if (b == 0) return std::nullopt;  // undefined in ONNX: left to run time
        if (!kind.is_signed) return wrap_integer(type, op == "Div" ? ua / ub : ua % ub);
        const int64_t lowest = kind.bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (kind.bits - 1));
        if (b == -1) return op == "Div" ? (a == lowest ? std::optional<int64_t>() : wrap_integer(type, 0 - ua)) : 0;
        if (op == "Div") return a / b;  // truncation toward zero, as ONNX Runtime's integer Div
        int64_t r = a % b;
        if (fmod == 0 && r != 0 && ((r < 0) != (b < 0))) r += b;  // the sign of the divisor
        return r;
    }
    if (op == "Min" || op == "Max") {
        const bool less = kind.is_signed ? a < b : ua < ub;
        return (op == "Min") == less ? a : b;
    }
    return std::nullopt;
}

std::optional<double> real_binary(const std::string& op, int32_t type, double a, double b, int64_t fmod) {
    double r;
    if (op == "Add") r = a + b;
    else if (op == "Sub") r = a - b;
    else if (op == "Mul") r = a * b;
    else if (op == "Div") r = a / b;
    else if (op == "Mod") {
        if (fmod != 1) return std::nullopt;  // ONNX requires fmod=1 for floating types
        r = std::fmod(a, b);
    } else if (op == "Min" || op == "Max") {
        if (std::isnan(a) || std::isnan(b)) return std::nullopt;
        r = (op == "Min") == (a < b) ? a : b;
    } else {
        return std::nullopt;
    }
    // float32 operations computed in double and rounded once: exact for +, -, *, / (double has 2 * 24 + 2 bits).
    return type == TensorProto::FLOAT ? static_cast<double>(static_cast<float>(r)) : r;
}

}  // namespace kernelgen::folding
