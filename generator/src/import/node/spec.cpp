#include "import/node/spec.h"

#include <algorithm>
#include <set>

#include "import/node/constants.h"
#include "import/node/index_source.h"
#include "import/node/quantized_tables.h"
#include "import/node/tensors.h"

namespace kernelgen {

using Json = nlohmann::ordered_json;

std::optional<OpRule> find_rule(const onnx::NodeProto& node) {
    for (const auto& row : operators()) {
        for (const auto& onnx : row.onnx) {
            const bool domain = onnx.domain.empty() ? default_domain(node.domain()) : node.domain() == onnx.domain;
            if (domain && node.op_type() == onnx.op_type) return OpRule{onnx, row.id};
        }
    }
    return std::nullopt;
}

Result<Ok> check_opset(const OpRule& rule, int64_t opset) {
    const OnnxOperator& onnx = rule.onnx;
    const std::string imports = " (the model imports opset " + std::to_string(opset) + ")";
    if (opset < onnx.since) return Problem{std::string(onnx.op_type) + " needs opset " + std::to_string(onnx.since) + imports};
    if (onnx.until != 0 && opset > onnx.until) {
        return Problem{std::string(onnx.op_type) + " is deprecated after opset " + std::to_string(onnx.until) + " (use " +
                       std::string(onnx.replaced_by) + "; the model imports opset " + std::to_string(opset) + ")"};
    }
    return ok();
}

int64_t default_opset(const onnx::ModelProto& model, bool& found) {
    for (const auto& entry : model.opset_import()) {
        if (default_domain(entry.domain())) {
            found = true;
            return entry.version();
        }
    }
    found = false;
    return 0;
}

namespace {

// "data, indices, updates": names as a node's message lists them.
template <typename Names>
std::string listed(const Names& names) {
    std::string out;
    for (const auto& item : names) out += (out.empty() ? "" : ", ") + std::string(item);
    return out;
}

// An indexing node's attributes, with ONNX's defaults where it leaves one out.
struct NodeAttributes {
    int64_t axis = 0;
    int64_t batch_dims = 0;
    std::string reduction = "none";
    std::string mode = "linear";
};

// The operator's inputs in `node`, or the problem where a required one is missing (or there are more than the
// operator takes).
Result<NodeInputs> node_inputs(const onnx::NodeProto& node, const OnnxOperator& onnx) {
    NodeInputs out;
    bool given = node.input_size() <= static_cast<int>(onnx.inputs.size());
    size_t required = 0;
    std::vector<std::string> names;
    std::string left_out;  // the first required input the node names "" (ONNX's way to leave an input out)
    for (size_t i = 0; i < onnx.inputs.size(); ++i) {
        const OnnxInput& input = onnx.inputs[i];
        const bool present = static_cast<int>(i) < node.input_size() && !node.input(static_cast<int>(i)).empty();
        if (!input.optional) ++required;
        if (!present && !input.optional && static_cast<int>(i) < node.input_size() && left_out.empty()) {
            left_out = input.name;
        }
        given = given && (present || input.optional);
        names.push_back(std::string(input.name) + (input.optional ? " (optional)" : ""));
        const auto k = static_cast<size_t>(input.tensor);
        out.onnx_name[k] = input.name;
        if (present) out.position[k] = static_cast<int>(i);
    }
    if (!given) {
        const std::string takes = required == onnx.inputs.size() ? std::to_string(required)
                                                                 : std::to_string(required) + " to " + std::to_string(onnx.inputs.size());
        const std::string what = left_out.empty() ? "has " + std::to_string(node.input_size()) + " inputs"
                                                   : "leaves out its input " + left_out;
        return Problem{what + " (" + node.op_type() + " takes " + takes + ": " + listed(names) + ")"};
    }
    return out;
}

// The reduction's name checked, and the opset that has it.
Result<Ok> check_reduction(const std::string& reduction, int64_t opset) {
    const auto parsed = parse_reduction(reduction);
    if (!parsed) return Problem{"unknown reduction " + in_quotes(reduction) + " (none, add, mul, max, min)"};
    const int64_t needs = *parsed == Reduction::Max || *parsed == Reduction::Min ? 18 : 16;
    if (*parsed != Reduction::None && opset < needs) {
        return Problem{"reduction " + in_quotes(reduction) + " needs opset " + std::to_string(needs) +
                       " (the model imports opset " + std::to_string(opset) + ")"};
    }
    return ok();
}

// The attributes of `node`, checked against those its operator takes and the opsets that have each.
Result<NodeAttributes> read_attributes(const onnx::NodeProto& node, const OpRule& rule, int64_t opset) {
    NodeAttributes out;
    out.axis = rule.onnx.default_axis;  // ONNX's default where the node leaves it out
    std::set<std::string> seen;
    for (const auto& attribute : node.attribute()) {
        const std::string& key = attribute.name();
        const auto& attributes = rule.onnx.attributes;
        if (std::find(attributes.begin(), attributes.end(), key) == attributes.end()) {
            return Problem{"unknown attribute " + in_quotes(key) + " (" + node.op_type() + " takes " + listed(attributes) + ")"};
        }
        if (!seen.insert(key).second) return Problem{"attribute " + in_quotes(key) + " is given more than once"};
        const bool is_string = key == "reduction" || key == "mode";
        if (attribute.type() != (is_string ? onnx::AttributeProto::STRING : onnx::AttributeProto::INT)) {
            return Problem{"attribute " + in_quotes(key) + " is not " + (is_string ? "a string" : "an integer")};
        }
        if (key == "axis") out.axis = attribute.i();
        else if (key == "batch_dims") out.batch_dims = attribute.i();
        else if (key == "mode") out.mode = attribute.s();
        else out.reduction = attribute.s();
    }
    if (out.mode != "linear" && out.mode != "circular") {
        return Problem{"unknown mode " + in_quotes(out.mode) + " (linear, circular)"};
    }
    if (seen.count("batch_dims") && opset < 12) {
        return Problem{"attribute \"batch_dims\" needs opset 12 (the model imports opset " + std::to_string(opset) + ")"};
    }
    if (seen.count("reduction")) {
        if (auto checked = check_reduction(out.reduction, opset); !checked) return Problem{checked.problem()};
    }
    return out;
}

// The node's element types as a kernel's: data of a type kernelgen has, updates of data's type, int32 or int64
// indices (int64 only for an operator ONNX gives int64 indices alone: ONNX Runtime refuses int32 ones there,
// though its kernel would take either).
Result<Ok> check_element_types(const NodeContext& c, const NodeInputs& inputs, const StaticTensor& data,
                               const StaticTensor& indices, const std::optional<StaticTensor>& updates) {
    const onnx::NodeProto& node = c.node;
    if (!dtype_of_onnx(data.elem_type)) {
        return Problem{"unsupported element type: " + inputs.role(node, KernelInput::Data) + " is " + onnx_type_name(data.elem_type)};
    }
    if (updates && updates->elem_type != data.elem_type) {
        return Problem{inputs.role(node, KernelInput::Updates) + " is " + onnx_type_name(updates->elem_type) + " but " +
                       inputs.onnx_name[0] + " is " + onnx_type_name(data.elem_type)};
    }
    const std::string index_type = "unsupported index type: " + inputs.role(node, KernelInput::Indices) + " is " +
                                   onnx_type_name(indices.elem_type);
    if (indices.elem_type != onnx::TensorProto::INT32 && indices.elem_type != onnx::TensorProto::INT64) {
        return Problem{index_type + " (INT32 or INT64)"};
    }
    if (c.rule.onnx.int64_indices && indices.elem_type != onnx::TensorProto::INT64) {
        std::string input;  // ONNX's name of the indices input, in words ("write indices")
        for (const OnnxInput& given : c.rule.onnx.inputs) {
            if (given.tensor == KernelInput::Indices) input = std::string(given.name);
        }
        std::replace(input.begin(), input.end(), '_', ' ');
        return Problem{index_type + " (" + std::string(name(c.rule.op)) + " takes INT64 " + input + ")"};
    }
    return ok();
}

// The roles of the node's tensors in messages ("indices \"ids\""), "" for a tensor it does not have.
std::vector<std::string> roles_of(const NodeContext& c, const NodeInputs& inputs, const std::optional<StaticTensor> (&tensors)[3]) {
    std::vector<std::string> roles;
    for (size_t k = 0; k < 3; ++k) roles.push_back(tensors[k] ? inputs.role(c.node, static_cast<KernelInput>(k)) : "");
    return roles;
}

// The spec's keys every operator has, in the README's order ("name" empty for the caller to set).
Json common_keys(std::string_view op, const std::string& dtype, const StaticTensor& indices, const Shape& data_shape) {
    Json spec;  // keys in insertion order
    spec["name"] = "";
    spec["op"] = std::string(op);
    spec["dtype"] = dtype;
    spec["index_dtype"] = indices.elem_type == onnx::TensorProto::INT32 ? "int32" : "int64";
    spec["data_shape"] = data_shape;
    spec["indices_shape"] = indices.shape;
    return spec;
}

// What the kernel of a node holds: its data as the model has it, or as a quantized table; a scatter's updates.
// `note` says why a constant tensor stays a parameter.
struct ConstantTable {
    std::optional<ConstantTensor> data;
    std::optional<QuantizedTable> quantized;
    std::optional<ConstantTensor> updates;
    std::string note;
};

// The tensors the kernel of `spec` holds, as files the spec names.
HeldTables held_tables(const Json& spec, const ConstantTable& table) {
    HeldTables held;
    if (table.quantized) {
        held = quantized_held_tables(*table.quantized);
    } else if (spec.contains("data_file")) {
        held.files.push_back(held_file(spec, "data", "data_file", "data_shape", *table.data));
    }
    if (spec.contains("updates_file")) {
        held.files.push_back(held_file(spec, "updates", "updates_file", "updates_shape", *table.updates));
    }
    return held;
}


// Run-time indices: the kernel takes the tensor they are made of (index_source.h), of its own type and broadcast
// where an Expand broadcasts it, unless --plain-indices keeps the node's own. Where the indices' rows are counted,
// only steps that keep the shape.
void take_indices_source(const NodeContext& c, const std::string& indices, const std::optional<BoundedCount>& bounded,
                         Json& spec, KernelTensors& call) {
    const bool counted_rows = bounded && bounded->count && bounded->leads == "indices";
    // Broadcast indices: not beside a run-time count, nor for a cache's write (one index per batch row).
    const bool broadcasts = !bounded && info(c.rule.op).counts;
    const bool tuples = c.rule.op == Op::GatherND || c.rule.op == Op::ScatterND;
    IndexSource source = c.plain_indices ? IndexSource{indices, 0, {}, std::nullopt, std::nullopt, std::nullopt}
                                         : index_source(c.scope, indices, !counted_rows, broadcasts, tuples);
    if (!source.through.empty()) spec["index_dtype"] = source.elem_type == onnx::TensorProto::INT32 ? "int32" : "int64";
    if (source.broadcast_from) spec["indices_broadcast_from"] = *source.broadcast_from;
    if (source.tuple_constants) {
        Json constants = Json::array();
        for (const auto& constant : *source.tuple_constants) constants.push_back(constant ? Json(*constant) : Json(nullptr));
        spec["tuple_constants"] = std::move(constants);
    }
    if (source.added) {
        const auto& steps = source.added->steps;
        if (std::all_of(steps.begin(), steps.end(), [](int64_t step) { return step == 0; })) spec["indices_add"] = source.added->start;
        else spec["indices_add"] = Json{{"start", source.added->start}, {"steps", steps}};
    }
    call.indices = std::move(source.tensor);
    call.indices_through = std::move(source.through);
}

// A com.microsoft.GatherBlockQuantized node: a Gather along axis 0 from the quantized table it holds (its data,
// scales and zero points, constants), its indices passed at run time (with a count, as a Gather's).
Result<Json> block_quantized_spec(const NodeContext& c, std::optional<BoundedCount>& bounded, ConstantTable& table,
                                  KernelTensors& call) {
    auto quantized = block_quantized_table(c.scope, c.node);
    if (!quantized) return Problem{quantized.problem()};
    if (!c.weights_in_kernel) {
        return Problem{"its table is quantized, which only a kernel that holds it dequantizes (--weights caller passes "
                       "data as a parameter: use --weights kernel)"};
    }
    NodeInputs inputs;
    inputs.position[0] = 0;
    inputs.position[1] = 1;
    inputs.onnx_name[0] = "data";
    inputs.onnx_name[1] = "indices";
    std::optional<StaticTensor> tensors[3];
    if (auto read = read_tensors(c, inputs, tensors); !read) return Problem{read.problem()};
    StaticTensor& data = *tensors[0];
    StaticTensor& indices = *tensors[1];
    std::optional<StaticTensor> no_updates;
    if (data.count || indices.count) {
        auto placed = place_count(Op::Gather, 0, 0, data, indices, no_updates, roles_of(c, inputs, tensors));
        if (!placed) return Problem{placed.problem()};
        bounded = placed.take();
        if (bounded->data_count) return Problem{"its data is a constant table: it has all its rows, and no run-time count of them"};
    }
    if (auto types = check_element_types(c, inputs, data, indices, no_updates); !types) return Problem{types.problem()};
    auto constant = constant_indices(c, c.node.input(1), indices.shape);
    if (!constant) return Problem{constant.problem()};
    if (*constant) {
        return Problem{"its indices are constant: the rows they select could be folded (a quantized table takes indices at "
                       "run time)"};
    }
    Json spec = common_keys("Gather", std::string(info(quantized->dtype).name), indices, quantized->data_shape);
    spec["axis"] = 0;
    spec["data_file"] = "";
    spec["quantization"] = quantization_json(*quantized);
    if (bounded && bounded->count) spec["count"] = "runtime";
    table.quantized = quantized.take();
    call.data = c.node.input(0);
    take_indices_source(c, c.node.input(1), bounded, spec, call);
    return spec;
}

// A node's tensors as its kernel takes them: data, indices (constant zeros where the node leaves them out), a
// scatter's updates.
struct NodeTensors {
    std::optional<StaticTensor> tensors[3];
    bool zero_indices = false;  // a cache's write_indices left out: 0 in every batch row
    StaticTensor& data() { return *tensors[0]; }
    StaticTensor& indices() { return *tensors[1]; }
    std::optional<StaticTensor>& updates() { return tensors[2]; }
};

// The node's tensors with their static shapes, the run-time count placed (`bounded`) and their element types
// checked. Data a DequantizeLinear makes of a constant table (`quantized`) takes the table's type and shape where
// shape inference gives none (ONNX 1.12's does not know opset 21's DequantizeLinear).
Result<NodeTensors> node_tensors(const NodeContext& c, const NodeInputs& inputs, const NodeAttributes& attributes,
                                 const QuantizedTable* quantized, std::optional<BoundedCount>& bounded) {
    const onnx::NodeProto& node = c.node;
    NodeTensors out;
    auto& tensors = out.tensors;
    if (auto read = read_tensors(c, inputs, tensors); !read) {
        if (!quantized || tensors[0]) return Problem{read.problem()};
        tensors[0] = StaticTensor{info(quantized->dtype).onnx_type, quantized->data_shape, std::nullopt};
        if (auto again = read_tensors(c, inputs, tensors); !again) return Problem{again.problem()};
    }
    // Indices a node may leave out (a cache's write_indices): 0 in every batch row, constant int64 zeros, one per row.
    out.zero_indices = inputs.position[1] < 0;
    if (out.zero_indices) {
        const uint64_t batch = out.data().shape.empty() ? 0 : out.data().shape[0];
        if (batch > kMaxConstantIndices) {
            return Problem{"it leaves out write_indices, which would be " + std::to_string(batch) + " constant zeros, one per "
                           "batch row of " + inputs.role(node, KernelInput::Data) + " (at most " +
                           std::to_string(kMaxConstantIndices) + " constant indices)"};
        }
        tensors[1] = StaticTensor{onnx::TensorProto::INT64, {batch}, std::nullopt};
    }
    if (!info(c.rule.op).counts) {  // an operator that takes no run-time count (a cache's write)
        for (size_t k = 0; k < 3; ++k) {
            if (!tensors[k] || !tensors[k]->count) continue;
            return Problem{"data-dependent shape: " + inputs.role(node, static_cast<KernelInput>(k)) + " dimension " +
                           std::to_string(tensors[k]->count->axis) + " is a run-time count (through " +
                           tensors[k]->count->through.front() + "), and " + std::string(name(c.rule.op)) +
                           "'s shapes are static (every batch row of its cache is written)"};
        }
    }
    if (out.data().count || out.indices().count || (out.updates() && out.updates()->count)) {
        const auto rank = static_cast<int64_t>(out.data().shape.size());
        const int64_t axis = attributes.axis < 0 ? attributes.axis + rank : attributes.axis;
        auto placed = place_count(c.rule.op, axis, attributes.batch_dims, out.data(), out.indices(), out.updates(),
                                  roles_of(c, inputs, tensors));
        if (!placed) return Problem{placed.problem()};
        bounded = placed.take();
    }
    if (auto types = check_element_types(c, inputs, out.data(), out.indices(), out.updates()); !types) {
        return Problem{types.problem()};
    }
    return out;
}

// The tensors the kernel holds (`table`): data of the model's constants (a weight), or the quantized table a
// DequantizeLinear makes it of (not beside constant indices, whose rows could be folded); a scatter's constant
// updates (not beside a run-time count of them, whose rows a constant's fixed shape would not follow). Nothing is
// held beside a data count, or with --weights caller.
void hold_constants(const NodeContext& c, const NodeInputs& inputs, NodeTensors& tensors, bool data_count,
                    Result<std::optional<QuantizedTable>> quantized, ConstantTable& table) {
    if (!c.weights_in_kernel) return;
    auto held = [&](const std::string& role, KernelInput input, const StaticTensor& declared) {
        auto constant = constant_tensor(c, inputs.name(c.node, input), role, declared);
        if (!constant) table.note += (table.note.empty() ? "" : "; ") + constant.problem();
        return constant ? constant.take() : std::nullopt;
    };
    if (!data_count) table.data = held(inputs.onnx_name[0], KernelInput::Data, tensors.data());
    if (tensors.updates() && !tensors.updates()->count) table.updates = held(inputs.onnx_name[2], KernelInput::Updates, *tensors.updates());
    if (data_count || table.data || c.rule.op != Op::Gather) return;
    // Data a DequantizeLinear makes of a constant table: the kernel holds the table quantized.
    if (!quantized) {
        table.note = quantized.problem();
        return;
    }
    if (!*quantized) return;
    const QuantizedTable& q = **quantized;
    const StaticTensor& data = tensors.data();
    const std::string outside = "its data comes from " + q.source + ", which stays outside the kernel: ";
    if (q.data_shape != data.shape || q.dtype != dtype_of_onnx(data.elem_type)) {
        table.note = outside + "the model declares its output " + element_type_name(data.elem_type) + " " + format_shape(data.shape);
        return;
    }
    if (auto constant = constant_indices(c, c.node.input(1), tensors.indices().shape); constant && *constant) {
        table.note = outside + "its indices are constant (the rows they select could be folded)";
        return;
    }
    table.quantized = quantized.take();
}

// The spec of a node of the ONNX operators (not GatherBlockQuantized).
Result<Json> onnx_node_spec(const NodeContext& c, std::optional<BoundedCount>& bounded, ConstantTable& table,
                            KernelTensors& call) {
    const onnx::NodeProto& node = c.node;
    const auto inputs = node_inputs(node, c.rule.onnx);
    if (!inputs) return Problem{inputs.problem()};
    const auto attributes = read_attributes(node, c.rule, c.opset);
    if (!attributes) return Problem{attributes.problem()};
    // Data a DequantizeLinear makes of a constant table: the kernel may hold the table quantized.
    Result<std::optional<QuantizedTable>> quantized = std::optional<QuantizedTable>();
    if (c.rule.op == Op::Gather && c.weights_in_kernel) quantized = dequantized_table(c.scope, node.input(0), attributes->axis);
    const QuantizedTable* table_of_data = quantized && *quantized ? &**quantized : nullptr;
    auto tensors = node_tensors(c, *inputs, *attributes, table_of_data, bounded);
    if (!tensors) return Problem{tensors.problem()};
    hold_constants(c, *inputs, *tensors, bounded && bounded->data_count, std::move(quantized), table);
    const StaticTensor& data = tensors->data();
    const StaticTensor& indices = tensors->indices();
    const auto& updates = tensors->updates();
    Json spec = common_keys(name(c.rule.op), element_type_name(data.elem_type), indices, data.shape);
    // The operator's own keys (operators.h), in its order: its attributes (ONNX's defaults where the node leaves
    // one out, as the deprecated Scatter always does its reduction) and the shape of updates. A key added to the
    // table needs its value here: at() throws on a key it does not know, failing the operator's import tests.
    // The constant data's keys: "data_file" when the kernel holds data (named by the caller), never "data".
    const bool holds_data = table.data || table.quantized;
    const Json own{{"axis", attributes->axis}, {"batch_dims", attributes->batch_dims}, {"reduction", attributes->reduction},
                   {"mode", attributes->mode}, {"updates_shape", updates ? Json(updates->shape) : Json()}, {"data", Json()},
                   {"data_file", holds_data ? Json("") : Json()}, {"updates", Json()},
                   {"updates_file", table.updates ? Json("") : Json()},
                   {"quantization", table.quantized ? quantization_json(*table.quantized) : Json()},
                   {"tuple_constants", Json()}, {"updates_broadcast_from", Json()},  // set with the sources
                   {"runtime_axes", Json()}};
    for (const auto& key : info(c.rule.op).keys) {
        const Json& value = own.at(std::string(key.name));
        if (!value.is_null()) spec[std::string(key.name)] = value;
    }
    if (!data.runtime_dims.empty()) {
        // Extents made at run time (bounded by their values or --max-extent): the gather axis and those after it
        // only, and no count beside them.
        const auto axis = static_cast<size_t>(attributes->axis < 0 ? attributes->axis + static_cast<int64_t>(data.shape.size())
                                                                   : attributes->axis);
        if (data.runtime_dims.front() < axis) {
            return Problem{"data-dependent shape: data " + in_quotes(inputs->name(node, KernelInput::Data)) +
                           " dimension " + std::to_string(data.runtime_dims.front()) + " is made at run time and lies before "
                           "the gather axis (" + std::to_string(axis) + "): a kernel takes run-time extents from the gather axis on"};
        }
        if (bounded) {
            return Problem{"data-dependent shape: data " + in_quotes(inputs->name(node, KernelInput::Data)) +
                           " has extents made at run time beside a run-time count, which a kernel does not take together"};
        }
        spec["runtime_axes"] = data.runtime_dims;
        call.extents = data.extent_bounds;
    }
    if (bounded && bounded->count) spec["count"] = "runtime";
    if (bounded && bounded->leads == "data") spec["count_leads"] = "data";
    if (bounded && bounded->data_count) spec["data_count"] = "runtime";
    call.data = inputs->name(node, KernelInput::Data);
    call.updates = inputs->name(node, KernelInput::Updates);
    // The tensor the updates are made of (reshaped, or broadcast: not a cache's update, one row per batch row).
    if (!call.updates.empty() && !table.updates && !bounded && !c.plain_indices) {
        const size_t rows = c.rule.op == Op::ScatterND ? indices.shape.size() - 1 : updates->shape.size();
        IndexSource made = updates_source(c.scope, call.updates, info(c.rule.op).counts ? rows : 0);
        call.updates = std::move(made.tensor);
        call.updates_through = std::move(made.through);
        if (made.broadcast_from) spec["updates_broadcast_from"] = *made.broadcast_from;
    }
    if (tensors->zero_indices) {
        spec["indices"] = Json(std::vector<int64_t>(indices.shape[0], 0));
    } else {
        auto constant = constant_indices(c, inputs->name(node, KernelInput::Indices), indices.shape);
        if (!constant) return Problem{constant.problem()};
        if (*constant && !data.runtime_dims.empty()) {  // a view of data where it is one (driver.cpp), else skipped
            return Problem{"data-dependent shape: data " + in_quotes(inputs->name(node, KernelInput::Data)) +
                           " has extents made at run time, and its indices are constant, which a kernel does not take together"};
        }
        if (*constant) spec["indices"] = std::move(**constant);
        else take_indices_source(c, inputs->name(node, KernelInput::Indices), bounded, spec, call);
    }
    return spec;
}

}  // namespace

Result<Json> node_spec(const NodeContext& c, std::optional<BoundedCount>& bounded, HeldTables& held, KernelTensors& tensors) {
    if (auto opset = check_opset(c.rule, c.opset); !opset) return Problem{opset.problem()};
    ConstantTable table;
    auto spec = is_gather_block_quantized(c.node) ? block_quantized_spec(c, bounded, table, tensors)
                                                  : onnx_node_spec(c, bounded, table, tensors);
    tensors.output = c.node.output_size() > 0 ? c.node.output(0) : "";
    held = spec ? held_tables(*spec, table) : HeldTables{};
    held.note = table.note;
    return spec;
}

}  // namespace kernelgen
