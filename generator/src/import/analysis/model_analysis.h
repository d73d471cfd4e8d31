// What kernelgen import knows about a model before it looks at its indexing nodes: the model with the caller's
// dimensions bound, and for every graph (the main graph and each If, Loop and Scan body, at any depth) the
// type of each name (declared, or inferred by ONNX's shape inference in a contained child process) and the value
// of each name that does not depend on a graph input at run time (initializers, and what constant folding
// computed). Inference and folding alternate until a round folds nothing new.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kernelgen/import.h"
#include "import/model/graph_scope.h"
#include "import/model/resource_guard.h"

namespace kernelgen {

struct ModelAnalysis {
    onnx::ModelProto bound;                  // the model with --dim and --input applied
    std::unique_ptr<GraphScope> main;
    std::set<std::string> declared_dim_params;  // every dim_param the model itself names (before binding)
    std::map<std::string, int64_t> bindings;    // every dimension name bound, by --dim or through --input
    bool inference_ran = false;
    std::string inference_note;
    int rounds = 0;
};

// Binds the caller's dimensions and analyses `model` (which it takes). Problems with --dim, --input and --value
// that do not fit the model (one that names nothing in it among them) are `usage_errors` (then the analysis is
// incomplete). The work checks `guard` as it goes (which throws LimitExceeded past the import's limits); each
// round's inference gets at most the time left.
ModelAnalysis analyze_model(onnx::ModelProto model, int64_t opset, const ImportOptions& options, ResourceGuard& guard,
                            std::vector<std::string>& usage_errors);



// For a tensor made by such a node: the length of that shape input, when known (its value or its static shape).
std::optional<uint64_t> rank_input_length(const GraphScope& scope, const std::string& name);


}  // namespace kernelgen
