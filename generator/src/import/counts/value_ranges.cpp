#include "import/counts/value_ranges.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "import/model/node_attributes.h"
#include "kernelgen/diagnostics.h"

namespace kernelgen::counts {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// How deep a walk back through producers goes: the box arithmetic of a detector is a few dozen nodes.
constexpr int kMaxDepth = 64;
// The longest rank-1 tensor whose elements keep a range each (a Resize's sizes, a shape): longer ones keep one.
constexpr size_t kMaxEach = 64;
// The most nodes a range names as what bounds it.
constexpr size_t kMaxThrough = 8;
// Integers a double holds exactly: beyond them integer arithmetic is not followed.
constexpr double kExactIntegers = 9007199254740992.0;  // 2^53

// A node that bounds a range: named only when a bound is reported (a range holds no copy of the name).
struct Step {
    const onnx::NodeProto* node = nullptr;
    size_t position = 0;
    bool operator==(const Step& other) const { return node == other.node; }
};

std::string step_label(const Step& step) {
    return terminal_safe(step.node->op_type()) + " " + in_quotes(node_label(*step.node, step.position));
}

// The values an element may take (NaN aside), and the nodes that bounded them.
struct Range {
    double low = -kInfinity, high = kInfinity;
    std::vector<Step> through{};
};

void add_through(std::vector<Step>& to, const std::vector<Step>& from) {
    for (const auto& item : from) {
        if (to.size() < kMaxThrough && std::find(to.begin(), to.end(), item) == to.end()) to.push_back(item);
    }
}

Range hull(const Range& a, const Range& b) {
    Range out{std::min(a.low, b.low), std::max(a.high, b.high), a.through};
    add_through(out.through, b.through);
    return out;
}

// The ranges of a tensor's elements: one range for every element, or one per element of a rank-1 tensor.
struct Ranges {
    std::vector<Range> each{Range{}};

