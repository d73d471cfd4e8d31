// Each round's work model: what ONNX's shape inference is shown of the model as import knows it so far (folded
// values as Constants, an If with a known condition replaced by its branch, weights and implausible declarations
// withheld), and inference run on it in a contained child process.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "import/model/graph_scope.h"
#include "kernelgen/import.h"

namespace kernelgen {

// What building a round's work model keeps track of.
struct WorkBuild {
    const std::set<std::string>& domains;
    // Names a node takes as the shape of its output (see makes_rank): a known value of more than
    // kMaxInferenceRank elements there is withheld from inference, which would build a shape of that rank.
    const std::set<std::string>& rank_makers;
    std::map<const GraphScope*, std::vector<int>> index;  // each scope's nodes -> nodes of the work graph holding them
    std::set<const GraphScope*> inlined;                  // branches that now live in their parent's work graph
    // The work model's main graph: initializers withheld from inference, of any graph, become its inputs (a body
    // sees them as outer-scope values; a body's own inputs are its signature and cannot grow).
    onnx::GraphProto* main = nullptr;
    std::set<std::string> opaque;  // names shown to inference as inputs of unknown shape (see opaque_name)
};

// The names every graph of `scope`, at any depth, takes as the shape of an output (see makes_rank).
void collect_rank_makers(const GraphScope& scope, std::set<std::string>& names);

// Writes the work graph of `scope` (and of its bodies) to `out`.
void build_work_graph(const GraphScope& scope, onnx::GraphProto* out, WorkBuild& build);

// Runs ONNX's shape inference (with data propagation) on `model` in a child process under `limits`. Returns the
// inferred model, or nothing with `failure` saying why inference gave none.
std::optional<onnx::ModelProto> infer_shapes(const onnx::ModelProto& model, const InferenceLimits& limits,
                                             std::string& failure);

}  // namespace kernelgen
