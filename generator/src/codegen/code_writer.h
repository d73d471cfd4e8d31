// Builds C text line by line and owns its indentation (Halide's open_scope/close_scope).
#pragma once

#include <string>

namespace kernelgen {

class CodeWriter {
public:
    explicit CodeWriter(int indent = 0) : indent_(indent) {}
    void line(const std::string& text);
    void raw(const std::string& text);  // lines already indented (a rendered template), as they are
    void open(const std::string& head);  // "head {" (or "{" alone) and one level deeper
    void close(const std::string& tail = "");  // "}" + tail, one level back
    const std::string& str() const { return text_; }

private:
    std::string text_;
    int indent_;
};

}  // namespace kernelgen
