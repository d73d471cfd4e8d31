// libFuzzer target: any bytes as a spec file, through reading, checking, lowering and emitting.
// The generator must never crash, hang, or throw: bad input is a diagnostic, good input a kernel.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernelgen/generate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    const std::string text(reinterpret_cast<const char*>(bytes), size);
    std::vector<kernelgen::Diagnostic> diagnostics;
    std::vector<kernelgen::KernelSpec> kernels = kernelgen::parse_spec_text(text, "fuzz.json", diagnostics);
    // Keep emitting affordable: "full" unrolling is capped by generate() itself; huge straight-line output
    // is what that cap is for.
    kernelgen::GenerateResult result = kernelgen::generate(kernels, diagnostics);
    if (!result.diagnostics.empty() && !result.files.empty()) __builtin_trap();  // all or nothing
    for (const auto& diagnostic : result.diagnostics) {
        if (diagnostic.str().find('\n') != std::string::npos) __builtin_trap();  // one problem per line
    }
    return 0;
}
