// "indices_broadcast_from": the kernel takes indices of a smaller shape, which broadcast to indices_shape as ONNX's
// Expand broadcasts: a model often makes a node's indices so (PyTorch's index_copy expands its positions along every
// other axis). The kernel reads each value where it broadcasts to, and checks each value once.
#include "spec/kernel_reader.h"

namespace kernelgen {

void read_indices_broadcast(KernelReader& r, KernelSpec& spec) {
    if (!r.find("indices_broadcast_from")) return;
    const std::string key = "indices_broadcast_from";
    auto from = r.read_shape(key);
    if (!from) return;
    if (r.find("indices")) {
        r.fail(key, "constant indices (\"indices\") are given whole, of indices_shape (remove one of the two)");
        return;
    }
    if (spec.counted()) return;  // refused with the counts (counts.cpp)
    const Shape& to = spec.indices_shape;
    if (from->size() > to.size()) {
        r.fail(key, "rank " + std::to_string(from->size()) + " is more than indices_shape's " + std::to_string(to.size()) +
                        " (the shape broadcasts to indices_shape " + format_shape(to) + ")");
        return;
    }
    // Aligned at the back, as ONNX's Expand aligns shapes.
    const size_t lead = to.size() - from->size();
    for (size_t i = 0; i < from->size(); ++i) {
        const uint64_t dim = (*from)[i], target = to[lead + i];
        if (dim != target && dim != 1) {
            r.fail(key + "/" + std::to_string(i), "dimension " + std::to_string(dim) + " does not broadcast to indices_shape " +
                                                      format_shape(to) + "'s " + std::to_string(target) + " (it must be " +
                                                      std::to_string(target) + " or 1)");
            return;
        }
    }
    const bool tuples = spec.op == Op::GatherND || spec.op == Op::ScatterND;
    if (tuples && (from->size() != to.size() || from->back() != to.back())) {
        r.fail(key, "the last dimension holds each index tuple whole: it must be indices_shape's last, " +
                        std::to_string(to.back()) + ", and the ranks equal");
        return;
    }
    Shape padded(lead, 1);
    padded.insert(padded.end(), from->begin(), from->end());
    if (padded != to) spec.indices_broadcast_from = padded;  // the same shape: the indices themselves
}

}  // namespace kernelgen
