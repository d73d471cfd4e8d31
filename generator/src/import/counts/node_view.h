// What a count rule sees of one node: its inputs' run-time counts, ranks, static shapes and known values, and how
// a count it makes or passes on is described. The rules themselves are in counts/rules.h; which operator has which
// rule, in import/operators/onnx_operators.cpp.
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "import/model/graph_scope.h"
#include "import/model/node_attributes.h"

namespace kernelgen {

// A dimension of a value that is a number of rows known only at run time, and the bound it cannot exceed.
struct CountedDim {
    size_t axis = 0;     // the dimension that is a count
    uint64_t bound = 0;  // the count is at most this
    // How the bound was derived: the producer first ("NonZero \"/NonZero\": at most 16, ..."), then each operator
    // the count went through ("Transpose \"/Transpose\"").
    std::vector<std::string> through;
    // The node output whose run-time count this is: where it was made, or last changed (sliced, summed, merged,
    // resized); operators that pass it on unchanged keep it. Two counts with the same identity are equal at run
    // time, as x.reshape(x.shape[0], -1) relies on.
    const void* identity = nullptr;
};

// One element of a small integer value that import knows but for run-time counts: a number, or a count read off
// a counted dimension by Shape (its `axis` unused).
struct ValueElement {
    int64_t known = 0;
    std::optional<CountedDim> count;
};

// An integer scalar or 1-D value whose elements are numbers or run-time counts: the shape of a counted tensor,
// and what Gather, Slice, Concat, Unsqueeze and Cast make of it, up to the ConstantOfShape, Expand, Reshape or Range
// that turns it back into a counted dimension (torchvision's full_like(scores, label), boxes.reshape(N, -1, 4)).
struct CountedValue {
    bool scalar = false;
    std::vector<ValueElement> elements;

