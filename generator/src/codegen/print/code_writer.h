// Builds C text line by line and owns its indentation (Halide's open_scope/close_scope).
#pragma once

#include <string>

namespace kernelgen {

class CodeWriter {
public:
    explicit CodeWriter(int indent = 0) : indent_(indent) {}
    void line(const std::string& text);
    // Lines written at no indentation (a rendered template), each indented to the current level; empty lines stay
    // empty.
    void block(const std::string& text);
    void open(const std::string& head);  // "head {" (or "{" alone) and one level deeper
    void close(const std::string& tail = "");  // "}" + tail, one level back
    const std::string& str() const { return text_; }

private:
    std::string text_;
    int indent_;
};

}  // namespace kernelgen
