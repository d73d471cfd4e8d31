// libFuzzer target: any bytes as an ONNX model, through kernelgen import and back through the spec reader and the
// generator (see import_check.h for what each import must hold to).
#include <cstddef>
#include <cstdint>
#include <string>

#include "import_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
    kernelgen_fuzz::import_and_check(std::string(reinterpret_cast<const char*>(bytes), size));
    return 0;
}