    // The position of its one counted element; nothing when it has none or several.
    std::optional<size_t> only_count() const {
        std::optional<size_t> at;
        for (size_t i = 0; i < elements.size(); ++i) {
            if (!elements[i].count) continue;
            if (at) return std::nullopt;
            at = i;
        }
        return at;
    }
    bool has_count() const {
        return std::any_of(elements.begin(), elements.end(), [](const ValueElement& e) { return e.count.has_value(); });
    }
};

// Where the counts of the names a node reads are found (CountBounds, as it walks the graphs).
class CountLookup {
public:
    virtual ~CountLookup() = default;
    // The counted dimension of `name` as `scope` sees it, or nullptr.
    virtual const CountedDim* find(const GraphScope& scope, const std::string& name) const = 0;
    // The counted value of `name` (an integer value with run-time counts among its elements), or nullptr.
    virtual const CountedValue* find_value(const GraphScope& scope, const std::string& name) const = 0;
};

namespace counts {

using Dims = std::vector<int64_t>;
using Counted = std::optional<CountedDim>;

// Bounds saturate here: far above any count a kernel can take (kernelgen refuses a bound above 2^32 - 1).
constexpr uint64_t kSaturated = uint64_t{1} << 62;

inline uint64_t times(uint64_t a, uint64_t b) {
    if (a == 0 || b == 0) return 0;
    return a > kSaturated / b ? kSaturated : a * b;
}

inline uint64_t plus(uint64_t a, uint64_t b) { return std::min(kSaturated, a + b); }

// The elements of a shape, saturating.
inline uint64_t elements_of(const std::vector<uint64_t>& dims) {
    uint64_t elements = 1;
    for (uint64_t d : dims) elements = times(elements, d);
    return elements;
}

inline std::string shape_text(const std::vector<uint64_t>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

// What one node's computation sees: its inputs' counts, ranks, static shapes and known values.
struct NodeView {
    const GraphScope& scope;
    const onnx::NodeProto& node;
    const std::string label;  // Op "name" (or Op "Op#position" for an unnamed node)
    int64_t opset;
    const CountLookup& bounds;

    bool has(int i) const { return node.input_size() > i && !node.input(i).empty(); }
    const CountedDim* counted(int i) const { return has(i) ? bounds.find(scope, node.input(i)) : nullptr; }
    const TensorValue* value(int i) const { return has(i) ? scope.value(node.input(i)) : nullptr; }
    const CountedValue* counted_value(int i) const { return has(i) ? bounds.find_value(scope, node.input(i)) : nullptr; }

    // Input i's elements when it is an integer (or bool) scalar or 1-D value as short as a shape, known or with
    // run-time counts among them.
    std::optional<CountedValue> elements(int i) const {
        constexpr size_t kLongestShape = 64;
        if (const TensorValue* v = value(i)) {
            const bool integers = v->type == onnx::TensorProto::INT64 || v->type == onnx::TensorProto::INT32 ||
                                  v->type == onnx::TensorProto::BOOL;
            if (!integers || v->dims.size() > 1 || v->ints.size() > kLongestShape) {
                return std::nullopt;
            }
            CountedValue out;
            out.scalar = v->dims.empty();
            for (int64_t x : v->ints) out.elements.push_back(ValueElement{x, std::nullopt});
            return out;
        }
        if (const CountedValue* c = counted_value(i)) return *c;
        return std::nullopt;
    }

    std::optional<size_t> rank(const std::string& name) const {
        const onnx::TypeProto* type = scope.type(name);
        if (!has_rank(type)) return std::nullopt;
        return static_cast<size_t>(type->tensor_type().shape().dim_size());
    }
    std::optional<size_t> input_rank(int i) const { return has(i) ? rank(node.input(i)) : std::nullopt; }
    std::optional<size_t> output_rank(int i) const {
        return node.output_size() > i && !node.output(i).empty() ? rank(node.output(i)) : std::nullopt;
    }

    // The shape of input i with its counted dimension (if any) at its bound: every other dimension static.
    std::optional<std::vector<uint64_t>> bounded_shape(int i) const {
        if (!has(i)) return std::nullopt;
        const onnx::TypeProto* type = scope.type(node.input(i));
        if (!has_rank(type)) return std::nullopt;
        const CountedDim* count = counted(i);
        std::vector<uint64_t> dims;
        const auto& shape = type->tensor_type().shape();
        for (int d = 0; d < shape.dim_size(); ++d) {
            const auto& dim = shape.dim(d);
            if (count && count->axis == static_cast<size_t>(d)) dims.push_back(count->bound);
            else if (dim.has_dim_value() && dim.dim_value() >= 0) dims.push_back(static_cast<uint64_t>(dim.dim_value()));
            else return std::nullopt;
        }
        return dims;
    }

    // The static size of dimension d of input i (nothing when it is not static).
    std::optional<int64_t> static_dim(int i, size_t d) const {
        if (!has(i)) return std::nullopt;
        const onnx::TypeProto* type = scope.type(node.input(i));
        if (!has_rank(type)) return std::nullopt;
        const auto& shape = type->tensor_type().shape();
        if (d >= static_cast<size_t>(shape.dim_size())) return std::nullopt;
        const auto& dim = shape.dim(static_cast<int>(d));
        if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
        return dim.dim_value();
    }

    // A known integer list: input i's value (1-D, or a scalar when allowed).
    std::optional<Dims> ints(int i, bool allow_scalar = false) const {
        const TensorValue* v = value(i);
        if (!v || (v->type != onnx::TensorProto::INT64 && v->type != onnx::TensorProto::INT32)) return std::nullopt;
        if (v->dims.size() > 1 || (v->dims.empty() && !allow_scalar)) return std::nullopt;
        return v->ints;
    }

    // Axes given by an attribute (before opset `since`) or by input 1 from it on.
    std::optional<Dims> axes(int64_t since) const {
        if (opset < since) return ints_attribute(node, "axes");
        return ints(1, true);
    }

    // The identity of a count this node makes or changes (see CountedDim::identity): its first output (the node
    // itself when it has none).
    const void* self() const { return node.output_size() > 0 ? static_cast<const void*>(&node.output(0)) : &node; }

    // A count produced here: at most `bound`, on `axis`, for the reason given.
    Counted source(size_t axis, uint64_t bound, const std::string& why) const {
        return CountedDim{axis, bound, {label + ": at most " + std::to_string(bound) + ", " + why}, self()};
    }

    // The count of `from` made a count of `bound` on `axis` by this node (which merges it with other dimensions,
    // or splits it): the bound may grow as well as shrink.
    Counted resized(const CountedDim& from, size_t axis, uint64_t bound) const {
        CountedDim out = from;
        out.axis = axis;
        out.through.push_back(label + (bound == from.bound ? "" : ": at most " + std::to_string(bound)));
        out.bound = bound;
        out.identity = self();
        return out;
    }

    // The count of `from` moved to `axis` (and lowered to `bound`, when given: then it is a count of its own) by
    // this node.
    Counted moved(const CountedDim& from, size_t axis, std::optional<uint64_t> bound = std::nullopt) const {
        CountedDim out = from;
        out.axis = axis;
        if (bound && *bound < out.bound) {
            out.bound = *bound;
            out.identity = self();
            out.through.push_back(label + ": at most " + std::to_string(*bound));
        } else {
            out.through.push_back(label);
        }
        return out;
    }
};

}  // namespace counts

}  // namespace kernelgen
