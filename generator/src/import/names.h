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

// The words of `text` lower-cased and joined by single '_' (none at either end): its runs of ASCII letters and
// digits, each split where a capital starts a word, after a lower-case letter ("GatherElements") or, after a
// capital or a digit, before a lower-case letter other than a lone plural 's' ("ROIAlign", "Block2Attn", not "IDs"
// or "Conv2D"). "/decoder/attn/ScatterND" -> "decoder_attn_scatter_nd", "layers.0/Gather_3" -> "layers_0_gather_3".
std::string snake_case_name(const std::string& text);

// Gives each kernel a valid name that shares no header identifier with another's, even upper-cased.
class NameAllocator {
public:
    explicit NameAllocator(std::string prefix) : prefix_(std::move(prefix)) {}

    // The name the node would get, taking nothing: `scope_prefix` names the graph that holds the node ("" for the
    // main graph, "If_0_then_" ...).
    std::string next(const std::string& scope_prefix, const onnx::NodeProto& node, size_t position) const;
    // The name taken: no later kernel shares an identifier with it.
    void take(const std::string& name);

private:
    static std::vector<std::string> identifiers(const std::string& name);
    bool clashes(const std::string& name) const;

    std::string prefix_;
    std::set<std::string> used_;
};

// The names of the .npy files import writes, all unique ("_2", "_3", ... added to a name taken): those that hold
// large folded values, "<model stem>.<node path as letters, digits and '_'>.npy", and the files of the tables a
// kernel holds, "<kernel name>.<part>.npy" (its data's "<kernel name>.data.npy").
class FileNames {
public:
    explicit FileNames(std::string stem) : stem_(std::move(stem)) {}
    std::string allocate(const std::string& path);  // a folded value's, taken
    // The name of a kernel's table file (`part`: "data", "updates", ...), taking nothing; then take() it.
    std::string next_part(const std::string& kernel, const std::string& part) const;
    void take(const std::string& name) { used_.insert(name); }

private:
    std::string unique(const std::string& base) const;  // base + ".npy", or base + "_N.npy" when that is taken

    std::string stem_;
    std::set<std::string> used_;
};

}  // namespace kernelgen
