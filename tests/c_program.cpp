#include "c_program.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

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

std::string c_string(const std::string& text) {
    std::string out = "\"";
    for (char ch : text) {
        if (ch == '"' || ch == '\\') out += '\\';
        out += ch;
    }
    return out + "\"";
}

std::string strings_array(const std::string& name, const std::vector<std::string>& strings) {
    if (strings.empty()) return "";
    std::string out = "static const char *const " + name + "[" + std::to_string(strings.size()) + "] = {";
    for (size_t i = 0; i < strings.size(); ++i) out += (i % 8 == 0 ? "\n    " : " ") + c_string(strings[i]) + ",";
    return out + "\n};\n";
}

std::string pointer_to(const std::string& name, size_t size) {
    return size == 0 ? "NULL, 0" : "(const unsigned char *)" + name + ", sizeof " + name;
}

std::string pointer_to(const std::string& name, const std::vector<uint8_t>& bytes) { return pointer_to(name, bytes.size()); }

const char* kPrelude = R"C(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL "<untouched>"

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
        } else if (compare == 3 || compare == 4) {
            /* float16 (3) or bfloat16 (4) bit patterns: any NaN matches any NaN */
            const unsigned exponent = compare == 3 ? 0x7C00u : 0x7F80u;
            const unsigned mantissa = compare == 3 ? 0x03FFu : 0x007Fu;
            unsigned short a, b;
            memcpy(&a, got + i, sizeof a);
            memcpy(&b, want + i, sizeof b);
            if ((a & exponent) == exponent && (a & mantissa) != 0u && (b & exponent) == exponent && (b & mantissa) != 0u) {
                continue;
            }
        }
        return (long)(i / element);
    }
    return -1;
}

static int failures = 0;

static void check_strings(const char *kernel, const char *label, int status, int expected_status,
                          const char **got, const char *const *want, size_t count)
{
    size_t i;
    if (status != expected_status) {
        printf("FAIL %s: returned %d, expected %d  [%s]\n", kernel, status, expected_status, label);
        ++failures;
        return;
    }
    for (i = 0; i < count; ++i) {
        if (strcmp(got[i], want[i]) != 0) {
            printf("FAIL %s: output element %lu is \"%s\"%s  [%s]\n", kernel, (unsigned long)i, got[i],
                   expected_status ? " (output must stay untouched on error)" : "", label);
            ++failures;
            return;
        }
    }
}

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

}  // namespace

