// The tensors of a node known at import time that its kernel holds (a weight, a scatter's starting tensor or
// updates, a table kept in another form with its parts): each a NumPy file the node's spec names, written beside
// it, read by the spec reader from memory as the spec is checked.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kernelgen {

struct HeldFile {
    std::string part;              // "data", "updates", ...: the file is "<kernel name>.<part>.npy"
    std::vector<std::string> key;  // the spec's key that names it ("data_file"), a path into an object where nested
    std::string npy;               // the whole file
    std::string tensor;            // the model's tensor it holds, for the report ("" for a part that is not one)
};

struct HeldTables {
    std::vector<HeldFile> files;
    // Keys the report's "weights" entry adds about the tables' form (how a table is kept, what made it).
    nlohmann::ordered_json form = nlohmann::ordered_json::object();
    std::string note;  // why a constant tensor stays a parameter, or ""
};

}  // namespace kernelgen
