#include "c_program.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unordered_map>

namespace cprogram {
namespace {

std::string bytes_array(const std::string& name, const std::vector<uint8_t>& bytes) {
    if (bytes.empty()) return "";
    std::string out = "static const unsigned char " + name + "[" + std::to_string(bytes.size()) + "] CASE_DATA = {";
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

std::string text_array(const std::string& name, const std::string& text) {
    return "static const char " + name + "[] CASE_DATA = " + c_string(text) + ";\n";
}

// String tensors travel as their characters, each string followed by its NUL; the driver rebuilds the pointers.
std::vector<uint8_t> string_bytes(const std::vector<std::string>& strings) {
    std::vector<uint8_t> bytes;
    for (const auto& text : strings) {
        bytes.insert(bytes.end(), text.begin(), text.end());
        bytes.push_back(0);
    }
    return bytes;
}

std::string pointer_to(const std::string& name, size_t size) {
    return size == 0 ? "NULL, 0" : name + ", sizeof " + name;
}

std::string pointer_to(const std::string& name, const std::vector<uint8_t>& bytes) { return pointer_to(name, bytes.size()); }

const char* kPrelude = R"C(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Case data, kernel names and labels are constants, copied into heap blocks per case. On AVR (8 KB of SRAM)
 * they stay in program memory and are read with avr-libc's _P functions. */
#if defined(__AVR__)
#include <avr/pgmspace.h>
#define CASE_DATA PROGMEM
#define copy_in memcpy_P
#define print_constant(text) fputs_P(text, stdout)
#else
#define CASE_DATA
#define copy_in memcpy
#define print_constant(text) fputs(text, stdout)
#endif

#define SENTINEL "<untouched>"

/* A heap copy of exactly `size` bytes, but at least one: a run-time count's rows (a tensor whose count is 0 at the
 * call is not a tensor of no elements: its buffer holds the bound, and its pointer is the caller's buffer). */
static void *copy_of_rows(const unsigned char *bytes, size_t size)
{
    void *block = malloc(size ? size : 1u);
    if (!block) {
        abort();
    }
    if (size) {
        copy_in(block, bytes, size);
    }
    return block;
}

/* A heap copy of exactly `size` bytes; for none, a null pointer, which a kernel may take for a tensor of no
 * elements (it never reads, writes or offsets one: see the C interface's page), and the sanitizers catch if it did
 * (a memcpy of 0 bytes from it included). */
static void *copy_of(const unsigned char *bytes, size_t size)
{
    return size == 0u ? NULL : copy_of_rows(bytes, size);
}

/* `size` bytes of the sentinel 0xA5 (a null pointer for none, as copy_of). */
static void *filled(size_t size)
{
    void *block;
    if (size == 0u) {
        return NULL;
    }
    block = malloc(size);
    if (!block) {
        abort();
    }
    memset(block, 0xA5, size);
    return block;
}

/* Little-endian bytes as a number. */
static unsigned long word_at(const unsigned char *bytes, size_t size)
{
    unsigned long value = 0ul;
    while (size > 0u) {
        --size;
        value = (value << 8) | bytes[size];
    }
    return value;
}

/* NaN from the bits of a float (compare 1), double (2), float16 (3) or bfloat16 (4): exponent all ones,
 * mantissa not zero. Bits rather than floating-point values, which a target may not have (AVR's double). */
static int is_nan(const unsigned char *bytes, int compare)
{
    unsigned long high;
    switch (compare) {
    case 1:
        high = word_at(bytes, 4u);
        return (high & 0x7F800000ul) == 0x7F800000ul && (high & 0x007FFFFFul) != 0ul;
    case 2:
        high = word_at(bytes + 4, 4u);
        return (high & 0x7FF00000ul) == 0x7FF00000ul && ((high & 0x000FFFFFul) | word_at(bytes, 4u)) != 0ul;
    case 3:
        high = word_at(bytes, 2u);
        return (high & 0x7C00ul) == 0x7C00ul && (high & 0x03FFul) != 0ul;
    case 4:
        high = word_at(bytes, 2u);
        return (high & 0x7F80ul) == 0x7F80ul && (high & 0x007Ful) != 0ul;
    default:
        return 0;
    }
}

/* The index of the first element that differs, or -1; NaN equals NaN under compare 1 to 4, else bytes compare. */
static long first_difference(const unsigned char *got, const unsigned char *want, size_t size, size_t element, int compare)
{
    unsigned char expected[16]; /* an element (a complex number compares as two parts) */
    size_t i;
    for (i = 0; i < size; i += element) {
        copy_in(expected, want + i, element);
        if (memcmp(got + i, expected, element) != 0 && !(is_nan(got + i, compare) && is_nan(expected, compare))) {
            return (long)(i / element);
        }
    }
    return -1;
}

static int failures = 0;

/* "FAIL kernel: " and " [label]" around a failure's message. */
static void fail_begin(const char *kernel)
{
    ++failures;
    fputs("FAIL ", stdout);
    print_constant(kernel);
    fputs(": ", stdout);
}

static void fail_end(const char *label, int expected_status)
{
    fputs(expected_status ? " (output must stay untouched on error)  [" : "  [", stdout);
    print_constant(label);
    fputs("]\n", stdout);
}

static int status_is(const char *kernel, const char *label, int status, int expected_status)
{
    if (status == expected_status) {
        return 1;
    }
    fail_begin(kernel);
    printf("returned %d, expected %d", status, expected_status);
    fail_end(label, 0);
    return 0;
}

/* The `count` strings of `bytes` (each ends with its NUL) as an exactly-sized array of pointers into `*chars`,
 * a heap copy of the characters; free both. For none, null pointers, as copy_of. */
static const char **strings_of(const unsigned char *bytes, size_t size, size_t count, char **chars)
{
    const char **strings = count ? (const char **)malloc(count * sizeof(const char *)) : NULL;
    const char *at;
    size_t i;
    if (count && !strings) {
        abort();
    }
    *chars = (char *)copy_of(bytes, size);
    at = *chars;
    for (i = 0; i < count; ++i) {
        strings[i] = at;
        at += strlen(at) + 1u;
    }
    return strings;
}

/* `count` strings against the strings of `want`, `size` bytes. */
static void check_strings(const char *kernel, const char *label, int status, int expected_status,
                          const char **got, const unsigned char *want, size_t size, size_t count)
{
    char *chars;
    const char **expected;
    size_t i;
    if (!status_is(kernel, label, status, expected_status)) {
        return;
    }
    expected = strings_of(want, size, count, &chars);
    for (i = 0; i < count; ++i) {
        if (strcmp(got[i], expected[i]) != 0) {
            fail_begin(kernel);
            printf("output element %lu is \"%s\"", (unsigned long)i, got[i]);
            fail_end(label, expected_status);
            break;
        }
    }
    free(chars);
    free((void *)expected);
}

static void check(const char *kernel, const char *label, int status, int expected_status,
                  const void *got, const unsigned char *want, size_t size, size_t element, int compare)
{
    long at;
    if (!status_is(kernel, label, status, expected_status)) {
        return;
    }
    at = first_difference((const unsigned char *)got, want, size, element, compare);
    if (at >= 0) {
        fail_begin(kernel);
        printf("output element %ld differs", at);
        fail_end(label, expected_status);
    }
}
)C";


}  // namespace

namespace {

// The count argument of a kernel with a run-time count ("" otherwise), with the suffix of unsigned long so that it
// keeps its 32 bits where int has 16.
std::string count_argument(const Case& c) { return c.count ? std::to_string(*c.count) + "ul, " : ""; }

// The data argument: `data` (or what `input` names), then its run-time data count if the kernel takes one.
std::string data_argument(const Case& c, const std::string& input) {
    if (c.constant_data) return "";
    std::string out = input + ", " + (c.data_count ? std::to_string(*c.data_count) + "ul, " : "");
    for (uint32_t extent : c.data_dims) out += std::to_string(extent) + "ul, ";
    return out;
}

// A string case: tensors are arrays of pointers, each in its own heap block with their characters in another;
// the output starts as pointers to the sentinel string, which must all remain on error.
std::string string_case(const Case& c, const std::string& id, const std::string& names, std::string& arrays) {
    const auto data = string_bytes(c.data_strings), updates = string_bytes(c.updates_strings),
               expected = string_bytes(c.expected_strings);
    arrays += bytes_array(id + "_data", data) + bytes_array(id + "_updates", updates) +
              bytes_array(id + "_expected", expected);  // indices: added with the byte arrays
    const size_t count = c.expected_strings.size();  // on error: the untouched buffer (sentinels, or data in place)
    const auto strings = [&](const std::string& tensor, const std::vector<uint8_t>& bytes, size_t n) {
        return "strings_of(" + pointer_to(id + "_" + tensor, bytes) + ", " + std::to_string(n) + ", &" + tensor + "_chars)";
    };
    std::string body = "    {\n";
    body += "        char *data_chars, *updates_chars = NULL;\n";
    body += "        const char **data = " + strings(std::string("data"), data, c.data_strings.size()) + ";\n";
    body += "        void *indices = copy_of(" + pointer_to(id + "_indices", c.indices) + ");\n";
    body += "        const char **updates = " +
            (c.has_updates ? strings(std::string("updates"), updates, c.updates_strings.size()) : std::string("NULL")) + ";\n";
    body += "        const char **output;\n        int status;\n";
    if (c.in_place) {
        body += "        output = data;\n";
    } else {
        body += "        output = (const char **)filled(" + std::to_string(count) + " * sizeof(const char *));\n";
        if (count > 0) {
            body += "        {\n            size_t i;\n            for (i = 0; i < " + std::to_string(count) +
                    "; ++i) {\n                output[i] = SENTINEL;\n            }\n        }\n";
        }
    }
    const std::string input = c.in_place ? "output" : "(const char *const *)data";
    body += "        status = " + c.kernel + "(" + data_argument(c, input) + (c.constant_indices ? "" : "indices, ") + count_argument(c) +
            (c.has_updates ? "(const char *const *)updates, " : "") + "output);\n";
    body += "        check_strings(" + names + ", status, " + std::to_string(c.expected_status) + ", output, " +
            pointer_to(id + "_expected", expected) + ", " + std::to_string(count) + ");\n";
    body += "        free((void *)data);\n        free(data_chars);\n        free(indices);\n";
    body += "        free((void *)updates);\n        free(updates_chars);\n";
    if (!c.in_place) body += "        free((void *)output);\n";
    return body + "    }\n";
}

}  // namespace

std::string unity_source(const std::vector<std::string>& file_names) {
    std::string unity;
    for (const auto& name : file_names) {
        if (name.size() > 2 && name.compare(name.size() - 2, 2, ".c") == 0) unity += "#include \"" + name + "\"\n";
    }
    return unity;
}

std::string program(const std::vector<Case>& cases, std::vector<uint8_t>* blob) {
    std::string arrays, body;
    // Arrays of the same bytes are one array (an exported model's cases read the same tensors again and again);
    // with a blob, an array larger than kBlobThreshold is a place in it instead. Each is given as "pointer, size".
    constexpr size_t kBlobThreshold = 4096;
    std::unordered_map<std::string, std::string> named;  // the bytes of each array, and its "pointer, size"
    auto shared = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
        const auto [at, added] = named.emplace(std::string(bytes.begin(), bytes.end()), pointer_to(name, bytes));
        if (!added) return at->second;
        if (blob && bytes.size() > kBlobThreshold) {
            at->second = "blob + " + std::to_string(blob->size()) + "u, " + std::to_string(bytes.size()) + "u";
            blob->insert(blob->end(), bytes.begin(), bytes.end());
        } else {
            arrays += bytes_array(name, bytes);
        }
        return at->second;
    };
    std::vector<std::string> kernels;  // one name constant a kernel
    for (size_t n = 0; n < cases.size(); ++n) {
        const Case& c = cases[n];
        const std::string id = "case" + std::to_string(n);
        auto known = std::find(kernels.begin(), kernels.end(), c.kernel);
        if (known == kernels.end()) {
            arrays += text_array("kernel_name" + std::to_string(kernels.size()), c.kernel);
            known = kernels.insert(kernels.end(), c.kernel);
        }
        const std::string names = "kernel_name" + std::to_string(known - kernels.begin()) + ", " + id + "_label";
        arrays += text_array(id + "_label", c.label);
        if (c.compare == Compare::String) {
            arrays += bytes_array(id + "_indices", c.indices);
            body += string_case(c, id, names, arrays);
            continue;
        }
        const std::string indices_array = shared(id + "_indices", c.indices);
        // A kernel that holds its data takes none: the program carries none (the case's bytes are for other users).
        const bool pass_data = !c.in_place && !c.constant_data;
        const std::string data_array = pass_data || c.in_place ? shared(id + "_data", c.data) : std::string(),
                          updates_array = c.constant_updates ? std::string() : shared(id + "_updates", c.updates),
                          expected_array = shared(id + "_expected", c.expected_output);
        const int compare = c.compare == Compare::Float      ? 1
                            : c.compare == Compare::Double   ? 2
                            : c.compare == Compare::Float16  ? 3
                            : c.compare == Compare::BFloat16 ? 4
                                                             : 0;
        body += "    {\n";
        // A tensor of a run-time count or extents is not empty at its bound: its pointer is a block even for none.
        const bool rows = c.data_count || !c.data_dims.empty();
        if (pass_data) body += std::string("        void *data = ") + (rows ? "copy_of_rows(" : "copy_of(") + data_array + ");\n";
        body += "        void *indices = copy_of(" + indices_array + ");\n";
        const bool pass_updates = c.has_updates && !c.constant_updates;
        if (pass_updates) body += "        void *updates = copy_of(" + updates_array + ");\n";
        body += std::string("        void *output = ") +
                (c.in_place ? std::string(c.data_count ? "copy_of_rows(" : "copy_of(") + data_array + ");\n"
                            : "filled(" + std::to_string(c.expected_output.size() + (c.data_dims.empty() || !c.expected_output.empty() ? 0 : 1)) +
                                  "u);\n");
        const std::string input = c.in_place ? "output" : "data";
        body += "        int status = " + c.kernel + "(" + data_argument(c, input) + (c.constant_indices ? "" : "indices, ") +
                count_argument(c) + (pass_updates ? "updates, " : "") + "output);\n";
        body += "        check(" + names + ", status, " + std::to_string(c.expected_status) + ", output, " +
                expected_array + ", " + std::to_string(c.element_size) + "u, " +
                std::to_string(compare) + ");\n";
        if (pass_data) body += "        free(data);\n";
        body += "        free(indices);\n        free(output);\n";
        if (pass_updates) body += "        free(updates);\n";
        body += "    }\n";
    }
    std::string includes;
    for (const auto& kernel : kernels) includes += "#include \"" + kernel + ".h\"\n";
    // The blob, read whole from cases.bin in the program's folder before the first case.
    const std::string blob_pointer =
        blob && !blob->empty()
            ? "static const unsigned char *blob;\n"
            : "";
    const std::string read_blob =
        blob && !blob->empty()
            ? "    {\n        static unsigned char *bytes;\n        FILE *file = fopen(\"cases.bin\", \"rb\");\n"
              "        bytes = (unsigned char *)malloc(" + std::to_string(blob->size()) + "u);\n"
              "        if (!file || !bytes || fread(bytes, 1, " + std::to_string(blob->size()) + "u, file) != " +
              std::to_string(blob->size()) + "u) {\n            printf(\"cases.bin: cannot read it\\n\");\n"
              "            return 1;\n        }\n        fclose(file);\n        blob = bytes;\n    }\n"
            : "";
    return includes + kPrelude + "\n" + blob_pointer + arrays + "\nint main(void);\n\nint main(void)\n{\n" + read_blob +
           "    (void)filled; /* whichever cases the program holds, every helper counts as used */\n" +
           "    (void)check;\n    (void)check_strings;\n" + body +
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
                        {"in_place", c.in_place}, {"constant_indices", c.constant_indices}, {"constant_data", c.constant_data},
                        {"constant_updates", c.constant_updates},
                        {"compare", compare_name(c.compare)},
                        {"element_size", c.element_size}, {"data", hex(c.data)}, {"indices", hex(c.indices)},
                        {"updates", hex(c.updates)}, {"expected_status", c.expected_status},
                        {"expected_output", hex(c.expected_output)}};
    if (c.count) item["count"] = *c.count;
    if (c.data_count) item["data_count"] = *c.data_count;
    if (!c.data_dims.empty()) item["data_dims"] = c.data_dims;
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
    c.constant_data = item.value("constant_data", false);
    c.constant_updates = item.value("constant_updates", false);
    if (item.contains("count")) c.count = item.at("count").get<uint32_t>();
    if (item.contains("data_count")) c.data_count = item.at("data_count").get<uint32_t>();
    if (item.contains("data_dims")) c.data_dims = item.at("data_dims").get<std::vector<uint32_t>>();
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
