#include "codegen/print/code_writer.h"

namespace kernelgen {

void CodeWriter::line(const std::string& text) { text_ += std::string(static_cast<size_t>(indent_) * 4, ' ') + text + "\n"; }

void CodeWriter::block(const std::string& text) {
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        const std::string one = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (one.empty()) text_ += "\n";
        else line(one);
        if (end == std::string::npos) break;
        start = end + 1;
    }
}

void CodeWriter::open(const std::string& head) {
    line(head.empty() ? "{" : head + " {");
    ++indent_;
}

void CodeWriter::close(const std::string& tail) {
    --indent_;
    line("}" + tail);
}

}  // namespace kernelgen
