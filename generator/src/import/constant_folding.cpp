#include "import/constant_folding.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "common/shape_math.h"
#include "import/node_attributes.h"

namespace kernelgen {

namespace {

using onnx::TensorProto;
using Dims = std::vector<int64_t>;
using Outputs = std::optional<std::vector<TensorValue>>;

// --- values -------------------------------------------------------------------------------------------------

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
std::optional<Dims> int_list(const TensorValue* value, bool allow_scalar = false) {
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

// --- elementwise operators --------------------------------------------------------------------------------------

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

// Add, Sub, Mul, Div, Mod, Min, Max (two or more inputs of one type, broadcast).
Outputs arithmetic(const onnx::NodeProto& node, const std::vector<const TensorValue*>& in, uint64_t limit) {
    const std::string& op = node.op_type();
    const auto fmod = int_attribute(node, "fmod", 0);
    if (!fmod || in.empty()) return std::nullopt;
    const int32_t type = in[0]->type;
    const auto kind = element_kind(type);
    if (!kind || kind->boolean || (kind->real && !kind->exact)) return std::nullopt;
    std::vector<const Dims*> shapes;
    for (const TensorValue* v : in) {
        if (v->type != type) return std::nullopt;
        shapes.push_back(&v->dims);
    }
    const auto dims = broadcast(shapes);
    if (!dims || !fits(*dims, limit)) return std::nullopt;
    TensorValue out = make(type, *dims);
    bool ok = true;
    for_each_broadcast(*dims, shapes, [&](uint64_t flat, const std::vector<uint64_t>& at) {
        if (!ok) return;
        if (kind->real) {
            double acc = in[0]->reals[at[0]];
            for (size_t i = 1; i < in.size() && ok; ++i) {
                auto r = real_binary(op, type, acc, in[i]->reals[at[i]], *fmod);
                ok = r.has_value();
                if (ok) acc = *r;
            }
            out.reals[flat] = acc;
        } else {
            int64_t acc = in[0]->ints[at[0]];
            for (size_t i = 1; i < in.size() && ok; ++i) {
                auto r = integer_binary(op, type, acc, in[i]->ints[at[i]], *fmod);
                ok = r.has_value();
                if (ok) acc = *r;
            }
            out.ints[flat] = acc;
        }
    });
    if (!ok) return std::nullopt;
    return std::vector<TensorValue>{out};
}

// Equal, Less, Greater, LessOrEqual, GreaterOrEqual: bool results.
Outputs comparison(const std::string& op, const TensorValue& a, const TensorValue& b, uint64_t limit) {
    if (a.type != b.type) return std::nullopt;
    const auto kind = element_kind(a.type);
    if (!kind || (kind->boolean && op != "Equal")) return std::nullopt;
    const auto dims = broadcast({&a.dims, &b.dims});
    if (!dims || !fits(*dims, limit)) return std::nullopt;
    TensorValue out = make(TensorProto::BOOL, *dims);
    for_each_broadcast(*dims, {&a.dims, &b.dims}, [&](uint64_t flat, const std::vector<uint64_t>& at) {
        int order;  // -1, 0, 1; 2 when unordered (NaN)
        if (kind->real) {
            const double x = a.reals[at[0]], y = b.reals[at[1]];
            order = std::isnan(x) || std::isnan(y) ? 2 : x < y ? -1 : x > y ? 1 : 0;
        } else if (kind->is_signed) {
            const int64_t x = a.ints[at[0]], y = b.ints[at[1]];
            order = x < y ? -1 : x > y ? 1 : 0;
        } else {
            const auto x = static_cast<uint64_t>(a.ints[at[0]]), y = static_cast<uint64_t>(b.ints[at[1]]);
            order = x < y ? -1 : x > y ? 1 : 0;
        }
        bool r = false;
        if (op == "Equal") r = order == 0;
        else if (op == "Less") r = order == -1;
        else if (op == "Greater") r = order == 1;
        else if (op == "LessOrEqual") r = order == -1 || order == 0;
        else r = order == 1 || order == 0;  // GreaterOrEqual
        out.ints[flat] = r;
    });
    return std::vector<TensorValue>{out};
}

// And, Or, Xor on bool tensors.
Outputs logical(const std::string& op, const TensorValue& a, const TensorValue& b, uint64_t limit) {
    if (a.type != TensorProto::BOOL || b.type != TensorProto::BOOL) return std::nullopt;
    const auto dims = broadcast({&a.dims, &b.dims});
    if (!dims || !fits(*dims, limit)) return std::nullopt;
    TensorValue out = make(TensorProto::BOOL, *dims);
    for_each_broadcast(*dims, {&a.dims, &b.dims}, [&](uint64_t flat, const std::vector<uint64_t>& at) {
        const bool x = a.ints[at[0]] != 0, y = b.ints[at[1]] != 0;
        out.ints[flat] = op == "And" ? (x && y) : op == "Or" ? (x || y) : (x != y);
    });
    return std::vector<TensorValue>{out};
}

// Neg, Abs, Not, Floor, Ceil.
Outputs unary(const std::string& op, const TensorValue& a) {
    const auto kind = element_kind(a.type);
    if (!kind) return std::nullopt;
    TensorValue out = a;
    if (op == "Not") {
        if (!kind->boolean) return std::nullopt;
        for (auto& v : out.ints) v = !v;
    } else if (op == "Floor" || op == "Ceil") {
        if (!kind->real || !kind->exact) return std::nullopt;
        for (auto& v : out.reals) v = op == "Floor" ? std::floor(v) : std::ceil(v);
    } else if (kind->boolean || (kind->real && !kind->exact)) {
        return std::nullopt;
    } else if (kind->real) {
        for (auto& v : out.reals) v = op == "Neg" ? -v : std::fabs(v);
    } else if (op == "Neg") {
        if (!kind->is_signed) return std::nullopt;  // ONNX's Neg takes signed types only
        for (auto& v : out.ints) v = wrap_integer(a.type, 0 - static_cast<uint64_t>(v));
    } else if (kind->is_signed) {  // Abs
        for (auto& v : out.ints) v = v < 0 ? wrap_integer(a.type, 0 - static_cast<uint64_t>(v)) : v;
    }
    return std::vector<TensorValue>{out};
}

Outputs where(const TensorValue& condition, const TensorValue& x, const TensorValue& y, uint64_t limit) {
    if (condition.type != TensorProto::BOOL || x.type != y.type) return std::nullopt;
    const auto dims = broadcast({&condition.dims, &x.dims, &y.dims});
    if (!dims || !fits(*dims, limit)) return std::nullopt;
    TensorValue out = make(x.type, *dims);
    for_each_broadcast(*dims, {&condition.dims, &x.dims, &y.dims}, [&](uint64_t flat, const std::vector<uint64_t>& at) {
        if (condition.ints[at[0]]) copy_element(out, flat, x, at[1]);
        else copy_element(out, flat, y, at[2]);
    });
    return std::vector<TensorValue>{out};
}

// Cast: integers wrap (as C++'s conversions, which ONNX Runtime uses), floating values truncate toward zero into
// integers (not folded when out of range), and become float16/bfloat16 only when exactly representable.
Outputs cast(const onnx::NodeProto& node, const TensorValue& a) {
    const auto to = int_attribute(node, "to", 0);
    if (!to) return std::nullopt;
    const auto from_kind = element_kind(a.type), to_kind = element_kind(static_cast<int32_t>(*to));
    if (!from_kind || !to_kind) return std::nullopt;
    const auto type = static_cast<int32_t>(*to);
    TensorValue out = make(type, a.dims);
    for (uint64_t i = 0; i < a.count(); ++i) {
        if (to_kind->real) {
            double v = from_kind->real ? a.reals[i]
                                       : from_kind->is_signed ? static_cast<double>(a.ints[i])
                                                              : static_cast<double>(static_cast<uint64_t>(a.ints[i]));
            if (type == TensorProto::FLOAT) v = static_cast<float>(v);
            if (!to_kind->exact) {
                // Exactly representable only: round-trips through the type's own bits.
                TensorValue probe = make(type, {});
                probe.reals[0] = v;
                onnx::TensorProto bits;
                write_tensor(probe, &bits);
                std::string problem;
                auto back = read_tensor(bits, problem);
                if (!back || (back->reals[0] != v && !(std::isnan(v) && std::isnan(back->reals[0])))) return std::nullopt;
            }
            out.reals[i] = v;
        } else if (from_kind->real) {
            const double v = a.reals[i];
            if (to_kind->boolean) {
                out.ints[i] = v != 0;
                continue;
            }
            if (std::isnan(v)) return std::nullopt;
            const double t = std::trunc(v);
            const double low = to_kind->is_signed ? -std::ldexp(1.0, to_kind->bits - 1) : 0.0;
            const double high = to_kind->is_signed ? std::ldexp(1.0, to_kind->bits - 1) : std::ldexp(1.0, to_kind->bits);
            if (t < low || t >= high) return std::nullopt;  // undefined in C++: left to run time
            out.ints[i] = to_kind->is_signed ? static_cast<int64_t>(t) : static_cast<int64_t>(static_cast<uint64_t>(t));
        } else {
            out.ints[i] = to_kind->boolean ? a.ints[i] != 0 : wrap_integer(type, static_cast<uint64_t>(a.ints[i]));
        }
    }
    return std::vector<TensorValue>{out};
}

// --- shapes -----------------------------------------------------------------------------------------------------

Outputs shape_of(const onnx::NodeProto& node, const Dims& dims) {
    const auto rank = static_cast<int64_t>(dims.size());
    const auto start_attr = int_attribute(node, "start", 0);
    const auto end_attr = int_attribute(node, "end", rank);
    if (!start_attr || !end_attr) return std::nullopt;
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
    const int64_t start = clamp(*start_attr), end = clamp(*end_attr);
    Dims out;
    for (int64_t i = start; i < end; ++i) out.push_back(dims[static_cast<size_t>(i)]);
    return std::vector<TensorValue>{vector_int64(out)};
}

Outputs reshape(const onnx::NodeProto& node, const TensorValue& data, const TensorValue* shape_value) {
    const auto shape = int_list(shape_value);
    const auto allow_zero = int_attribute(node, "allowzero", 0);
    if (!shape || !allow_zero) return std::nullopt;
    Dims dims = *shape;
    int inferred = -1;
    uint64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && *allow_zero == 0) {
            if (i >= data.dims.size()) return std::nullopt;
            dims[i] = data.dims[i];
        }
        if (dims[i] == -1) {
            if (inferred >= 0) return std::nullopt;
            inferred = static_cast<int>(i);
            continue;
        }
        if (dims[i] < 0 || static_cast<uint64_t>(dims[i]) > kMaxFoldElements) return std::nullopt;
        known *= static_cast<uint64_t>(dims[i]);
        if (known > kMaxFoldElements) return std::nullopt;
    }
    if (inferred >= 0) {
        if (known == 0 || data.count() % known != 0) return std::nullopt;
        dims[static_cast<size_t>(inferred)] = static_cast<int64_t>(data.count() / known);
    }
    const auto count = foldable_count(dims);
    if (!count || *count != data.count()) return std::nullopt;
    TensorValue out = data;
    out.dims = dims;
    return std::vector<TensorValue>{out};
}

Outputs flatten(const onnx::NodeProto& node, const TensorValue& data) {
    const auto axis_attr = int_attribute(node, "axis", 1);
    if (!axis_attr) return std::nullopt;
    const auto rank = static_cast<int64_t>(data.dims.size());
    int64_t axis = *axis_attr < 0 ? *axis_attr + rank : *axis_attr;
    if (axis < 0 || axis > rank) return std::nullopt;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= data.dims[static_cast<size_t>(i)];
    TensorValue out = data;
    out.dims = {outer, inner};
    return std::vector<TensorValue>{out};
}

// Unsqueeze and Squeeze: axes from the attribute (before opset 13) or the second input.
std::optional<Dims> axes_of(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs, bool& given) {
    given = false;
    if (opset < 13) {
        auto axes = ints_attribute(node, "axes");
        given = axes.has_value();
        return axes ? axes : Dims{};
    }
    if (inputs.size() < 2 || !inputs[1].present) return Dims{};
    given = true;
    return int_list(inputs[1].value);
}

Outputs unsqueeze(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs) {
    bool given = false;
    const auto axes = axes_of(node, opset, inputs, given);
    if (!axes || !given) return std::nullopt;
    const TensorValue& data = *inputs[0].value;
    const size_t rank = data.dims.size() + axes->size();
    if (rank > kMaxFoldRank) return std::nullopt;
    std::set<size_t> at;
    for (int64_t axis : *axes) {
        const auto a = normalized_axis(axis, rank);
        if (!a || !at.insert(*a).second) return std::nullopt;
    }
    TensorValue out = data;
    out.dims.clear();
    size_t next = 0;
    for (size_t i = 0; i < rank; ++i) out.dims.push_back(at.count(i) ? 1 : data.dims[next++]);
    return std::vector<TensorValue>{out};
}

Outputs squeeze(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs) {
    bool given = false;
    const auto axes = axes_of(node, opset, inputs, given);
    if (!axes) return std::nullopt;
    const TensorValue& data = *inputs[0].value;
    std::set<size_t> at;
    for (int64_t axis : *axes) {
        const auto a = normalized_axis(axis, data.dims.size());
        if (!a || data.dims[*a] != 1) return std::nullopt;
        at.insert(*a);
    }
    TensorValue out = data;
    out.dims.clear();
    for (size_t i = 0; i < data.dims.size(); ++i) {
        const bool drop = given ? at.count(i) > 0 : data.dims[i] == 1;
        if (!drop) out.dims.push_back(data.dims[i]);
    }
    return std::vector<TensorValue>{out};
}

Outputs concat(const onnx::NodeProto& node, const std::vector<const TensorValue*>& in, uint64_t limit) {
    const auto axis_attr = int_attribute(node, "axis", std::numeric_limits<int64_t>::min());
    if (!axis_attr || in.empty()) return std::nullopt;
    const TensorValue& first = *in[0];
    const auto axis = normalized_axis(*axis_attr, first.dims.size());
    if (!axis) return std::nullopt;
    Dims dims = first.dims;
    dims[*axis] = 0;
    for (const TensorValue* v : in) {
        if (v->type != first.type || v->dims.size() != first.dims.size()) return std::nullopt;
        for (size_t i = 0; i < dims.size(); ++i) {
            if (i != *axis && v->dims[i] != first.dims[i]) return std::nullopt;
        }
        dims[*axis] += v->dims[*axis];
    }
    if (!fits(dims, limit)) return std::nullopt;
    TensorValue out = make(first.type, dims);
    uint64_t outer = 1;
    for (size_t i = 0; i < *axis; ++i) outer *= static_cast<uint64_t>(dims[i]);
    uint64_t at = 0;
    for (uint64_t o = 0; o < outer; ++o) {
        for (const TensorValue* v : in) {
            const uint64_t block = outer == 0 ? 0 : v->count() / outer;
            for (uint64_t j = 0; j < block; ++j) copy_element(out, at++, *v, o * block + j);
        }
    }
    return std::vector<TensorValue>{out};
}

// Slice: attributes before opset 10, inputs from it on; ONNX's clamping for positive and negative steps.
Outputs slice(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs, uint64_t limit) {
    const TensorValue& data = *inputs[0].value;
    const size_t rank = data.dims.size();
    std::optional<Dims> starts, ends, axes, steps;
    if (opset < 10) {
        starts = ints_attribute(node, "starts");
        ends = ints_attribute(node, "ends");
        axes = ints_attribute(node, "axes");
    } else {
        auto input = [&](size_t i) -> std::optional<Dims> {
            if (inputs.size() <= i || !inputs[i].present) return std::nullopt;
            return int_list(inputs[i].value);
        };
        if (inputs.size() < 3) return std::nullopt;
        starts = input(1);
        ends = input(2);
        if (!starts || !ends) return std::nullopt;
        if (inputs.size() > 3 && inputs[3].present && !(axes = input(3))) return std::nullopt;
        if (inputs.size() > 4 && inputs[4].present && !(steps = input(4))) return std::nullopt;
    }
    if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
    if (!axes) {
        axes = Dims();
        for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
    }
    if (!steps) steps = Dims(starts->size(), 1);
    if (axes->size() != starts->size() || steps->size() != starts->size()) return std::nullopt;
    Dims first(rank, 0), step(rank, 1), dims = data.dims;
    std::set<size_t> seen;
    for (size_t k = 0; k < starts->size(); ++k) {
        const auto axis = normalized_axis((*axes)[k], rank);
        if (!axis || !seen.insert(*axis).second || (*steps)[k] == 0) return std::nullopt;
        const int64_t dim = data.dims[*axis], s = (*steps)[k];
        auto adjust = [&](int64_t v, int64_t low, int64_t high) { return std::clamp(v < 0 ? v + dim : v, low, high); };
        const int64_t b = s > 0 ? adjust((*starts)[k], 0, dim) : adjust((*starts)[k], 0, dim - 1);
        const int64_t e = s > 0 ? adjust((*ends)[k], 0, dim) : adjust((*ends)[k], -1, dim - 1);
        // Steps of any size: the count is ceil((e - b) / s) when positive.
        int64_t count = 0;
        if (s > 0 && e > b) count = (e - b - 1) / s + 1;
        if (s < 0 && e < b) count = (b - e - 1) / (-s) + 1;
        first[*axis] = b;
        step[*axis] = s;
        dims[*axis] = count;
    }
    if (!fits(dims, limit)) return std::nullopt;
    TensorValue out = make(data.type, dims);
    const auto strides = row_major_strides(data.dims);
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < out.count(); ++flat) {
        uint64_t from = 0;
        for (size_t a = 0; a < rank; ++a) from += static_cast<uint64_t>(first[a] + index[a] * step[a]) * strides[a];
        copy_element(out, flat, data, from);
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs transpose(const onnx::NodeProto& node, const TensorValue& data) {
    const size_t rank = data.dims.size();
    Dims perm;
    if (auto given = ints_attribute(node, "perm")) {
        perm = *given;
    } else {
        for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    }
    if (perm.size() != rank) return std::nullopt;
    std::set<int64_t> seen(perm.begin(), perm.end());
    if (seen.size() != rank || (rank && (*seen.begin() < 0 || *seen.rbegin() >= static_cast<int64_t>(rank)))) return std::nullopt;
    Dims dims(rank);
    for (size_t i = 0; i < rank; ++i) dims[i] = data.dims[static_cast<size_t>(perm[i])];
    TensorValue out = make(data.type, dims);
    const auto strides = row_major_strides(data.dims);
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < out.count(); ++flat) {
        uint64_t from = 0;
        for (size_t i = 0; i < rank; ++i) from += static_cast<uint64_t>(index[i]) * strides[static_cast<size_t>(perm[i])];
        copy_element(out, flat, data, from);
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs expand(const TensorValue& data, const TensorValue* shape_value, uint64_t limit) {
    const auto shape = int_list(shape_value);
    if (!shape) return std::nullopt;
    for (int64_t d : *shape) {
        if (d < 0) return std::nullopt;
    }
    const auto dims = broadcast({&data.dims, &*shape});
    if (!dims || !fits(*dims, limit)) return std::nullopt;
    TensorValue out = make(data.type, *dims);
    for_each_broadcast(*dims, {&data.dims}, [&](uint64_t flat, const std::vector<uint64_t>& at) { copy_element(out, flat, data, at[0]); });
    return std::vector<TensorValue>{out};
}

Outputs tile(const TensorValue& data, const TensorValue* repeats_value, uint64_t limit) {
    const auto repeats = int_list(repeats_value);
    if (!repeats || repeats->size() != data.dims.size()) return std::nullopt;
    Dims dims = data.dims;
    for (size_t i = 0; i < dims.size(); ++i) {
        if ((*repeats)[i] < 0) return std::nullopt;
        if ((*repeats)[i] > 0 && dims[i] > static_cast<int64_t>(kMaxFoldElements) / (*repeats)[i]) return std::nullopt;
        dims[i] *= (*repeats)[i];
    }
    if (!fits(dims, limit)) return std::nullopt;
    TensorValue out = make(data.type, dims);
    const auto strides = row_major_strides(data.dims);
    Dims index(dims.size(), 0);
    for (uint64_t flat = 0; flat < out.count(); ++flat) {
        uint64_t from = 0;
        for (size_t a = 0; a < dims.size(); ++a) from += static_cast<uint64_t>(index[a] % data.dims[a]) * strides[a];
        copy_element(out, flat, data, from);
        for (size_t a = dims.size(); a-- > 0;) {
            if (++index[a] < dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs constant_of_shape(const onnx::NodeProto& node, const TensorValue* shape_value, uint64_t limit) {
    const auto shape = int_list(shape_value);
    if (!shape || !fits(*shape, limit)) return std::nullopt;
    TensorValue fill = make(TensorProto::FLOAT, {1});  // ONNX's default: a float 0
    if (const auto* attribute = find_attribute(node, "value")) {
        if (attribute->type() != onnx::AttributeProto::TENSOR) return std::nullopt;
        std::string problem;
        auto given = read_tensor(attribute->t(), problem);
        if (!given || given->count() != 1) return std::nullopt;
        fill = *given;
    }
    TensorValue out = make(fill.type, *shape);
    for (uint64_t i = 0; i < out.count(); ++i) copy_element(out, i, fill, 0);
    return std::vector<TensorValue>{out};
}

Outputs range(const TensorValue& start, const TensorValue& end, const TensorValue& delta, uint64_t limit) {
    if (start.type != end.type || start.type != delta.type || start.count() != 1 || end.count() != 1 ||
        delta.count() != 1 || !start.dims.empty() || !end.dims.empty() || !delta.dims.empty()) {
        return std::nullopt;
    }
    const auto kind = element_kind(start.type);
    if (!kind || kind->boolean || (kind->real && !kind->exact) || (!kind->real && !kind->is_signed)) return std::nullopt;
    TensorValue out;
    out.type = start.type;
    if (kind->real) {
        const double s = start.reals[0], l = end.reals[0], d = delta.reals[0];
        if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) return std::nullopt;
        const double n = std::max(std::ceil((l - s) / d), 0.0);
        if (n > static_cast<double>(std::min(limit, kMaxFoldElements))) return std::nullopt;
        out.reals.reserve(static_cast<size_t>(n));
        for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
            const double v = s + static_cast<double>(i) * d;
            out.reals.push_back(start.type == TensorProto::FLOAT ? static_cast<float>(v) : v);
        }
    } else {
        const int64_t s = start.ints[0], l = end.ints[0], d = delta.ints[0];
        if (d == 0) return std::nullopt;
        // max(ceil((l - s) / d), 0) in unsigned arithmetic: the difference of two int64 may not fit in an int64.
        uint64_t n = 0;
        if ((d > 0 && l > s) || (d < 0 && l < s)) {
            const uint64_t span = d > 0 ? static_cast<uint64_t>(l) - static_cast<uint64_t>(s)
                                        : static_cast<uint64_t>(s) - static_cast<uint64_t>(l);
            const uint64_t step = d > 0 ? static_cast<uint64_t>(d) : 0 - static_cast<uint64_t>(d);
            n = span / step + (span % step != 0 ? 1 : 0);
        }
        if (n > std::min(limit, kMaxFoldElements)) return std::nullopt;
        out.ints.reserve(n);
        for (uint64_t i = 0; i < n; ++i) {
            out.ints.push_back(wrap_integer(start.type, static_cast<uint64_t>(s) + i * static_cast<uint64_t>(d)));
        }
    }
    out.dims = {static_cast<int64_t>(out.count())};
    return std::vector<TensorValue>{out};
}

// ReduceSum and ReduceProd on integer tensors (wrapping), ReduceMax and ReduceMin on integers and float32/float64
// (not folded with a NaN, or over an empty set), with ONNX's axes, keepdims and noop_with_empty_axes.
Outputs reduce(const onnx::NodeProto& node, int64_t opset, const std::vector<FoldInput>& inputs) {
    const TensorValue& data = *inputs[0].value;
    const std::string& op = node.op_type();
    const bool order = op == "ReduceMax" || op == "ReduceMin";
    const auto kind = element_kind(data.type);
    if (!kind || kind->boolean || (kind->real && (!order || !kind->exact))) return std::nullopt;
    const bool axes_from_input = op == "ReduceSum" ? opset >= 13 : opset >= 18;
    std::optional<Dims> axes;
    if (axes_from_input) {
        if (inputs.size() > 1 && inputs[1].present && !(axes = int_list(inputs[1].value))) return std::nullopt;
    } else {
        axes = ints_attribute(node, "axes");
    }
    const auto keepdims = int_attribute(node, "keepdims", 1);
    const auto noop = int_attribute(node, "noop_with_empty_axes", 0);
    if (!keepdims || !noop) return std::nullopt;
    const size_t rank = data.dims.size();
    std::set<size_t> reduced;
    if (!axes || axes->empty()) {
        if (*noop && axes_from_input) return std::vector<TensorValue>{data};
        for (size_t i = 0; i < rank; ++i) reduced.insert(i);
    } else {
        for (int64_t axis : *axes) {
            const auto a = normalized_axis(axis, rank);
            if (!a) return std::nullopt;
            reduced.insert(*a);
        }
    }
    Dims kept_dims;
    for (size_t i = 0; i < rank; ++i) {
        if (!reduced.count(i)) kept_dims.push_back(data.dims[i]);
        else if (*keepdims) kept_dims.push_back(1);
    }
    Dims full(rank);
    for (size_t i = 0; i < rank; ++i) full[i] = reduced.count(i) ? 1 : data.dims[i];
    TensorValue out = make(data.type, kept_dims);
    std::vector<uint64_t> acc(out.count(), op == "ReduceProd" ? 1 : 0);
    std::vector<bool> seen(out.count(), false);
    const auto out_strides = row_major_strides(full);
    const std::string combine = op == "ReduceMax" ? "Max" : "Min";
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < data.count(); ++flat) {
        uint64_t to = 0;
        for (size_t a = 0; a < rank; ++a) to += reduced.count(a) ? 0 : static_cast<uint64_t>(index[a]) * out_strides[a];
        if (!order) {
            const auto v = static_cast<uint64_t>(data.ints[flat]);
            acc[to] = op == "ReduceSum" ? acc[to] + v : acc[to] * v;
        } else if (kind->real) {
            const double v = data.reals[flat];
            if (std::isnan(v)) return std::nullopt;
            out.reals[to] = seen[to] ? *real_binary(combine, data.type, out.reals[to], v, 1) : v;
        } else {
            out.ints[to] = seen[to] ? *integer_binary(combine, data.type, out.ints[to], data.ints[flat], 0) : data.ints[flat];
        }
        seen[to] = true;
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < data.dims[a]) break;
            index[a] = 0;
        }
    }
    if (order) {
        if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;  // the max of nothing
    } else {
        for (uint64_t i = 0; i < out.count(); ++i) out.ints[i] = wrap_integer(data.type, acc[i]);
    }
    return std::vector<TensorValue>{out};
}

// --- the indexing operators themselves -------------------------------------------------------------------------

// An index along an axis of size `size`, made non-negative, or nothing when out of range.
std::optional<uint64_t> index_along(int64_t index, int64_t size) {
    if (index < -size || index >= size) return std::nullopt;
    return static_cast<uint64_t>(index < 0 ? index + size : index);
}

bool index_tensor(const TensorValue& v) { return v.type == TensorProto::INT64 || v.type == TensorProto::INT32; }

Outputs gather(const onnx::NodeProto& node, const TensorValue& data, const TensorValue& indices, uint64_t limit) {
    const auto axis_attr = int_attribute(node, "axis", 0);
    if (!axis_attr || !index_tensor(indices)) return std::nullopt;
    const auto axis = normalized_axis(*axis_attr, data.dims.size());
    if (!axis) return std::nullopt;
    Dims dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(*axis));
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, data.dims.end());
    if (!fits(dims, limit)) return std::nullopt;
    uint64_t outer = 1, inner = 1;
    for (size_t i = 0; i < *axis; ++i) outer *= static_cast<uint64_t>(data.dims[i]);
    for (size_t i = *axis + 1; i < data.dims.size(); ++i) inner *= static_cast<uint64_t>(data.dims[i]);
    const int64_t size = data.dims[*axis];
    TensorValue out = make(data.type, dims);
    uint64_t at = 0;
    for (uint64_t o = 0; o < outer; ++o) {
        for (int64_t index : indices.ints) {
            const auto i = index_along(index, size);
            if (!i) return std::nullopt;
            for (uint64_t j = 0; j < inner; ++j) copy_element(out, at++, data, (o * static_cast<uint64_t>(size) + *i) * inner + j);
        }
    }
    return std::vector<TensorValue>{out};
}

