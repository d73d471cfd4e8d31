// A node's tensors known at import time: constant indices, which the spec gives inline ("indices"), and the
// tensors its kernel holds (a gather's data, a weight such as an embedding table; a scatter's constant updates),
// as the NumPy files the spec names.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "import/node/context.h"
#include "import/node/held_tables.h"
#include "import/node/tensors.h"
#include "kernelgen/result.h"

namespace kernelgen {

// Indices known at import time (an initializer, a Constant, or folded) as the spec's "indices": nested as
// `indices_shape` (flat where a dimension is 0), or nothing where they are not constant; the problem where they
// are constant but cannot be read (their own dims or type are not those the model declares).
Result<std::optional<nlohmann::ordered_json>> constant_indices(const NodeContext& c, const std::string& name,
                                                               const Shape& indices_shape);

// A tensor of the model a kernel may hold: its name and its elements' bytes (KernelSpec::ConstantData's).
struct ConstantTensor {
    std::string tensor;
    std::string bytes;
};

// A node's input `name` (its `role`: "data", a scatter's "updates") known at import time, as the table its kernel
// holds: an initializer of any size (read from the model's TensorProto), or a value folding knows (a Constant), of
// the type and shape the spec gives it (`declared`). Nothing where it is not constant; the problem (a note for the
// report) where it is constant but stays a parameter: stored outside the model file, too large, or not of the
// type and shape the model declares for it.
Result<std::optional<ConstantTensor>> constant_tensor(const NodeContext& c, const std::string& name, const std::string& role,
                                                      const StaticTensor& declared);

// `tensor` as the file of the spec's `key` (the part `part` of its kernel), its shape the spec's `shape_key`.
HeldFile held_file(const nlohmann::ordered_json& spec, const char* part, const char* key, const char* shape_key,
                   const ConstantTensor& tensor);

}  // namespace kernelgen
