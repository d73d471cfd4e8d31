#include "kernelgen/operators.h"

#include <algorithm>

namespace kernelgen {

const std::vector<OperatorInfo>& operators() {
    // Scatter (opsets 9-10, deprecated since 11) is ScatterElements without a reduction: same inputs, same axis
    // attribute, same result, so it imports as ScatterElements. A model whose opset lacks an operator is not a
    // valid model: ONNX's checker and ONNX Runtime refuse it, and so does import, node by node.
    // ONNX's inputs of the gathers and of ScatterND/ScatterElements: data, indices (and updates).
    static const std::vector<OnnxInput> gather{{"data", KernelInput::Data}, {"indices", KernelInput::Indices}};
    static const std::vector<OnnxInput> scatter{{"data", KernelInput::Data}, {"indices", KernelInput::Indices}, {"updates", KernelInput::Updates}};
    static const std::vector<OperatorInfo> table{
        // ONNX Runtime's com.microsoft.GatherBlockQuantized is a Gather along axis 0 from the quantized table it holds
        // (its data, scales and zero points), its indices passed at run time.
        {Op::Gather, "Gather", false, true,
         {{"axis", false}, {"data", false}, {"data_file", false}, {"quantization", false}, {"runtime_axes", false}},
         {{"Gather", {"axis"}, 1, 0, "", gather},
          {"GatherBlockQuantized", {"bits", "block_size", "gather_axis", "quantize_axis"}, 1, 0, "", gather, "com.microsoft"}}},
        {Op::GatherElements, "GatherElements", false, true, {{"axis", false}, {"data", false}, {"data_file", false}},
         {{"GatherElements", {"axis"}, 11, 0, "", gather}}},
        {Op::GatherND, "GatherND", false, true,
         {{"batch_dims", false}, {"data", false}, {"data_file", false}, {"tuple_constants", false}},
         {{"GatherND", {"batch_dims"}, 11, 0, "", gather}}},
        {Op::ScatterND, "ScatterND", true, true,
         {{"reduction", false}, {"updates_shape", false}, {"data", false}, {"data_file", false}, {"updates", false},
          {"updates_file", false}, {"tuple_constants", false}, {"updates_broadcast_from", false}},
         {{"ScatterND", {"reduction"}, 11, 0, "", scatter}}},
        {Op::ScatterElements, "ScatterElements", true, true,
         {{"axis", false}, {"reduction", false}, {"updates_shape", false}, {"data", false}, {"data_file", false},
          {"updates", false}, {"updates_file", false}, {"updates_broadcast_from", false}},
         {{"ScatterElements", {"axis", "reduction"}, 11, 0, "", scatter},
          {"Scatter", {"axis"}, 9, 10, "ScatterElements", scatter}}},
        // TensorScatter (opset 24): a KV cache's update. Its "indices" are write_indices, one per batch row (a node
        // may leave them out: zeros), int64 only in ONNX; its "data" past_cache and its "updates" update, whose shape
        // it needs (the sequence length is not derived); its "axis" the sequence axis, -2 unless given.
        {Op::TensorScatter, "TensorScatter", true, false,
         {{"axis", false}, {"mode", false}, {"updates_shape", true}, {"data", false}, {"data_file", false},
          {"updates", false}, {"updates_file", false}},
         {{"TensorScatter", {"axis", "mode"}, 24, 0, "",
           {{"past_cache", KernelInput::Data}, {"update", KernelInput::Updates}, {"write_indices", KernelInput::Indices, true}},
           "", -2, true}}},
    };
    return table;
}

const OperatorInfo& info(Op op) {
    for (const auto& row : operators()) {
        if (row.id == op) return row;
    }
    return operators().front();  // unreachable: every enumerator has a row
}

std::string_view name(Op op) { return info(op).name; }

bool is_scatter(Op op) { return info(op).scatter; }

const std::vector<SpecKey>& common_keys() {
    static const std::vector<SpecKey> keys{
        {"name", true}, {"op", true}, {"dtype", true}, {"index_dtype", false}, {"data_shape", true},
        {"indices_shape", true}, {"indices", false}, {"unroll", false}, {"prefetch", false}, {"index_check", false},
        {"count", false}, {"count_leads", false}, {"data_count", false}, {"indices_broadcast_from", false},
        {"indices_add", false}};
    return keys;
}

std::vector<SpecKey> spec_keys(Op op) {
    std::vector<SpecKey> keys;
    for (const auto& key : common_keys()) {
        // A cache's write takes none of these: its write indices are one per batch row, every row written.
        const bool count_key = key.name == "count" || key.name == "count_leads" || key.name == "data_count" ||
                               key.name == "indices_broadcast_from" || key.name == "indices_add";
        if (info(op).counts || !count_key) keys.push_back(key);
    }
    const auto& own = info(op).keys;
    keys.insert(keys.end(), own.begin(), own.end());
    return keys;
}

std::vector<std::string> every_spec_key() {
    std::vector<std::string> every;
    auto add = [&](const std::vector<SpecKey>& keys) {
        for (const auto& key : keys) {
            if (std::find(every.begin(), every.end(), key.name) == every.end()) every.emplace_back(key.name);
        }
    };
    add(common_keys());
    for (const auto& row : operators()) add(row.keys);
    return every;
}


}  // namespace kernelgen
