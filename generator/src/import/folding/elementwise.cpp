// Folding element by element: arithmetic, comparisons, logic, Where, Cast.
#include "import/folding/rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include "import/folding/support.h"
#include "import/model/node_attributes.h"

namespace kernelgen::folding {

using onnx::TensorProto;

namespace {

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

// Neg, Abs, Not, Floor, Ceil, Round, Reciprocal, Sqrt.
Outputs unary(const std::string& op, const TensorValue& a) {
    const auto kind = element_kind(a.type);
    if (!kind) return std::nullopt;
    TensorValue out = a;
    if (op == "Not") {
        if (!kind->boolean) return std::nullopt;
        for (auto& v : out.ints) v = !v;
    } else if (op == "Floor" || op == "Ceil" || op == "Round") {
        if (!kind->real || !kind->exact) return std::nullopt;
        // Round: halves to even, as ONNX says and ONNX Runtime's std::nearbyint does in the default rounding mode.
        for (auto& v : out.reals) v = op == "Floor" ? std::floor(v) : op == "Ceil" ? std::ceil(v) : std::nearbyint(v);
    } else if (op == "Reciprocal" || op == "Sqrt") {
        if (!kind->real || !kind->exact) return std::nullopt;
        for (auto& v : out.reals) {
            // Computed in double and rounded once to float32: correctly rounded, as ONNX Runtime's float
            // division and square root (double has more than 2 * 24 + 2 bits). A NaN (the root of a negative) is
            // left to run time: its sign bit is the platform's.
            v = op == "Reciprocal" ? 1.0 / v : std::sqrt(v);
            if (std::isnan(v)) return std::nullopt;
            if (a.type == TensorProto::FLOAT) v = static_cast<double>(static_cast<float>(v));
        }
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
            // To float32 with one rounding, as ONNX Runtime casts (an int64 through double rounds twice).
            if (type == TensorProto::FLOAT) {
                v = from_kind->real ? static_cast<float>(v)
                                    : from_kind->is_signed ? static_cast<float>(a.ints[i]) : static_cast<float>(static_cast<uint64_t>(a.ints[i]));
            }
            if (!to_kind->exact) {
                // Exactly representable only: round-trips through the type's own bits.
                TensorValue probe = make(type, {});
                probe.reals[0] = v;
                onnx::TensorProto bits;
                write_tensor(probe, &bits);
                auto back = read_tensor(bits);
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

}  // namespace

FoldOutputs fold_arithmetic(const FoldCall& c) {
    const std::string& op = c.node.op_type();
    if ((op != "Min" && op != "Max" && c.values.size() != 2) || !c.need(c.values.size())) return std::nullopt;
    return arithmetic(c.node, c.values, c.limit);
}

FoldOutputs fold_unary(const FoldCall& c) { return unary(c.node.op_type(), c.first()); }

FoldOutputs fold_comparison(const FoldCall& c) {
    return c.need(2) ? comparison(c.node.op_type(), c.first(), *c.values[1], c.limit) : std::nullopt;
}

FoldOutputs fold_logical(const FoldCall& c) {
    return c.need(2) ? logical(c.node.op_type(), c.first(), *c.values[1], c.limit) : std::nullopt;
}

FoldOutputs fold_where(const FoldCall& c) {
    return c.need(3) ? where(c.first(), *c.values[1], *c.values[2], c.limit) : std::nullopt;
}

FoldOutputs fold_cast(const FoldCall& c) { return cast(c.node, c.first()); }

}  // namespace kernelgen::folding
