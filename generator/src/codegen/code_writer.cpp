#include "codegen/code_writer.h"

namespace kernelgen {

void CodeWriter::line(const std::string& text) { text_ += std::string(static_cast<size_t>(indent_) * 4, ' ') + text + "\n"; }

void CodeWriter::raw(const std::string& text) { text_ += text; }

void CodeWriter::open(const std::string& head) {
    line(head.empty() ? "{" : head + " {");
    ++indent_;
}

void CodeWriter::close(const std::string& tail) {
    --indent_;
    line("}" + tail);
}

}  // namespace kernelgen
