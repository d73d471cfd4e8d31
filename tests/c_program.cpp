#include "c_program.h"

#include <cstdio>

namespace cprogram {
namespace {

std::string bytes_array(const std::string& name, const std::vector<uint8_t>& bytes) {
    if (bytes.empty()) return "";
    std::string out = "static const unsigned char " + name + "[" + std::to_string(bytes.size()) + "] = {";
    for (size_t i = 0; i < bytes.size(); ++i) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "%s0x%02x", i % 24 == 0 ? "\n    " : "", bytes[i]);
        out += hex;
        if (i + 1 < bytes.size()) out += ",";
    }
    return out + "\n};\n";
}

std::string pointer_to(const std::string& name, const std::vector<uint8_t>& bytes) {
    return bytes.empty() ? "NULL, 0" : name + ", sizeof " + name;
}

const char* kPrelude = R"C(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A heap copy of exactly `size` bytes (at least one byte, so the pointer is unique). */
static void *copy_of(const unsigned char *bytes, size_t size)
{
    void *block = malloc(size ? size : 1);
    if (!block) {
        abort();
    }
    if (size) {
        memcpy(block, bytes, size);
    }
    return block;
}

static void *filled(size_t size)
{
    void *block = malloc(size ? size : 1);
    if (!block) {
        abort();
    }
    memset(block, 0xA5, size ? size : 1);
    return block;
}

/* 0 when equal; compare 1 = float, 2 = double (NaN equals NaN, else bitwise), 0 = bytes. */
static long first_difference(const unsigned char *got, const unsigned char *want, size_t size, size_t element, int compare)
{
    size_t i;
    for (i = 0; i < size; i += element) {
        if (memcmp(got + i, want + i, element) == 0) {
            continue;
        }
        if (compare == 1) {
            float a, b;
            memcpy(&a, got + i, sizeof a);
            memcpy(&b, want + i, sizeof b);
            if (a != a && b != b) {
                continue;
            }
        } else if (compare == 2) {
            double a, b;
            memcpy(&a, got + i, sizeof a);
            memcpy(&b, want + i, sizeof b);
            if (a != a && b != b) {
                continue;
            }
        }
        return (long)(i / element);
    }
    return -1;
}

static int failures = 0;

static void check(const char *kernel, const char *label, int status, int expected_status,
                  const void *got, const unsigned char *want, size_t size, size_t element, int compare)
{
    long at;
    if (status != expected_status) {
        printf("FAIL %s: returned %d, expected %d  [%s]\n", kernel, status, expected_status, label);
        ++failures;
        return;
    }
    at = first_difference((const unsigned char *)got, want, size, element, compare);
    if (at >= 0) {
        printf("FAIL %s: output element %ld differs%s  [%s]\n", kernel, at,
               expected_status ? " (output must stay untouched on error)" : "", label);
        ++failures;
    }
}
)C";

std::string c_string(const std::string& text) {
    std::string out = "\"";
    for (char ch : text) {
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "\"";
}

}  // namespace

std::string program(const std::vector<Case>& cases) {
    std::string includes, arrays, body;
    for (size_t n = 0; n < cases.size(); ++n) {
        const Case& c = cases[n];
        const std::string id = "case" + std::to_string(n);
        includes += "#include \"" + c.kernel + ".h\"\n";
        arrays += bytes_array(id + "_data", c.data) + bytes_array(id + "_indices", c.indices) +
                  bytes_array(id + "_updates", c.updates) + bytes_array(id + "_expected", c.expected_output);
        const int compare = c.compare == Compare::Float ? 1 : c.compare == Compare::Double ? 2 : 0;
        body += "    {\n";
        body += "        void *data = copy_of(" + pointer_to(id + "_data", c.data) + ");\n";
        body += "        void *indices = copy_of(" + pointer_to(id + "_indices", c.indices) + ");\n";
        if (c.has_updates) body += "        void *updates = copy_of(" + pointer_to(id + "_updates", c.updates) + ");\n";
        body += std::string("        void *output = ") +
                (c.in_place ? "copy_of(" + pointer_to(id + "_data", c.data) + ");\n"
                            : "filled(" + std::to_string(c.expected_output.size()) + ");\n");
        const std::string input = c.in_place ? "output" : "data";
        body += "        int status = " + c.kernel + "(" + input + ", indices, " + (c.has_updates ? "updates, " : "") + "output);\n";
        body += "        check(" + c_string(c.kernel) + ", " + c_string(c.label) + ", status, " + std::to_string(c.expected_status) +
                ", output, " + (c.expected_output.empty() ? "NULL" : id + "_expected") + ", " +
                std::to_string(c.expected_output.size()) + ", " + std::to_string(c.element_size) + ", " + std::to_string(compare) + ");\n";
        body += "        free(data);\n        free(indices);\n        free(output);\n";
        if (c.has_updates) body += "        free(updates);\n";
        body += "    }\n";
    }
    return includes + kPrelude + "\n" + arrays + "\nint main(void)\n{\n" + body +
           "    printf(\"%d cases, %d failed\\n\", " + std::to_string(cases.size()) + ", failures);\n" +
           "    return failures ? 1 : 0;\n}\n";
}

}  // namespace cprogram
