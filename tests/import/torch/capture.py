"""What the PyTorch export scripts share: export a model as a user would (torch.onnx.export, dynamic axes), and
write beside it what the import tests compare against ONNX Runtime. Into OUT_DIR, for a model NAME:

  NAME.onnx          the export, untouched
  NAME.capture.onnx  the same model with the inputs and outputs of every indexing node of the main graph added as
                     graph outputs named <value>.captured (but for graph inputs and initializers, known
                     otherwise), so that ONNX Runtime shows the tensors each node sees; likewise for the
                     indexing nodes of an If's branches (not nested deeper), through outputs of the If (the
                     branch that did not run gives empty tensors), with the If's condition; and the
                     inputs of each main-graph Loop whose body has indexing nodes, and the outer-scope
                     values its body reads
  NAME.loopK.onnx    the body of the K-th such Loop as a model of its own: its inputs are the body's (the
                     iteration number, the condition, the carried values) and the outer-scope values it reads,
                     its outputs the body's and the tensors of its indexing nodes (<value>.captured), so that
                     tests/import/run_loop_ort.js runs it iteration by iteration as the Loop would
  NAME.inputs.json   the inputs (hex, as tests/import/run_model_ort.js reads them)

and NAME's entry in the manifest: the --dim values to bind, and under "loops" each Loop's node name, body
model, trip count and condition inputs, carried inputs, outputs (captured too), body inputs and outputs, and
outer-scope values.
"""
import json
import os

import numpy as np
import onnx
import torch