    Range all() const {
        Range out = each.front();
        for (size_t i = 1; i < each.size(); ++i) out = hull(out, each[i]);
        return out;
    }
};

Ranges one(Range range) { return Ranges{{std::move(range)}}; }

// `x` rounded to a float32 toward +inf (`up`) or -inf, as a double.
double to_float(double x, bool up) {
    if (std::isinf(x)) return x;
    if (x > FLT_MAX) return up ? kInfinity : FLT_MAX;
    if (x < -FLT_MAX) return up ? -FLT_MAX : -kInfinity;
    float f = static_cast<float>(x);
    if (up && static_cast<double>(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    if (!up && static_cast<double>(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return static_cast<double>(f);
}

// The range of a value made an element of `type`, or every value where the type is not followed or the range may
// pass the type's own (an integer could wrap). A float32's ends are rounded outward, so that the range holds the
// exact value as well as the value each operator rounds: ONNX Runtime may compute two operators with one rounding
// (its DivMulFusion computes Mul(Div(1, x), y) as Div(y, x)), and the exact value bounds either. bool is whether
// the value is not 0.
Range round_to(int32_t type, Range r) {
    if (std::isnan(r.low) || std::isnan(r.high)) return {};
    if (type == onnx::TensorProto::DOUBLE) return r;
    if (type == onnx::TensorProto::FLOAT) return {to_float(r.low, false), to_float(r.high, true), r.through};
    if (type == onnx::TensorProto::BOOL) {
        return {r.low > 0 || r.high < 0 ? 1.0 : 0.0, r.low == 0 && r.high == 0 ? 0.0 : 1.0, r.through};
    }
    const auto kind = element_kind(type);
    if (!kind || !kind->integer || kind->bits > 64) return {};
    const double top = kind->is_signed ? std::ldexp(1.0, kind->bits - 1) - 1 : std::ldexp(1.0, kind->bits) - 1;
    const double bottom = kind->is_signed ? -std::ldexp(1.0, kind->bits - 1) : 0.0;
    if (r.low < bottom || r.high > top) return {};
    // Beyond 2^53 a double's integers have gaps: such an end is the type's own (the low one), or unknown.
    return {r.low < -kExactIntegers ? bottom : std::ceil(r.low), r.high > kExactIntegers ? kInfinity : std::floor(r.high),
            r.through};
}

// x + y rounded up (or down) where the double sum is not exact: the true sum is s + e exactly (Knuth's TwoSum).
double add_rounded(double x, double y, bool up) {
    const double s = x + y;
    if (!std::isfinite(s)) return s;
    const double y_part = s - x;
    const double e = (x - (s - y_part)) + (y - y_part);
    if (up && e > 0) return std::nextafter(s, kInfinity);
    if (!up && e < 0) return std::nextafter(s, -kInfinity);
    return s;
}

// x * y rounded up (or down) where the double product is not exact (its error is fma(x, y, -p)); NaN for 0 * inf.
double multiply_rounded(double x, double y, bool up) {
    const double p = x * y;
    if (!std::isfinite(p)) return p;
    const double e = std::fma(x, y, -p);
    if (up && e > 0) return std::nextafter(p, kInfinity);
    if (!up && e < 0) return std::nextafter(p, -kInfinity);
    return p;
}

// x / y rounded up (or down) where the double quotient is not exact: x / y = q + r / y, r = fma(-q, y, x).
double divide_rounded(double x, double y, bool up) {
    const double q = x / y;
    if (!std::isfinite(q) || std::isinf(y)) return q;
    const double r = std::fma(-q, y, x);
    const double sign = (r > 0) == (y > 0) ? (r == 0 ? 0.0 : 1.0) : -1.0;
    if (up && sign > 0) return std::nextafter(q, kInfinity);
    if (!up && sign < 0) return std::nextafter(q, -kInfinity);
    return q;
}

// The range of an arithmetic operator's result over two ranges (ONNX's Add, Sub, Mul, Div), before rounding to
// the result's type; every value where a corner is undefined (inf - inf, 0 * inf, a divisor range holding 0).
Range arithmetic(const std::string& op, const Range& a, const Range& b) {
    double low = kInfinity, high = -kInfinity;
    auto corner = [&](double x, double y) {
        double down = 0, up = 0;
        if (op == "Add") down = add_rounded(x, y, false), up = add_rounded(x, y, true);
        if (op == "Sub") down = add_rounded(x, -y, false), up = add_rounded(x, -y, true);
        if (op == "Mul") down = multiply_rounded(x, y, false), up = multiply_rounded(x, y, true);
        if (op == "Div") down = divide_rounded(x, y, false), up = divide_rounded(x, y, true);
        if (std::isnan(down) || std::isnan(up)) down = -kInfinity, up = kInfinity;
        low = std::min(low, down);
        high = std::max(high, up);
    };
    if (op == "Div" && b.low <= 0 && b.high >= 0) return {};
    for (const double x : {a.low, a.high}) {
        for (const double y : {b.low, b.high}) corner(x, y);
    }
    Range out{low, high, a.through};
    add_through(out.through, b.through);
    return out;
}

// What a Cast to `to` makes of values of `from`: a float truncated toward zero to an integer type (where every
// value of the range fits, the only case ONNX defines), any value rounded to a floating type. A NaN (which no
// range excludes: Clip, Max, Min and Relu pass it on) cast to an integer is undefined in ONNX; ONNX Runtime gives
// 0 on ARM, and on x86 int32's and int64's minimum, 0 for the other types and true for bool: the range holds those
// values too (nothing is known for uint64).
Range cast(const Range& r, int32_t from, int32_t to) {
    const auto source = element_kind(from);
    if (!source) return {};
    const auto target = element_kind(to);
    if (target && target->boolean && source->real) return {round_to(to, r).low, 1.0, r.through};
    if (target && target->integer && source->real) {
        if (target->bits == 64 && !target->is_signed) return {};
        const Range truncated = round_to(to, {std::trunc(r.low), std::trunc(r.high), r.through});
        const double lowest = target->is_signed && target->bits >= 32 ? -std::ldexp(1.0, target->bits - 1) : 0.0;
        return {std::min(truncated.low, lowest), std::max(truncated.high, 0.0), truncated.through};
    }
    return round_to(to, r);
}

// A / B as ONNX computes it in `type`: an integer quotient truncated toward 0.
Range divide(int32_t type, const Range& a, const Range& b) {
    Range out = arithmetic("Div", a, b);
    const auto kind = element_kind(type);
    if (kind && kind->integer) out = {std::trunc(out.low), std::trunc(out.high), out.through};
    return round_to(type, out);
}

// Whether every element of `name` is known to be 1.
bool all_ones(const GraphScope& scope, const std::string& name) {
    const TensorValue* value = scope.value(name);
    if (!value || value->count() == 0) return false;
    if (value->is_real()) return std::all_of(value->reals.begin(), value->reals.end(), [](double v) { return v == 1; });
    return std::all_of(value->ints.begin(), value->ints.end(), [](int64_t v) { return v == 1; });
}

// A tensor's element type, or 0 where not known.
int32_t element_type(const GraphScope& scope, const std::string& name) {
    const onnx::TypeProto* type = scope.type(name);
    return type && type->has_tensor_type() ? type->tensor_type().elem_type() : 0;
}

// The number of elements of a tensor of rank 0 or 1 with a static shape, or nothing.
std::optional<size_t> short_length(const GraphScope& scope, const std::string& name) {
    const auto shape = static_shape(scope.type(name));
    if (!shape || shape->size() > 1) return std::nullopt;
    return shape->empty() ? 1 : static_cast<size_t>(shape->front());
}

// The elements a Slice of opset 10 on (its starts, ends, axes and steps inputs) takes of a rank-1 tensor of
// `length` elements: along axis 0, by known starts and ends, with steps of 1; nothing otherwise.
std::optional<std::vector<size_t>> sliced(const GraphScope& scope, const onnx::NodeProto& node, size_t length) {
    auto one_value = [&](int i, int64_t none) -> std::optional<int64_t> {
        if (node.input_size() <= i || node.input(i).empty()) return none;
        const TensorValue* value = scope.value(node.input(i));
        if (!value || value->is_real() || value->ints.size() != 1) return std::nullopt;
        return value->ints.front();
    };
    if (node.input_size() < 3) return std::nullopt;
    const auto start = one_value(1, 0), end = one_value(2, 0), axis = one_value(3, 0), step = one_value(4, 1);
    if (!start || !end || !axis || !step || (*axis != 0 && *axis != -1) || *step != 1) return std::nullopt;
    const auto n = static_cast<int64_t>(length);
    auto clamp = [&](int64_t v) { return std::min(n, std::max<int64_t>(0, v < 0 ? v + n : v)); };
    std::vector<size_t> out;
    for (int64_t i = clamp(*start); i < clamp(*end); ++i) out.push_back(static_cast<size_t>(i));
    return out;
}

// The ranges of one node's outputs followed back through its producers, each tensor's once.
class RangeWalk {
public:
    Ranges of(const GraphScope& scope, const std::string& name, int depth) {
        const GraphScope* owner = scope.owner(name);
        if (!owner) return {};
        const auto key = std::make_pair(owner, name);
        if (const auto found = memo_.find(key); found != memo_.end()) return found->second;
        Ranges out = compute(*owner, name, depth);
        // Ranges per element only where they are the tensor's elements (a broadcast makes more of them).
        const auto length = short_length(*owner, name);
        if (out.each.size() > 1 && (!length || *length != out.each.size())) out = one(out.all());
        for (Range& r : out.each) {  // nothing bounds a range of no finite end
            if (!std::isfinite(r.low) && !std::isfinite(r.high)) r.through.clear();
        }
        memo_[key] = out;
        return out;
    }

private:
    Ranges known(const TensorValue& value) {
        const auto kind = element_kind(value.type);
        if (!kind || (!kind->real && !kind->integer) || value.count() == 0) return {};
        if (kind->integer && !kind->is_signed && kind->bits == 64) return {};  // bit patterns, not values
        Ranges out;
        out.each.clear();
        for (size_t i = 0; i < value.count(); ++i) {
            const double v = kind->real ? value.reals[i] : static_cast<double>(value.ints[i]);
            Range element = std::isnan(v) ? Range{} : Range{v, v};
            // (the integer itself: 2^53 + 1 is 2^53 as a double)
            const int64_t exact = int64_t{1} << 53;
            if (!kind->real && (value.ints[i] > exact || value.ints[i] < -exact)) element = {};
            if (value.dims.size() <= 1 && value.count() <= kMaxEach) out.each.push_back(element);
            else out.each = {out.each.empty() ? element : hull(out.each.front(), element)};
        }
        return out;
    }

    // The ranges an element-wise operator makes of its inputs' (broadcast): per element where every input has
    // one range or as many as the others, else one range over all.
    template <typename Fn>
    static Ranges elementwise(const std::vector<Ranges>& inputs, Fn fn) {
        size_t n = 1;
        for (const auto& in : inputs) n = std::max(n, in.each.size());
        const bool aligned = std::all_of(inputs.begin(), inputs.end(),
                                         [&](const Ranges& in) { return in.each.size() == 1 || in.each.size() == n; });
        Ranges out;
        out.each.clear();
        if (!aligned) {
            std::vector<Range> all;
            for (const auto& in : inputs) all.push_back(in.all());
            out.each.push_back(fn(all));
            return out;
        }
        for (size_t i = 0; i < n; ++i) {
            std::vector<Range> at;
            for (const auto& in : inputs) at.push_back(in.each.size() == 1 ? in.each.front() : in.each[i]);
            out.each.push_back(fn(at));
        }
        return out;
    }

    Ranges compute(const GraphScope& scope, const std::string& name, int depth) {
        if (const TensorValue* value = scope.value(name)) return known(*value);
        const auto producer = scope.producers.find(name);
        if (depth >= kMaxDepth || producer == scope.producers.end()) return {};
        const onnx::NodeProto& node = scope.graph->node(producer->second);
        if (!default_domain(node.domain()) || node.input_size() == 0) return {};
        const std::string& op = node.op_type();
        const Step label{&node, static_cast<size_t>(producer->second)};
        auto input = [&](int i) { return of(scope, input_or_none(node, i), depth + 1); };
        // The range of a node that picks among values (Max, Min, Clip, Relu): bounded by the inputs whose end it
        // keeps, and by the node itself where it narrows `value` (what it picks from).
        auto picked = [&](Range out, const std::vector<Range>& from, const Range& value) {
            out.through.clear();
            for (const Range& r : from) {
                const bool keeps_low = std::isfinite(out.low) && r.low == out.low;
                const bool keeps_high = std::isfinite(out.high) && r.high == out.high;
                if (keeps_low || keeps_high) add_through(out.through, r.through);
            }
            if (out.low > value.low || out.high < value.high) add_through(out.through, {label});
            return out;
        };
        const int32_t type = element_type(scope, name);
        // The order and number of elements kept.
        if (op == "Identity" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten") return input(0);
        if (op == "Slice") {  // of a rank-1 tensor by constant starts and ends: those elements; else some of them
            const Ranges in = input(0);
            if (in.each.size() > 1) {
                if (const auto taken = sliced(scope, node, in.each.size())) {
                    Ranges out;
                    out.each.clear();
                    for (const size_t i : *taken) out.each.push_back(in.each[i]);
                    if (!out.each.empty()) return out;
                }
            }
            return one(in.all());
        }
        // Some of the elements, in any order or repeated.
        if (op == "Transpose" || op == "Gather" || op == "GatherElements" || op == "GatherND" ||
            op == "Expand" || op == "Tile" || op == "Split") {
            return one(input(0).all());
        }
        if (op == "ReduceMax" || op == "ReduceMin") {  // over no element, the type's lowest or highest value
            const auto shape = static_shape(scope.type(node.input(0)));
            const bool some = shape && std::all_of(shape->begin(), shape->end(), [](int64_t d) { return d > 0; });
            return some ? one(input(0).all()) : Ranges{};
        }
        if (op == "Concat") {
            Ranges out;
            out.each.clear();
            const auto total = short_length(scope, name);
            bool each = total && *total <= kMaxEach;
            for (int i = 0; i < node.input_size(); ++i) {
                const Ranges part = input(i);
                const auto length = short_length(scope, node.input(i));
                // (a body may declare an outer tensor's type otherwise than its owner does)
                if (!length || (part.each.size() > 1 && part.each.size() != *length)) each = false;
                for (size_t k = 0; each && k < *length; ++k) {
                    out.each.push_back(part.each.size() == 1 ? part.each.front() : part.each[k]);
                }
                if (!each) out.each = {out.each.empty() ? part.all() : hull(Ranges{out.each}.all(), part.all())};
            }
            return out.each.empty() ? Ranges{} : out;
        }
        if (op == "Where") return one(hull(input(1).all(), input(2).all()));
        if (op == "Cast") {
            const auto to = int_attribute(node, "to", 0);
            const int32_t from = element_type(scope, node.input(0));
            if (!to) return {};
            return elementwise({input(0)},
                               [&](const std::vector<Range>& r) { return cast(r[0], from, static_cast<int32_t>(*to)); });
        }
        if (op == "Ceil" || op == "Floor" || op == "Round" || op == "Neg" || op == "Relu") {
            return elementwise({input(0)}, [&](const std::vector<Range>& r) {
                const Range& x = r[0];
                if (op == "Ceil") return Range{std::ceil(x.low), std::ceil(x.high), x.through};
                if (op == "Floor") return Range{std::floor(x.low), std::floor(x.high), x.through};
                if (op == "Round") return Range{std::nearbyint(x.low), std::nearbyint(x.high), x.through};
                if (op == "Neg") return round_to(type, {-x.high, -x.low, x.through});  // -(-128) wraps in int8
                return picked(Range{std::max(x.low, 0.0), std::max(x.high, 0.0)}, {x, Range{0, 0}}, x);
            });
        }
        if (op == "Max" || op == "Min") {
            std::vector<Ranges> inputs;
            for (int i = 0; i < node.input_size(); ++i) inputs.push_back(input(i));
            return elementwise(inputs, [&](const std::vector<Range>& r) {
                Range out = r.front();
                for (size_t i = 1; i < r.size(); ++i) {
                    out = op == "Max" ? Range{std::max(out.low, r[i].low), std::max(out.high, r[i].high)}
                                      : Range{std::min(out.low, r[i].low), std::min(out.high, r[i].high)};
                }
                Range value = r.front();
                for (const Range& each : r) value = hull(value, each);
                return picked(out, r, value);
            });
        }
        if (op == "Clip") {
            // min(max(x, min), max), as ONNX Runtime computes it; min and max are inputs from opset 11 on, else
            // attributes, and either may be left out.
            auto limit = [&](int i, const char* attribute, double none) {
                if (node.input_size() > i && !node.input(i).empty()) return input(i).all();
                const auto* a = find_attribute(node, attribute);
                if (a && a->type() == onnx::AttributeProto::FLOAT) return Range{a->f(), a->f()};
                return Range{none, none};  // no limit
            };
            const Range low = limit(1, "min", -kInfinity), high = limit(2, "max", kInfinity);
            return elementwise({input(0)}, [&](const std::vector<Range>& r) {
                const Range out{std::min(std::max(r[0].low, low.low), high.low),
                                std::min(std::max(r[0].high, low.high), high.high)};
                return picked(out, {r[0], low, high}, r[0]);
            });
        }
        if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
            Ranges out = elementwise({input(0), input(1)}, [&](const std::vector<Range>& r) {
                return op == "Div" ? divide(type, r[0], r[1]) : round_to(type, arithmetic(op, r[0], r[1]));
            });
            // ONNX Runtime's DivMulFusion computes Mul(Div(1, x), y) as Div(y, x): one rounding, and for integers
            // another value (1 / x is 0 where y / x need not be). The range holds that too, whatever of it folded.
            for (int i = 0; op == "Mul" && i < 2; ++i) {
                const std::string& factor = input_or_none(node, i);
                const GraphScope* owner = scope.owner(factor);
                const auto made = owner ? owner->producers.find(factor) : scope.producers.end();
                if (!owner || made == owner->producers.end()) continue;
                const onnx::NodeProto& div = owner->graph->node(made->second);
                const bool inverse = div.op_type() == "Div" && default_domain(div.domain()) && div.input_size() == 2 &&
                                     all_ones(*owner, div.input(0));
                if (!inverse) continue;
                const Range fused = divide(type, input(1 - i).all(), of(*owner, div.input(1), depth + 1).all());
                out = one(hull(out.all(), fused));
            }
            return out;
        }
        if (op == "Shape" && !find_attribute(node, "start") && !find_attribute(node, "end")) {
            const onnx::TypeProto* of_type = scope.type(node.input(0));
            if (!has_rank(of_type)) return {};
            Ranges out;
            out.each.clear();
            for (const auto& dim : of_type->tensor_type().shape().dim()) {
                const double v = static_cast<double>(dim.dim_value());
                out.each.push_back(dim.has_dim_value() ? Range{v, v} : Range{0, kInfinity});
            }
            return out.each.empty() ? Ranges{} : out;
        }
        return {};
    }

    std::map<std::pair<const GraphScope*, std::string>, Ranges> memo_;
};

// The rank of `name`, or nothing when not known.
std::optional<size_t> rank_of(const GraphScope& scope, const std::string& name) {
    const onnx::TypeProto* type = scope.type(name);
    if (!has_rank(type)) return std::nullopt;
    return static_cast<size_t>(type->tensor_type().shape().dim_size());
}

// The axes of a Squeeze or Unsqueeze (an attribute before opset 13, an input from it on), made non-negative for
// `rank`; nothing where not known.
std::optional<std::vector<size_t>> axes_of(const GraphScope& scope, const onnx::NodeProto& node, size_t rank) {
    std::optional<std::vector<int64_t>> axes = ints_attribute(node, "axes");
    if (!axes && node.input_size() > 1) {
        if (const TensorValue* value = scope.value(node.input(1)); value && !value->is_real()) axes = value->ints;
    }
    if (!axes) return std::nullopt;
    std::vector<size_t> out;
    for (const int64_t axis : *axes) {
        const auto normal = normalized_axis(axis, rank);
        if (!normal) return std::nullopt;
        out.push_back(*normal);
    }
    return out;
}

// Operators whose output has their first input's shape.
bool keeps_shape(const std::string& op) {
    static const char* const ops[] = {"Identity", "Cast", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Neg", "Abs", "Ceil",
                                      "Floor", "Round", "Sqrt", "Reciprocal", "Softmax", "LogSoftmax", "Clip", "Erf",
                                      "Not", "Sign", "LeakyRelu", "HardSigmoid"};
    return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

}  // namespace

std::optional<ExtentBound> extent_at_most(const GraphScope& scope, const std::string& name, size_t axis) {
    const GraphScope* at = &scope;
    std::string tensor = name;
    for (int step = 0; step < kMaxDepth; ++step) {
        const GraphScope* owner = at->owner(tensor);
        if (!owner || owner->value(tensor)) return std::nullopt;
        const auto producer = owner->producers.find(tensor);
        if (producer == owner->producers.end()) return std::nullopt;
        const onnx::NodeProto& node = owner->graph->node(producer->second);
        if (!default_domain(node.domain()) || node.input_size() == 0) return std::nullopt;
        const std::string& op = node.op_type();
        at = owner;
        const std::optional<size_t> rank = rank_of(*owner, node.input(0));
        if (keeps_shape(op)) {
            tensor = node.input(0);
        } else if (op == "Gather" && rank && node.input_size() > 1) {
            const auto indices_rank = rank_of(*owner, node.input(1));
            const auto gather_axis = int_attribute(node, "axis", 0);
            const auto a = gather_axis ? normalized_axis(*gather_axis, *rank) : std::nullopt;
            if (!indices_rank || !a) return std::nullopt;
            if (axis >= *a && axis < *a + *indices_rank) {
                tensor = node.input(1);
                axis -= *a;
            } else {
                tensor = node.input(0);
                if (axis >= *a) axis = axis - *indices_rank + 1;
            }
        } else if (op == "Squeeze" && rank) {
            const auto axes = axes_of(*owner, node, *rank);
            if (!axes) return std::nullopt;
            std::optional<size_t> kept;  // the input's axis that is output axis `axis`
            for (size_t d = 0, seen = 0; d < *rank && !kept; ++d) {
                if (std::find(axes->begin(), axes->end(), d) == axes->end() && seen++ == axis) kept = d;
            }
            if (!kept) return std::nullopt;
            axis = *kept;
            tensor = node.input(0);
        } else if (op == "Unsqueeze") {
            const auto output_rank = rank_of(*owner, tensor);
            const auto axes = output_rank ? axes_of(*owner, node, *output_rank) : std::nullopt;
            if (!axes || std::find(axes->begin(), axes->end(), axis) != axes->end()) return std::nullopt;
            axis -= static_cast<size_t>(std::count_if(axes->begin(), axes->end(), [&](size_t a) { return a < axis; }));
            tensor = node.input(0);
        } else if (op == "Transpose" && rank) {
            std::vector<int64_t> perm = ints_attribute(node, "perm").value_or(std::vector<int64_t>{});
            if (perm.empty()) {
                for (size_t d = *rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
            }
            if (axis >= perm.size() || perm[axis] < 0 || static_cast<size_t>(perm[axis]) >= *rank) return std::nullopt;
            axis = static_cast<size_t>(perm[axis]);
            tensor = node.input(0);
        } else if (op == "Resize" && node.input_size() > 3 && !node.input(3).empty() && !find_attribute(node, "axes") &&
                   !find_attribute(node, "keep_aspect_ratio_policy")) {  // its sizes are its output's shape
            RangeWalk walk;
            const Ranges sizes = walk.of(*owner, node.input(3), 0);
            if (sizes.each.size() > 1 && axis >= sizes.each.size()) return std::nullopt;
            const Range range = sizes.each.size() > 1 ? sizes.each[axis] : sizes.all();
            if (!(range.high >= 1) || range.high > 4294967295.0) return std::nullopt;
            ExtentBound out{static_cast<uint64_t>(range.high),
                            {"the sizes of Resize " + in_quotes(node_label(node, static_cast<size_t>(producer->second)))}};
            for (const Step& bounding : range.through) out.through.push_back(step_label(bounding));
            return out;
        } else {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

}  // namespace kernelgen::counts