// GatherElements and ScatterElements share the walk over indices: out[..i..] pairs with data[..indices[..i..]..].
Outputs elements(const onnx::NodeProto& node, const TensorValue& data, const TensorValue& indices,
                 const TensorValue* updates) {
    const auto axis_attr = int_attribute(node, "axis", 0);
    if (!axis_attr || !index_tensor(indices) || indices.dims.size() != data.dims.size()) return std::nullopt;
    const auto axis = normalized_axis(*axis_attr, data.dims.size());
    if (!axis) return std::nullopt;
    for (size_t i = 0; i < data.dims.size(); ++i) {
        if (i != *axis && indices.dims[i] > data.dims[i]) return std::nullopt;
    }
    std::string reduction = "none";
    if (updates) {
        if (updates->dims != indices.dims || updates->type != data.type) return std::nullopt;
        if (const auto* attribute = find_attribute(node, "reduction")) reduction = attribute->s();
    }
    const auto kind = *element_kind(data.type);
    if (reduction != "none" && (kind.boolean || (kind.real && !kind.exact))) return std::nullopt;
    const auto data_strides = row_major_strides(data.dims);
    TensorValue out = updates ? data : make(data.type, indices.dims);
    const size_t rank = data.dims.size();
    Dims index(rank, 0);
    for (uint64_t flat = 0; flat < indices.count(); ++flat) {
        const auto along = index_along(indices.ints[flat], data.dims[*axis]);
        if (!along) return std::nullopt;
        uint64_t at = 0;
        for (size_t a = 0; a < rank; ++a) at += (a == *axis ? *along : static_cast<uint64_t>(index[a])) * data_strides[a];
        if (!updates) {
            copy_element(out, flat, data, at);
        } else if (reduction == "none") {
            copy_element(out, at, *updates, flat);
        } else {
            const std::string op = reduction == "add" ? "Add" : reduction == "mul" ? "Mul" : reduction == "max" ? "Max" : "Min";
            if (reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min") return std::nullopt;
            if (kind.real) {
                auto r = real_binary(op, data.type, out.reals[at], updates->reals[flat], 1);
                if (!r) return std::nullopt;
                out.reals[at] = *r;
            } else {
                out.ints[at] = *integer_binary(op, data.type, out.ints[at], updates->ints[flat], 0);
            }
        }
        for (size_t a = rank; a-- > 0;) {
            if (++index[a] < indices.dims[a]) break;
            index[a] = 0;
        }
    }
    return std::vector<TensorValue>{out};
}

// GatherND and ScatterND share the tuples: indices[..., :k] pick a block of data.
Outputs nd(const onnx::NodeProto& node, const TensorValue& data, const TensorValue& indices, const TensorValue* updates,
           uint64_t limit) {
    if (!index_tensor(indices) || indices.dims.empty() || data.dims.empty()) return std::nullopt;
    const auto batch_attr = int_attribute(node, "batch_dims", 0);
    if (!batch_attr || *batch_attr < 0 || (updates && *batch_attr != 0)) return std::nullopt;
    const auto b = static_cast<size_t>(*batch_attr);
    const auto k = indices.dims.back();
    const size_t q = indices.dims.size(), r = data.dims.size();
    if (b >= q || b >= r || k < 1 || static_cast<size_t>(k) > r - b) return std::nullopt;
    for (size_t i = 0; i < b; ++i) {
        if (indices.dims[i] != data.dims[i]) return std::nullopt;
    }
    uint64_t batches = 1, block = 1;
    for (size_t i = 0; i < b; ++i) batches *= static_cast<uint64_t>(data.dims[i]);
    for (size_t i = b + static_cast<size_t>(k); i < r; ++i) block *= static_cast<uint64_t>(data.dims[i]);
    const uint64_t tuples_per_batch = batches == 0 ? 0 : indices.count() / static_cast<uint64_t>(k) / batches;
    uint64_t batch_size = 1;  // elements of data per batch
    for (size_t i = b; i < r; ++i) batch_size *= static_cast<uint64_t>(data.dims[i]);
    const auto strides = row_major_strides(data.dims);
    std::string reduction = "none";
    TensorValue out;
    if (updates) {
        Dims expected(indices.dims.begin(), indices.dims.end() - 1);
        expected.insert(expected.end(), data.dims.begin() + k, data.dims.end());
        if (updates->dims != expected || updates->type != data.type) return std::nullopt;
        if (const auto* attribute = find_attribute(node, "reduction")) reduction = attribute->s();
        if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min") return std::nullopt;
        const auto kind = *element_kind(data.type);
        if (reduction != "none" && (kind.boolean || (kind.real && !kind.exact))) return std::nullopt;
        out = data;
    } else {
        Dims dims(indices.dims.begin(), indices.dims.end() - 1);
        dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(b) + k, data.dims.end());
        if (!fits(dims, limit)) return std::nullopt;
        out = make(data.type, dims);
    }
    uint64_t tuple = 0;
    for (uint64_t batch = 0; batch < batches; ++batch) {
        for (uint64_t t = 0; t < tuples_per_batch; ++t, ++tuple) {
            uint64_t at = batch * batch_size;
            for (int64_t c = 0; c < k; ++c) {
                const size_t axis = b + static_cast<size_t>(c);
                const auto i = index_along(indices.ints[tuple * static_cast<uint64_t>(k) + static_cast<uint64_t>(c)], data.dims[axis]);
                if (!i) return std::nullopt;
                at += *i * strides[axis];
            }
            for (uint64_t j = 0; j < block; ++j) {
                if (!updates) {
                    copy_element(out, tuple * block + j, data, at + j);
                } else if (reduction == "none") {
                    copy_element(out, at + j, *updates, tuple * block + j);
                } else {
                    const std::string op = reduction == "add" ? "Add" : reduction == "mul" ? "Mul" : reduction == "max" ? "Max" : "Min";
                    if (out.is_real()) {
                        auto v = real_binary(op, data.type, out.reals[at + j], updates->reals[tuple * block + j], 1);
                        if (!v) return std::nullopt;
                        out.reals[at + j] = *v;
                    } else {
                        out.ints[at + j] = *integer_binary(op, data.type, out.ints[at + j], updates->ints[tuple * block + j], 0);
                    }
                }
            }
        }
    }
    return std::vector<TensorValue>{out};
}