CAPTURED = ".captured"  # the suffix of a captured value's graph output
INDEXING = {"Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements", "Scatter"}
# The steps that keep an index tensor's values and their order (or widen or broadcast them, add a constant to them,
# or concatenate constant components to them), and a scatter's updates' reshapes: import's kernel takes the tensor
# before them, which the test must then see too.
PASS_THROUGH = {"Cast", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Expand", "Add", "Sub", "Concat"}


def node_values(node, graph):
    """An indexing node's inputs and outputs, and every tensor its indices and updates are made of through
    PASS_THROUGH steps of its graph (a superset of those import passes, which also looks at their types and values)."""
    values = list(node.input) + list(node.output)
    made_by = {o: n for n in graph.node for o in n.output}
    todo = list(node.input[1:3])
    while todo:
        value = todo.pop()
        step = made_by.get(value)
        if step is None or step.op_type not in PASS_THROUGH:
            continue
        for before in step.input:
            if before and before not in values:
                values.append(before)
                todo.append(before)
    return values


def hex_tensor(array):
    kind = {np.dtype("float32"): "float32", np.dtype("int64"): "int64", np.dtype("int32"): "int32"}[array.dtype]
    return {"type": kind, "dims": list(array.shape), "hex": array.tobytes().hex()}


def export(out, manifest, name, model, args, input_names, dynamic_axes, dims, opset=16, output_names=("out",)):
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, args, path, input_names=input_names, output_names=list(output_names),
                      dynamic_axes=dynamic_axes, opset_version=opset)
    exported = onnx.load(path)
    # The capture model: every input and output of the main graph's indexing nodes as a graph output.
    inferred = onnx.shape_inference.infer_shapes(exported)
    types = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    initializers = {t.name for t in exported.graph.initializer}
    # Graph inputs are known from the inputs file (and ONNX Runtime 1.30 crashes on an input that is also an output).
    present = {o.name for o in exported.graph.output} | {i.name for i in exported.graph.input}
    for node in list(exported.graph.node):
        if node.op_type not in INDEXING:
            continue
        for value in node_values(node, exported.graph):
            if not value or value in present or value in initializers:
                continue
            present.add(value)
            info = types.get(value)
            elem = info.type.tensor_type.elem_type if info is not None else onnx.TensorProto.FLOAT
            # Through an Identity: ONNX Runtime 1.30 crashes when some values (a Range's) are graph outputs.
            exported.graph.node.append(onnx.helper.make_node("Identity", [value], [value + CAPTURED]))
            exported.graph.output.append(onnx.helper.make_tensor_value_info(value + CAPTURED, elem, None))
    # The indexing nodes of an If's branches (torchvision's batched NMS): their tensors as outputs of the If, each
    # branch giving its own or, for the other's, an empty tensor; and the If's condition, which says which ran.
    def capture_main(value, elem):
        if value in present or value in initializers:
            return
        present.add(value)
        exported.graph.node.append(onnx.helper.make_node("Identity", [value], [value + CAPTURED]))
        exported.graph.output.append(onnx.helper.make_tensor_value_info(value + CAPTURED, elem, None))

    inferred_nodes = {n.name: n for n in inferred.graph.node}
    for node in list(exported.graph.node):
        if node.op_type != "If":
            continue
        branches = {a.name: a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH}
        seen_branches = {a.name: a.g for a in inferred_nodes[node.name].attribute} if node.name in inferred_nodes else {}
        wanted = []  # (value, elem, the branch that defines it, or None for the main graph's)
        for key, graph in branches.items():
            defined = {o for n in graph.node for o in n.output}
            branch_types = dict(types)
            if key in seen_branches:
                branch_types.update({v.name: v for v in seen_branches[key].value_info})
            for inner in graph.node:
                if inner.op_type not in INDEXING:
                    continue
                for value in node_values(inner, graph):
                    if not value or any(value == w[0] for w in wanted):
                        continue
                    info = branch_types.get(value)
                    elem = info.type.tensor_type.elem_type if info is not None else onnx.TensorProto.FLOAT
                    wanted.append((value, elem, key if value in defined else None))
        if not wanted:
            continue
        capture_main(node.input[0], onnx.TensorProto.BOOL)
        for value, elem, owner in wanted:
            if owner is None:
                capture_main(value, elem)
                continue
            for key, graph in branches.items():
                local = value + CAPTURED + "." + key
                if key == owner:
                    graph.node.append(onnx.helper.make_node("Identity", [value], [local]))
                else:  # the other branch: an empty tensor of the same type
                    empty = onnx.helper.make_tensor(local + ".empty", elem, [0], [])
                    graph.node.append(onnx.helper.make_node("Constant", [], [local], value=empty))
                graph.output.append(onnx.helper.make_tensor_value_info(local, elem, None))
            node.output.append(value + CAPTURED)
            exported.graph.output.append(onnx.helper.make_tensor_value_info(value + CAPTURED, elem, None))
    # The indexing nodes of a Loop's body (EmbeddingBag's per-bag Gathers): ONNX Runtime shows no tensor of one
    # iteration, so the body becomes a model of its own that the test runs once per iteration.
    loops = []
    main_values = {v.name: v for v in exported.graph.input} | types
    def names(graph, used, defined):  # what a graph and the graphs nested in it read, and what they define
        defined |= {i.name for i in graph.input} | {t.name for t in graph.initializer}
        for inner in graph.node:
            used.extend(v for v in inner.input if v)
            defined |= set(inner.output)
            for attribute in inner.attribute:
                for nested in ([attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs)):
                    names(nested, used, defined)
        used.extend(o.name for o in graph.output)

    for node in list(exported.graph.node):
        # (An unnamed Loop is left out: the test finds a body's nodes by their Loop's name.)
        if node.op_type != "Loop" or not node.name:
            continue
        body = next(a.g for a in node.attribute if a.name == "body")
        if not any(inner.op_type in INDEXING for inner in body.node):
            continue
        used, defined = [], set()
        names(body, used, defined)
        outer = []
        for value in used:
            if value not in defined and value not in outer:
                outer.append(value)
        graph = onnx.helper.make_graph(list(body.node), "loop_body", [], [], list(body.initializer))
        graph.input.extend(body.input)
        graph.output.extend(body.output)
        for value in outer:
            if value in initializers:
                graph.initializer.append(next(t for t in exported.graph.initializer if t.name == value))
                continue
            info = main_values.get(value)
            elem = info.type.tensor_type.elem_type if info is not None else onnx.TensorProto.FLOAT
            graph.input.append(onnx.helper.make_tensor_value_info(value, elem, None))
            capture_main(value, elem)
        fed = {i.name for i in graph.input} | {t.name for t in graph.initializer} | {o.name for o in body.output}
        inferred_body = next((a.g for a in inferred_nodes[node.name].attribute if a.name == "body"), body) \
            if node.name in inferred_nodes else body
        body_types = {v.name: v for v in list(inferred_body.value_info) + list(body.input)} | main_values
        for inner in body.node:
            if inner.op_type not in INDEXING:
                continue
            for value in node_values(inner, body):
                if not value or value in fed:
                    continue
                fed.add(value)
                info = body_types.get(value)
                elem = info.type.tensor_type.elem_type if info is not None else onnx.TensorProto.FLOAT
                graph.node.append(onnx.helper.make_node("Identity", [value], [value + CAPTURED]))
                graph.output.append(onnx.helper.make_tensor_value_info(value + CAPTURED, elem, None))
        for value, elem in zip(node.input, [onnx.TensorProto.INT64, onnx.TensorProto.BOOL]):
            if value:
                capture_main(value, elem)
        for value, carried in zip(node.input[2:], body.input[2:]):
            capture_main(value, carried.type.tensor_type.elem_type)
        for value, result in zip(node.output, body.output[1:]):  # to compare with the iterations' results
            capture_main(value, result.type.tensor_type.elem_type)
        body_model = onnx.helper.make_model(graph, opset_imports=list(exported.opset_import))
        body_model.ir_version = exported.ir_version
        file = f"{name}.loop{len(loops)}.onnx"
        onnx.save(body_model, os.path.join(out, file))
        loops.append({"node": node.name, "model": file, "trip_count": node.input[0],
                      "cond": node.input[1] if len(node.input) > 1 else "", "carried": list(node.input[2:]),
                      "outputs": list(node.output),
                      "body_inputs": [i.name for i in body.input], "body_outputs": [o.name for o in body.output],
                      "outer": [v for v in outer if v not in initializers]})
    onnx.save(exported, os.path.join(out, name + ".capture.onnx"))
    feeds = {input_name: hex_tensor(value.numpy()) for input_name, value in zip(input_names, args)}
    with open(os.path.join(out, name + ".inputs.json"), "w") as f:
        json.dump(feeds, f)
    manifest[name] = {"dims": dims}
    if loops:
        manifest[name]["loops"] = loops
    return exported
