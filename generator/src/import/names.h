// The names import gives what it writes: kernel names (valid C identifiers that share no header identifier with
// another kernel's, even upper-cased) and the NumPy files of large folded values.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <set>
#include <string>

namespace kernelgen {

// Letters, digits and single '_' only, no '_' at either end.
std::string identifier_chars(const std::string& text);

// Gives each kernel a valid name that shares no header identifier with another's, even upper-cased.
class NameAllocator {
public:
    explicit NameAllocator(std::string prefix) : prefix_(std::move(prefix)) {}

    // `scope_prefix` names the graph that holds the node ("" for the main graph, "If_0_then_" ...).
    std::string allocate(const std::string& scope_prefix, const onnx::NodeProto& node, size_t position);

private:
    static std::vector<std::string> identifiers(const std::string& name);
    bool clashes(const std::string& name) const;
    void take(const std::string& name);

    std::string prefix_;
    std::set<std::string> used_;
};

// The names of the .npy files import writes, all unique ("_2", "_3", ... added to a name taken): those that hold
// large folded values, "<model stem>.<node path as letters, digits and '_'>.npy", and kernels' tables,
// "<kernel name>.data.npy" (a quantized table's scales and zero points "<kernel name>.scales.npy",
// "<kernel name>.zero_points.npy").
class FileNames {
public:
    explicit FileNames(std::string stem) : stem_(std::move(stem)) {}
    std::string allocate(const std::string& path);           // a folded value's
    std::string allocate_table(const std::string& kernel);   // a kernel's table
    std::string allocate_table_part(const std::string& kernel, const std::string& part);  // "scales", "zero_points"

private:
    std::string unique(const std::string& base);  // base + ".npy", or base + "_N.npy" when that is taken

    std::string stem_;
    std::set<std::string> used_;
};

}  // namespace kernelgen