Outputs constant(const onnx::NodeProto& node) {
    if (node.attribute_size() != 1) return std::nullopt;
    const auto& attribute = node.attribute(0);
    std::string problem;
    if (attribute.name() == "value" && attribute.type() == onnx::AttributeProto::TENSOR) {
        auto value = read_tensor(attribute.t(), problem);
        if (!value) return std::nullopt;
        return std::vector<TensorValue>{*value};
    }
    if (attribute.name() == "value_int" && attribute.type() == onnx::AttributeProto::INT) {
        return std::vector<TensorValue>{scalar_int64(attribute.i())};
    }
    if (attribute.name() == "value_ints" && attribute.type() == onnx::AttributeProto::INTS) {
        if (static_cast<uint64_t>(attribute.ints_size()) > kMaxFoldElements) return std::nullopt;
        return std::vector<TensorValue>{vector_int64(Dims(attribute.ints().begin(), attribute.ints().end()))};
    }
    if (attribute.name() == "value_float" && attribute.type() == onnx::AttributeProto::FLOAT) {
        TensorValue out = make(TensorProto::FLOAT, {});
        out.reals[0] = attribute.f();
        return std::vector<TensorValue>{out};
    }
    if (attribute.name() == "value_floats" && attribute.type() == onnx::AttributeProto::FLOATS) {
        if (static_cast<uint64_t>(attribute.floats_size()) > kMaxFoldElements) return std::nullopt;
        TensorValue out = make(TensorProto::FLOAT, {attribute.floats_size()});
        for (int i = 0; i < attribute.floats_size(); ++i) out.reals[static_cast<size_t>(i)] = attribute.floats(i);
        return std::vector<TensorValue>{out};
    }
    return std::nullopt;
}

}  // namespace