namespace {

// The count argument of a kernel with a run-time count ("" otherwise), with the suffix of unsigned long so that it
// keeps its 32 bits where int has 16.
std::string count_argument(const Case& c) { return c.count ? std::to_string(*c.count) + "ul, " : ""; }

// A string case: tensors are arrays of pointers, each in its own heap block; the output starts as pointers
// to the sentinel string, which must all remain on error.
std::string string_case(const Case& c, const std::string& id, std::string& arrays) {
    arrays += strings_array(id + "_data", c.data_strings) + strings_array(id + "_updates", c.updates_strings) +
              strings_array(id + "_expected", c.expected_strings);  // indices: added with the byte arrays
    const size_t count = c.expected_strings.size();  // on error: the untouched buffer (sentinels, or data in place)
    const std::string pointers = " * sizeof(const char *)";
    std::string body = "    {\n";
    body += "        const char **data = (const char **)copy_of(" + pointer_to(id + "_data", c.data_strings.size()) + ");\n";
    body += "        void *indices = copy_of(" + pointer_to(id + "_indices", c.indices) + ");\n";
    if (c.has_updates) {
        body += "        const char **updates = (const char **)copy_of(" + pointer_to(id + "_updates", c.updates_strings.size()) + ");\n";
    }
    body += "        const char **output;\n        size_t i;\n        int status;\n";
    if (c.in_place) {
        body += "        output = (const char **)copy_of(" + pointer_to(id + "_data", c.data_strings.size()) + ");\n";
    } else {
        body += "        output = (const char **)filled(" + std::to_string(count) + pointers + ");\n";
        body += "        for (i = 0; i < " + std::to_string(count) + "; ++i) {\n            output[i] = SENTINEL;\n        }\n";
    }
    const std::string input = c.in_place ? "output" : "(const char *const *)data";
    body += "        status = " + c.kernel + "(" + input + ", " + (c.constant_indices ? "" : "indices, ") + count_argument(c) +
            (c.has_updates ? "(const char *const *)updates, " : "") + "output);\n";
    body += "        check_strings(" + c_string(c.kernel) + ", " + c_string(c.label) + ", status, " +
            std::to_string(c.expected_status) + ", output, " +
            (count > 0 ? id + "_expected" : "NULL") + ", " + std::to_string(count) + ");\n";
    body += "        free(data);\n        free(indices);\n        free(output);\n";
    if (c.has_updates) body += "        free(updates);\n";
    return body + "    }\n";
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
        if (c.compare == Compare::String) {
            body += string_case(c, id, arrays);
            continue;
        }
        const int compare = c.compare == Compare::Float      ? 1
                            : c.compare == Compare::Double   ? 2
                            : c.compare == Compare::Float16  ? 3
                            : c.compare == Compare::BFloat16 ? 4
                                                             : 0;
        body += "    {\n";
        body += "        void *data = copy_of(" + pointer_to(id + "_data", c.data) + ");\n";
        body += "        void *indices = copy_of(" + pointer_to(id + "_indices", c.indices) + ");\n";
        if (c.has_updates) body += "        void *updates = copy_of(" + pointer_to(id + "_updates", c.updates) + ");\n";
        body += std::string("        void *output = ") +
                (c.in_place ? "copy_of(" + pointer_to(id + "_data", c.data) + ");\n"
                            : "filled(" + std::to_string(c.expected_output.size()) + ");\n");
        const std::string input = c.in_place ? "output" : "data";
        body += "        int status = " + c.kernel + "(" + input + ", " + (c.constant_indices ? "" : "indices, ") +
                count_argument(c) + (c.has_updates ? "updates, " : "") + "output);\n";
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

namespace {

const char* compare_name(Compare compare) {
    switch (compare) {
        case Compare::Bytes: return "bytes";
        case Compare::Float: return "float";
        case Compare::Double: return "double";
        case Compare::Float16: return "float16";
        case Compare::BFloat16: return "bfloat16";
        case Compare::String: return "string";
    }
    return "bytes";
}

std::vector<Case>& exported() {
    static std::vector<Case> cases;
    return cases;
}

void write_exported() {
    const char* path = std::getenv("KERNELGEN_EXPORT_CASES");
    if (!path) return;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& c : exported()) list.push_back(to_json(c));
    std::ofstream(path) << list.dump(1) << "\n";
}

}  // namespace

nlohmann::json to_json(const Case& c) {
    nlohmann::json item{{"kernel", c.kernel}, {"label", c.label}, {"has_updates", c.has_updates},
                        {"in_place", c.in_place}, {"constant_indices", c.constant_indices},
                        {"compare", compare_name(c.compare)},
                        {"element_size", c.element_size}, {"data", hex(c.data)}, {"indices", hex(c.indices)},
                        {"updates", hex(c.updates)}, {"expected_status", c.expected_status},
                        {"expected_output", hex(c.expected_output)}};
    if (c.count) item["count"] = *c.count;
    if (c.compare == Compare::String) {  // string tensors as JSON arrays instead of bytes
        item["data_strings"] = c.data_strings;
        item["updates_strings"] = c.updates_strings;
        item["expected_strings"] = c.expected_strings;
    }
    return item;
}

Case case_from_json(const nlohmann::json& item) {
    Case c;
    c.kernel = item.at("kernel").get<std::string>();
    c.label = item.at("label").get<std::string>();
    c.has_updates = item.at("has_updates").get<bool>();
    c.in_place = item.at("in_place").get<bool>();
    c.constant_indices = item.value("constant_indices", false);
    if (item.contains("count")) c.count = item.at("count").get<uint32_t>();
    const std::string compare = item.at("compare").get<std::string>();
    for (Compare candidate : {Compare::Bytes, Compare::Float, Compare::Double, Compare::Float16, Compare::BFloat16,
                              Compare::String}) {
        if (compare == compare_name(candidate)) c.compare = candidate;
    }
    c.element_size = item.at("element_size").get<size_t>();
    c.data = unhex(item.at("data").get<std::string>());
    c.indices = unhex(item.at("indices").get<std::string>());
    c.updates = unhex(item.at("updates").get<std::string>());
    c.expected_status = item.at("expected_status").get<int>();
    c.expected_output = unhex(item.at("expected_output").get<std::string>());
    if (c.compare == Compare::String) {
        c.data_strings = item.at("data_strings").get<std::vector<std::string>>();
        c.updates_strings = item.at("updates_strings").get<std::vector<std::string>>();
        c.expected_strings = item.at("expected_strings").get<std::vector<std::string>>();
    }
    return c;
}

std::string hex(const std::vector<uint8_t>& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (uint8_t byte : bytes) {
        out += digits[byte >> 4];
        out += digits[byte & 15];
    }
    return out;
}

std::vector<uint8_t> unhex(const std::string& text) {
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i + 1 < text.size(); i += 2) {
        bytes.push_back(static_cast<uint8_t>(std::stoul(text.substr(i, 2), nullptr, 16)));
    }
    return bytes;
}

std::string run_command(const std::string& command, int& status) {
    std::string output;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) {
        status = -1;
        return "popen failed";
    }
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    status = pclose(pipe);
    return output;
}

void export_case(Case c) {
    if (!std::getenv("KERNELGEN_EXPORT_CASES")) return;
    // The list first: statics are destroyed in reverse order, so it outlives the writer registered after it.
    std::vector<Case>& cases = exported();
    static const bool registered = std::atexit(write_exported) == 0;
    (void)registered;
    cases.push_back(std::move(c));
}

}  // namespace cprogram