bool default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

const std::vector<std::string>& foldable_operators() {
    static const std::vector<std::string> ops{
        "Constant", "Shape", "Size", "Identity", "Cast", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Concat",
        "Slice", "Transpose", "Expand", "Tile", "ConstantOfShape", "Range", "Add", "Sub", "Mul", "Div", "Mod",
        "Min", "Max", "Neg", "Abs", "Floor", "Ceil", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
        "Not", "And", "Or", "Xor", "Where", "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "Gather", "GatherElements", "GatherND",
        "ScatterND", "ScatterElements", "Scatter"};
    return ops;
}

namespace {

std::optional<std::vector<TensorValue>> fold_any(const onnx::NodeProto& node, int64_t opset,
                                                 const std::vector<FoldInput>& inputs, uint64_t limit) {
    if (!default_domain(node.domain())) return std::nullopt;
    const std::string& op = node.op_type();
    if (op == "Constant") return node.input_size() == 0 ? constant(node) : std::nullopt;
    if (inputs.empty() || !inputs[0].present) return std::nullopt;
    if (op == "Shape" || op == "Size") {
        // Only the shape is needed, and only when it is static.
        const Dims* dims = inputs[0].value ? &inputs[0].value->dims : inputs[0].shape ? &*inputs[0].shape : nullptr;
        if (!dims) return std::nullopt;
        if (op == "Shape") return shape_of(node, *dims);
        const auto count = checked_count(*dims, std::numeric_limits<int64_t>::max());
        if (!count) return std::nullopt;
        return std::vector<TensorValue>{scalar_int64(static_cast<int64_t>(*count))};
    }
    // Every other operator needs the value of each input it names; those it may leave out are optional.
    std::vector<const TensorValue*> values;
    for (const auto& input : inputs) {
        if (input.present && !input.value) return std::nullopt;
        values.push_back(input.value);
    }
    auto need = [&](size_t n) { return values.size() >= n && std::all_of(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n), [](const TensorValue* v) { return v != nullptr; }); };
    const TensorValue& a = *values[0];
    if (op == "Identity") return std::vector<TensorValue>{a};
    if (op == "Cast") return cast(node, a);
    if (op == "Reshape") return need(2) ? reshape(node, a, values[1]) : std::nullopt;
    if (op == "Flatten") return flatten(node, a);
    if (op == "Squeeze") return squeeze(node, opset, inputs);
    if (op == "Unsqueeze") return unsqueeze(node, opset, inputs);
    if (op == "Concat") return need(values.size()) ? concat(node, values, limit) : std::nullopt;
    if (op == "Slice") return slice(node, opset, inputs, limit);
    if (op == "Transpose") return transpose(node, a);
    if (op == "Expand") return need(2) ? expand(a, values[1], limit) : std::nullopt;
    if (op == "Tile") return need(2) ? tile(a, values[1], limit) : std::nullopt;
    if (op == "ConstantOfShape") return constant_of_shape(node, &a, limit);
    if (op == "Range") return need(3) ? range(a, *values[1], *values[2], limit) : std::nullopt;
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Min" || op == "Max") {
        if ((op != "Min" && op != "Max" && values.size() != 2) || !need(values.size())) return std::nullopt;
        return arithmetic(node, values, limit);
    }
    if (op == "Neg" || op == "Abs" || op == "Not" || op == "Floor" || op == "Ceil") return unary(op, a);
    if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual") {
        return need(2) ? comparison(op, a, *values[1], limit) : std::nullopt;
    }
    if (op == "And" || op == "Or" || op == "Xor") return need(2) ? logical(op, a, *values[1], limit) : std::nullopt;
    if (op == "Where") return need(3) ? where(a, *values[1], *values[2], limit) : std::nullopt;
    if (op == "ReduceSum" || op == "ReduceProd" || op == "ReduceMax" || op == "ReduceMin") return reduce(node, opset, inputs);
    if (op == "Gather") return need(2) ? gather(node, a, *values[1], limit) : std::nullopt;
    if (op == "GatherElements") return need(2) ? elements(node, a, *values[1], nullptr) : std::nullopt;
    if (op == "ScatterElements" || op == "Scatter") return need(3) ? elements(node, a, *values[1], values[2]) : std::nullopt;
    if (op == "GatherND") return need(2) ? nd(node, a, *values[1], nullptr, limit) : std::nullopt;
    if (op == "ScatterND") return need(3) ? nd(node, a, *values[1], values[2], limit) : std::nullopt;
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<TensorValue>> fold_node(const onnx::NodeProto& node, int64_t opset,
                                                  const std::vector<FoldInput>& inputs, uint64_t limit) {
    auto outputs = fold_any(node, opset, inputs, limit);
    // Whatever an operator computed, no value passes the limits of what import holds.
    if (outputs) {
        for (const auto& value : *outputs) {
            if (!foldable_count(value.dims) || value.count() != *foldable_count(value.dims)) return std::nullopt;
        }
    }
    return outputs;
}

}  // namespace kernelgen
