// Randomized tests: hundreds of random specs per operator are generated, compiled with the strict flag set
// plus AddressSanitizer and UBSan (gcc and clang in turn), run on random inputs including negative,
// duplicate and out-of-range indices, and compared with tests/reference.cpp on every output element,
// every return code and every untouched output buffer.
//
// KERNELGEN_RANDOM_SEED overrides the fixed seed; KERNELGEN_RANDOM_CASES the number of cases per operator.
// KERNELGEN_DUMP_CASES=<dir> also writes every case (spec, inputs, expected result) to <dir>/<op>.json, for
// the cross-check against ONNX Runtime in tests/ort_crosscheck/ and the Cortex-M test; with
// KERNELGEN_CASES_ONLY=1 the RandomKernels tests only write them (no kernel compiled or run).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "c_program.h"
#include "half_reference.h"
#include "kernelgen/generate.h"
#include "reference.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct TypeRow {
    const char* name;
    size_t size;
    cprogram::Compare compare;
};

// size: the unit of comparison in bytes (a complex number compares as its two parts).
const std::array<TypeRow, 16> kTypes{{{"float32", 4, cprogram::Compare::Float},
                                      {"float64", 8, cprogram::Compare::Double},
                                      {"int8", 1, cprogram::Compare::Bytes},
                                      {"int16", 2, cprogram::Compare::Bytes},
                                      {"int32", 4, cprogram::Compare::Bytes},
                                      {"int64", 8, cprogram::Compare::Bytes},
                                      {"uint8", 1, cprogram::Compare::Bytes},
                                      {"uint16", 2, cprogram::Compare::Bytes},
                                      {"uint32", 4, cprogram::Compare::Bytes},
                                      {"uint64", 8, cprogram::Compare::Bytes},
                                      {"bool", 1, cprogram::Compare::Bytes},
                                      {"float16", 2, cprogram::Compare::Float16},
                                      {"bfloat16", 2, cprogram::Compare::BFloat16},
                                      {"complex64", 4, cprogram::Compare::Float},
                                      {"complex128", 8, cprogram::Compare::Double},
                                      {"string", sizeof(const char*), cprogram::Compare::String}}};

// Calls f with a value of the C++ type named by the spec's dtype.
template <typename F>
void with_type(const std::string& dtype, F&& f) {
    static_assert(sizeof(bool) == 1, "the C programs store bool as one byte");
    if (dtype == "float32") f(float{});
    else if (dtype == "float64") f(double{});
    else if (dtype == "int8") f(int8_t{});
    else if (dtype == "int16") f(int16_t{});
    else if (dtype == "int32") f(int32_t{});
    else if (dtype == "int64") f(int64_t{});
    else if (dtype == "uint8") f(uint8_t{});
    else if (dtype == "uint16") f(uint16_t{});
    else if (dtype == "uint32") f(uint32_t{});
    else if (dtype == "uint64") f(uint64_t{});
    else if (dtype == "float16") f(reference::Float16{});
    else if (dtype == "bfloat16") f(reference::BFloat16{});
    else if (dtype == "complex64") f(reference::Complex<float>{});
    else if (dtype == "complex128") f(reference::Complex<double>{});
    else if (dtype == "string") f(std::string{});
    else f(bool{});
}

// The index positions' bounds: the size of the data axis each value of `indices` selects along.
std::vector<int64_t> index_bounds(const reference::Problem& p) {
    std::vector<int64_t> bounds;
    const auto n = static_cast<size_t>(reference::count(p.indices_shape));
    const auto r = static_cast<int64_t>(p.data_shape.size());
    if (p.op == "Gather" || p.op == "GatherElements" || p.op == "ScatterElements") {
        bounds.assign(n, p.data_shape[static_cast<size_t>(p.axis < 0 ? p.axis + r : p.axis)]);
    } else {
        const auto k = static_cast<size_t>(p.indices_shape.back());
        const auto b = static_cast<size_t>(p.op == "GatherND" ? p.batch_dims : 0);
        for (size_t i = 0; i < n; ++i) bounds.push_back(p.data_shape[b + i % k]);
    }
    return bounds;
}

class Generator {
public:
    explicit Generator(uint64_t seed) : rng_(seed) {}

    int64_t uniform(int64_t low, int64_t high) { return std::uniform_int_distribution<int64_t>(low, high)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }

    int64_t dim(size_t rank) { return chance(0.06) ? 0 : uniform(1, rank >= 4 ? 3 : 4); }

    reference::Shape shape(size_t rank) {
        reference::Shape out;
        for (size_t i = 0; i < rank; ++i) out.push_back(dim(rank));
        return out;
    }

    reference::Problem problem(const std::string& op) {
        static const std::array<const char*, 5> reductions{"none", "add", "mul", "max", "min"};
        while (true) {
            reference::Problem p;
            p.op = op;
            const bool elements = op == "GatherElements" || op == "ScatterElements";
            const auto r = static_cast<size_t>(uniform(1, elements || op == "ScatterND" ? 4 : 5));
            p.data_shape = shape(r);
            const auto rank = static_cast<int64_t>(r);
            if (op == "Gather") {
                p.indices_shape = shape(static_cast<size_t>(uniform(0, 3)));
                p.axis = uniform(-rank, rank - 1);
            } else if (elements) {
                p.axis = uniform(-rank, rank - 1);
                const auto a = static_cast<size_t>(p.axis < 0 ? p.axis + rank : p.axis);
                for (size_t i = 0; i < r; ++i) p.indices_shape.push_back(i == a ? dim(r) : uniform(0, p.data_shape[i]));
                if (op == "ScatterElements") p.reduction = reductions[static_cast<size_t>(uniform(0, 4))];
            } else if (op == "GatherND") {
                const auto q = static_cast<size_t>(uniform(1, 4));
                p.batch_dims = uniform(0, static_cast<int64_t>(std::min(q, r)) - 1);
                const auto b = static_cast<size_t>(p.batch_dims);
                p.indices_shape.assign(p.data_shape.begin(), p.data_shape.begin() + static_cast<std::ptrdiff_t>(b));
                for (size_t i = b; i + 1 < q; ++i) p.indices_shape.push_back(dim(q));
                p.indices_shape.push_back(uniform(1, rank - p.batch_dims));
            } else {
                const auto q = static_cast<size_t>(uniform(1, 3));
                p.indices_shape = shape(q - 1);
                p.indices_shape.push_back(uniform(1, rank));
                p.reduction = reductions[static_cast<size_t>(uniform(0, 4))];
            }
            const int64_t most = 96;
            bool small = reference::count(p.data_shape) <= most && reference::count(p.indices_shape) <= most &&
                         reference::count(reference::output_shape(p)) <= most &&
                         (op != "ScatterND" || reference::count(reference::updates_shape(p)) <= most);
            if (small) return p;
        }
    }

    // Index values: mostly in [-s, s-1]; sometimes one hostile value anywhere in the index type's range.
    std::vector<int64_t> indices(const reference::Problem& p, bool int32) {
        const std::vector<int64_t> bounds = index_bounds(p);
        std::vector<int64_t> values;
        for (int64_t s : bounds) values.push_back(s == 0 ? uniform(-2, 2) : uniform(-s, s - 1));
        auto any_position = [&] { return static_cast<size_t>(uniform(0, static_cast<int64_t>(values.size()) - 1)); };
        if (!values.empty() && chance(0.4)) {  // the edges of the valid range, -s and s-1
            const size_t at = any_position();
            if (bounds[at] > 0) values[at] = chance(0.5) ? -bounds[at] : bounds[at] - 1;
        }
        if (!values.empty() && chance(0.25)) {  // one value outside it: just past an edge, or far away
            const size_t at = any_position();
            const int64_t s = bounds[at];
            const int64_t low = int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
            const int64_t high = int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
            const std::array<int64_t, 10> hostile{s, s, s, -s - 1, -s - 1, -s - 1, low, high, low + 1, s + 1000};
            values[at] = hostile[static_cast<size_t>(uniform(0, hostile.size() - 1))];
        }
        return values;
    }

    template <typename F>
    F real() {
        static const std::array<F, 4> special{std::numeric_limits<F>::quiet_NaN(), std::numeric_limits<F>::infinity(),
                                              -std::numeric_limits<F>::infinity(), F(-0.0)};
        return chance(0.08) ? special[static_cast<size_t>(uniform(0, 3))] : static_cast<F>(uniform(-12, 12)) / F(2);
    }

    // Elements of a float type made NaN, each with chance `share`, with any sign and payload (floats compare
    // NaN-aware); other types are left alone.
    template <typename T>
    void nans(std::vector<T>& values, double share) {
        if constexpr (std::is_same_v<T, reference::Float16> || std::is_same_v<T, reference::BFloat16>) {
            const halfref::Format format = std::is_same_v<T, reference::Float16> ? halfref::kFloat16 : halfref::kBFloat16;
            for (T& v : values) {
                if (!chance(share)) continue;
                const auto payload = static_cast<uint16_t>(uniform(1, (int64_t{1} << format.mantissa_bits) - 1));
                v.bits = static_cast<uint16_t>((chance(0.5) ? 0x8000u : 0u) | halfref::infinity_bits(format) | payload);
            }
        } else if constexpr (std::is_floating_point_v<T>) {
            for (T& v : values) {
                if (chance(share)) v = std::copysign(std::numeric_limits<T>::quiet_NaN(), chance(0.5) ? T(-1) : T(1));
            }
        }
    }

    // Random elements; `tag` makes strings unique per tensor, so equal text means the same element.
    template <typename T>
    std::vector<T> values(size_t n, const std::string& tag = "") {
        std::vector<T> out(n);
        for (size_t i = 0; i < n; ++i) {
            T v{};
            if constexpr (std::is_same_v<T, std::string>) {
                v = tag + std::to_string(i);
            } else if constexpr (std::is_same_v<T, reference::Float16> || std::is_same_v<T, reference::BFloat16>) {
                // Any pattern (subnormals, infinities, NaN) at times; mostly small values that meet and round.
                const halfref::Format format = std::is_same_v<T, reference::Float16> ? halfref::kFloat16 : halfref::kBFloat16;
                v.bits = chance(0.3) ? static_cast<uint16_t>(uniform(0, 0xFFFF))
                                     : halfref::from_double(static_cast<double>(uniform(-4000, 4000)) / 64.0, format);
            } else if constexpr (std::is_same_v<T, reference::Complex<float>> || std::is_same_v<T, reference::Complex<double>>) {
                using Part = decltype(v.re);
                v.re = real<Part>();
                v.im = real<Part>();
            } else if constexpr (std::is_same_v<T, bool>) {
                v = chance(0.5);
            } else if constexpr (std::is_floating_point_v<T>) {
                v = real<T>();
            } else {
                v = static_cast<T>(std::uniform_int_distribution<uint64_t>()(rng_));  // every bit pattern
            }
            out[i] = v;
        }
        return out;
    }

private:
    std::mt19937_64 rng_;
};

// Values laid out row-major as arrays nested like `shape` (a plain number for rank 0).
template <typename Value>
json nested(const std::vector<Value>& values, const reference::Shape& shape, size_t dim = 0, size_t first = 0) {
    if (dim == shape.size()) return values[first];
    size_t inner = 1;
    for (size_t i = dim + 1; i < shape.size(); ++i) inner *= static_cast<size_t>(shape[i]);
    json out = json::array();
    for (size_t i = 0; i < static_cast<size_t>(shape[dim]); ++i) out.push_back(nested(values, shape, dim + 1, first + i * inner));
    return out;
}

// A real value as the spec writes it: a number, or "NaN", "Infinity", "-Infinity".
json real_json(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    return value;
}

// The case's data as the spec's constant "data" holds it, flat (row-major): every value written exactly, but a
// NaN's payload (the comparison of floats is NaN-aware).
std::vector<json> values_json(const std::vector<uint8_t>& bytes, const std::string& dtype) {
    std::vector<json> out;
    with_type(dtype, [&](auto zero) {
        using T = decltype(zero);
        if constexpr (!std::is_same_v<T, std::string>) {
            for (size_t at = 0; at + sizeof(T) <= bytes.size(); at += sizeof(T)) {
                T value;
                std::memcpy(&value, bytes.data() + at, sizeof(T));
                if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) out.push_back(real_json(value));
                else if constexpr (std::is_same_v<T, reference::Float16>) out.push_back(real_json(halfref::to_double(value.bits, halfref::kFloat16)));
                else if constexpr (std::is_same_v<T, reference::BFloat16>) out.push_back(real_json(halfref::to_double(value.bits, halfref::kBFloat16)));
                else if constexpr (std::is_same_v<T, reference::Complex<float>> || std::is_same_v<T, reference::Complex<double>>) {
                    out.push_back(json::array({real_json(value.re), real_json(value.im)}));
                } else if constexpr (std::is_same_v<T, bool>) out.push_back(value);
                else out.push_back(value);
            }
        }
    });
    return out;
}

std::string unroll_choice(Generator& g, json& spec) {
    switch (g.uniform(0, 5)) {
        case 0: spec["unroll"] = "none"; return "none";
        case 1: spec["unroll"] = "full"; return "full";
        case 2: {
            const int64_t factor = g.uniform(1, 6);
            spec["unroll"] = factor;
            return std::to_string(factor);
        }
        case 3: spec["unroll"] = "auto"; return "auto";
        default: return "auto";  // the default, key omitted
    }
}

uint64_t seed_for(const std::string& op) {
    uint64_t seed = 20261122;
    if (const char* text = std::getenv("KERNELGEN_RANDOM_SEED")) seed = std::strtoull(text, nullptr, 10);
    return seed ^ std::hash<std::string>{}(op);
}

size_t case_count() {
    if (const char* text = std::getenv("KERNELGEN_RANDOM_CASES")) return std::strtoul(text, nullptr, 10);
    return 200;
}

// Every case with its inputs and the result the kernels were checked against, bytes as hex strings, and the spec
// of its kernel: its label, or the kernel's entry in `specs`.
void dump_cases(const std::string& op, const std::vector<cprogram::Case>& cases, const std::map<std::string, json>* specs = nullptr) {
    const char* dir = std::getenv("KERNELGEN_DUMP_CASES");
    if (!dir) return;
    json list = json::array();
    for (const auto& c : cases) {
        json item = cprogram::to_json(c);
        item["spec"] = specs ? specs->at(c.kernel) : json::parse(c.label);  // the cross-check builds its model from the spec
        list.push_back(item);
    }
    fs::create_directories(dir);
    std::ofstream(fs::path(dir) / (op + ".json")) << list.dump(1) << "\n";
}

// KERNELGEN_CASES_ONLY=1: the cross-checks that only want the dumped cases (ONNX Runtime, the boards) skip what
// these tests check on the host themselves, so that no kernel is compiled or run twice.
bool cases_only() {
    const char* value = std::getenv("KERNELGEN_CASES_ONLY");
    return value && std::string(value) == "1";
}

// Whether a problem can take a run-time count, by the spec reader's rules for "count": "runtime": indices
// whose leading dimension (at least 1) leads the output too, and data axes the indices select along that have
// elements.
bool countable(const reference::Problem& p) {
    const auto& data = p.data_shape;
    const auto& indices = p.indices_shape;
    if (indices.empty() || indices[0] == 0) return false;
    const auto rank = static_cast<int64_t>(data.size());
    const auto axis = static_cast<size_t>(p.axis < 0 ? p.axis + rank : p.axis);
    if (p.op == "GatherND" || p.op == "ScatterND") {
        if (p.batch_dims != 0 || indices.size() < 2) return false;
        for (int64_t j = 0; j < indices.back(); ++j) {
            if (data[static_cast<size_t>(j)] == 0) return false;
        }
        return true;
    }
    if (data[axis] == 0) return false;
    return p.op != "Gather" || reference::count(reference::Shape(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis))) == 1;
}

// Whether a problem can take a run-time count of data rows ("count_leads": "data"): a Gather along axis 1 or
// later, whose data has rows (the bound) and elements along the axis.
bool data_countable(const reference::Problem& p) {
    const auto& data = p.data_shape;
    const auto rank = static_cast<int64_t>(data.size());
    const auto axis = p.axis < 0 ? p.axis + rank : p.axis;
    return p.op == "Gather" && axis >= 1 && data[0] > 0 && data[static_cast<size_t>(axis)] > 0;
}

// The count a call passes: mostly within the bound (0, the bound, or between), sometimes above it.
uint32_t pick_count(Generator& g, int64_t bound) {
    switch (g.uniform(0, 7)) {
        case 0: return 0;
        case 1:
        case 2: return static_cast<uint32_t>(bound);
        case 3: return static_cast<uint32_t>(bound) + 1u;
        case 4: return g.chance(0.5) ? UINT32_MAX : 0x80000000u;
        default: return static_cast<uint32_t>(g.uniform(0, bound));
    }
}

// Whether a problem can take a run-time data count ("data_count": "runtime"): Gather, GatherElements or
// ScatterElements along axis 0, GatherND with batch_dims 0, ScatterND, data with rows (the bound) and elements
// along every axis indices select.
bool data_count_able(const reference::Problem& p) {
    const auto& data = p.data_shape;
    const auto rank = static_cast<int64_t>(data.size());
    if (data[0] == 0) return false;
    if (p.op == "GatherND" || p.op == "ScatterND") {
        if (p.batch_dims != 0) return false;
        for (int64_t j = 0; j < p.indices_shape.back(); ++j) {
            if (data[static_cast<size_t>(j)] == 0) return false;
        }
        return true;
    }
    return (p.op == "Gather" || p.op == "GatherElements" || p.op == "ScatterElements") &&
           (p.axis < 0 ? p.axis + rank : p.axis) == 0;
}

// Indices for a kernel with a run-time data count `data_count`: now and then the values along axis 0 that lie in
// the bound's range are brought into the data count's (half of them negative), and now and then one of them is
// hostile: just inside or outside the data count, the bound, or the ends of the index type.
std::vector<int64_t> data_count_indices(Generator& h, const reference::Problem& p, std::vector<int64_t> indices,
                                        uint32_t data_count, bool int32) {
    const int64_t bound = p.data_shape[0];
    const bool tuples = p.op == "GatherND" || p.op == "ScatterND";
    const size_t step = tuples ? static_cast<size_t>(p.indices_shape.back()) : 1;  // axis 0's values
    const auto rows = static_cast<int64_t>(data_count);
    if (data_count > 0 && data_count <= bound && h.chance(0.7)) {
        for (size_t at = 0; at < indices.size(); at += step) {
            int64_t& v = indices[at];
            if (v < -bound || v >= bound) continue;  // already out of range: kept
            v = ((v % rows) + rows) % rows - (h.chance(0.3) ? rows : 0);
        }
    }
    if (!indices.empty() && h.chance(0.35)) {
        const int64_t low = int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
        const int64_t high = int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
        const std::array<int64_t, 10> hostile{rows, -rows - 1, -rows, rows - 1, bound, -bound, -bound - 1, bound - 1, low, high};
        const auto positions = static_cast<int64_t>((indices.size() - 1) / step);
        indices[static_cast<size_t>(h.uniform(0, positions)) * step] = hostile[static_cast<size_t>(h.uniform(0, hostile.size() - 1))];
    }
    return indices;
}

// One case of a kernel: random data (and updates), the given indices, and the reference's verdict: the
// expected output, or the error code with the output buffer untouched. With a run-time count the reference
// sees only the first `count` rows of indices (and updates), and a gather's output rows beyond them stay
// untouched; a count above the bound is refused (-2). A count of data rows ("count_leads": "data") cuts data
// instead: the reference sees its first `count` rows and every index, and the case passes the kernel only those
// rows (an exactly-sized buffer, so that AddressSanitizer catches a read beyond them). A run-time data count
// ("data_count") cuts data too, to its first `data_count` rows, the problem the reference sees (then the count of
// index rows, if any, cuts indices); one above its bound is refused first (-3), before the count (-2). With
// `nan_share`, that share of data's and the updates' elements of a float type are NaN.
cprogram::Case make_case(Generator& g, const reference::Problem& p, const json& spec, const TypeRow& type,
                         const std::vector<int64_t>& indices, bool int32, bool in_place,
                         std::optional<uint32_t> count = std::nullopt, std::optional<uint32_t> data_count = std::nullopt,
                         bool zero_data = false, double nan_share = 0, bool* nan_update_meets_a_number = nullptr) {
    cprogram::Case c;
    c.count = count;
    c.data_count = data_count;
    c.kernel = spec["name"].get<std::string>();
    c.label = spec.dump();
    c.has_updates = p.op == "ScatterND" || p.op == "ScatterElements" || p.op == "TensorScatter";
    c.in_place = c.has_updates && in_place;
    c.compare = type.compare;
    c.element_size = type.size;
    for (int64_t v : indices) {
        if (int32) {
            const auto narrow = static_cast<int32_t>(v);
            const auto* bytes = reinterpret_cast<const uint8_t*>(&narrow);
            c.indices.insert(c.indices.end(), bytes, bytes + 4);
        } else {
            const auto* bytes = reinterpret_cast<const uint8_t*>(&v);
            c.indices.insert(c.indices.end(), bytes, bytes + 8);
        }
    }
    const bool data_rows = spec.value("count_leads", "") == "data";
    const int64_t bound = !count ? 0 : data_rows ? p.data_shape[0] : p.indices_shape[0];
    with_type(type.name, [&](auto zero) {
        using T = decltype(zero);
        auto data = g.values<T>(static_cast<size_t>(reference::count(p.data_shape)), "d");
        if constexpr (!std::is_same_v<T, std::string>) {
            if (zero_data) std::fill(data.begin(), data.end(), T{});  // all zero bytes (+0 for floats)
        }
        std::vector<T> updates;
        if (c.has_updates) updates = g.values<T>(static_cast<size_t>(reference::count(reference::updates_shape(p))), "u");
        if (nan_share > 0) {
            g.nans(data, nan_share);
            g.nans(updates, nan_share);
        }
        std::vector<T> output;
        const auto size = static_cast<size_t>(reference::count(reference::output_shape(p)));
        bool ok = false;
        c.expected_status = -1;
        reference::Problem seen = p;  // with a data count, the problem of data's first data_count rows
        if (data_count && *data_count <= static_cast<uint64_t>(p.data_shape[0])) {
            seen.data_shape[0] = *data_count;
            data.resize(static_cast<size_t>(reference::count(seen.data_shape)));
        }
        if (data_count && *data_count > static_cast<uint64_t>(p.data_shape[0])) {
            c.expected_status = -3;
        } else if (!count) {
            ok = reference::run(seen, data, indices, updates, output);
        } else if (data_rows && *count <= static_cast<uint64_t>(bound)) {
            reference::Problem first = p;  // the first `count` rows of data
            first.data_shape[0] = *count;
            data.resize(static_cast<size_t>(reference::count(first.data_shape)));
            ok = reference::run(first, data, indices, updates, output);
        } else if (*count <= static_cast<uint64_t>(bound)) {
            reference::Problem first = seen;  // the first `count` rows
            first.indices_shape[0] = *count;
            const std::vector<int64_t> used(indices.begin(), indices.begin() + reference::count(first.indices_shape));
            std::vector<T> used_updates;
            if (c.has_updates) used_updates.assign(updates.begin(), updates.begin() + reference::count(reference::updates_shape(first)));
            ok = reference::run(first, data, used, used_updates, output);
        } else {
            c.expected_status = -2;
        }
        if (ok) c.expected_status = 0;
        if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, reference::Float16> ||
                      std::is_same_v<T, reference::BFloat16>) {
            // Whether a NaN update meets a number: with every NaN update made the reduction's identity (-inf for max,
            // +inf for min), some element NaN in the output is not.
            if (nan_update_meets_a_number && ok) {
                *nan_update_meets_a_number = false;
                std::vector<T> tamed = updates, other;
                for (T& v : tamed) {
                    if constexpr (std::is_floating_point_v<T>) {
                        if (std::isnan(v)) v = p.reduction == "max" ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
                    } else {
                        const halfref::Format format = std::is_same_v<T, reference::Float16> ? halfref::kFloat16 : halfref::kBFloat16;
                        if (halfref::is_nan(v.bits, format)) {
                            v.bits = static_cast<uint16_t>((p.reduction == "max" ? 0x8000u : 0u) | halfref::infinity_bits(format));
                        }
                    }
                }
                reference::run(seen, data, indices, tamed, other);
                auto nan = [](const T& v) {
                    if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
                    else return halfref::is_nan(v.bits, std::is_same_v<T, reference::Float16> ? halfref::kFloat16 : halfref::kBFloat16);
                };
                for (size_t i = 0; i < output.size(); ++i) *nan_update_meets_a_number |= nan(output[i]) && !nan(other[i]);
            }
        }
        if constexpr (std::is_same_v<T, std::string>) {
            c.data_strings = data;
            c.updates_strings = updates;
            if (!c.in_place) output.resize(size, cprogram::kSentinelString);  // rows beyond a count, untouched
            c.expected_strings = ok ? output : c.in_place ? data : std::vector<std::string>(size, cprogram::kSentinelString);
        } else {
            c.data = cprogram::bytes_of(data);
            c.updates = cprogram::bytes_of(updates);
            if (ok) {
                c.expected_output = cprogram::bytes_of(output);
                // A gather's rows beyond the count, a scatter's beyond the data count: untouched. (In place, the
                // buffer is data's first data_count rows.)
                if (!c.in_place) c.expected_output.resize(size * sizeof(T), cprogram::kSentinel);
            } else if (c.in_place) {
                c.expected_output = c.data;
            } else {
                c.expected_output.assign(size * sizeof(T), cprogram::kSentinel);
            }
        }
    });
    return c;
}

const char* const kSanitize = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all";

// Writes the kernels' files and a driver for `cases` into `dir`, compiles them with the strict flags and the
// sanitizers, runs the driver and expects every case to pass. Returns whether it did. With `avr`, the kernels are
// compiled for the ATmega2560 too (16-bit int and size_t).
bool build_and_run(const fs::path& dir, std::vector<kernelgen::OutputFile> files, const std::vector<cprogram::Case>& cases,
                   const std::string& compiler, bool avr_too) {
    std::string from_below;  // the kernels' sources, named from a folder in dir
    std::vector<std::string> names;
    for (const auto& file : files) {
        if (file.name.size() > 2 && file.name.compare(file.name.size() - 2, 2, ".c") == 0) from_below += " ../" + file.name;
        names.push_back(file.name);
    }
    const std::string unity = cprogram::unity_source(names);  // the kernels as one translation unit
    files.push_back({"driver.c", cprogram::program(cases)});
    files.push_back({"kernels.c", unity});
    fs::create_directories(dir);
    EXPECT_TRUE(kernelgen::write_outputs(dir, files).error.empty());
    int status = 0;
    // clang's batches run the row copies Cortex-M takes (KERNELGEN_COPY_WITH_BLOCKS), gcc's the host's memcpy:
    // both under the sanitizers, in every kind of kernel.
    const std::string copies = compiler.find("clang") != std::string::npos ? " -DKERNELGEN_COPY_WITH_BLOCKS" : "";
    std::string log = cprogram::run_command("cd " + dir.string() + " && " + compiler + " " + KERNELGEN_STRICT_C_FLAGS + " " +
                                      kSanitize + copies + " -I. -c kernels.c",
                                  status);
    EXPECT_EQ(status, 0) << compiler << " rejected kernels in " << dir << ":\n" << log;
    EXPECT_TRUE(log.empty()) << compiler << " warned:\n" << log;
    if (status != 0) return false;
    const std::string avr = KERNELGEN_AVR_GCC;
    if (avr_too && !avr.empty() && avr.find("NOTFOUND") == std::string::npos) {
        // Where int and size_t have 16 bits and double 32: every kernel compiles warning-free, or a float64 or
        // complex128 one refuses the target with its own #error.
        const std::string avr_log = cprogram::run_command("cd " + dir.string() + " && mkdir -p avr && cd avr && " + avr + " " +
                                                              KERNELGEN_STRICT_C_FLAGS + " -mmcu=atmega2560 -Os -c" + from_below,
                                                          status);
        std::istringstream lines(avr_log);
        for (std::string line; std::getline(lines, line);) {
            const bool problem = line.find("error:") != std::string::npos || line.find("warning:") != std::string::npos;
            EXPECT_FALSE(problem && line.find("its elements are 64-bit IEEE doubles") == std::string::npos)
                << "avr-gcc in " << dir << ": " << line;
        }
    }
    log = cprogram::run_command("cd " + dir.string() + " && " + compiler + " -std=c99 " + kSanitize + " -I. driver.c kernels.o -o driver", status);
    EXPECT_EQ(status, 0) << log;
    if (status != 0) return false;
    log = cprogram::run_command("cd " + dir.string() + " && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 ./driver", status);
    EXPECT_EQ(status, 0) << compiler << " in " << dir << ":\n" << log;
    EXPECT_NE(log.find(std::to_string(cases.size()) + " cases, 0 failed"), std::string::npos) << log;
    return status == 0;
}

// gcc and clang in turn, when clang is there.
std::string compiler_for(size_t batch) {
    const std::string clang = KERNELGEN_CLANG;
    return batch % 2 == 1 && !clang.empty() ? clang : KERNELGEN_C_COMPILER;
}

fs::path scratch(const std::string& what) {
    const fs::path root = fs::temp_directory_path() / ("kernelgen-random-" + what + "-" + std::to_string(::getpid()));
    fs::remove_all(root);
    return root;
}

void run_random_cases(const std::string& op) {
    Generator g(seed_for(op));
    Generator h(seed_for(op + " data_count"));
    Generator d(seed_for(op + " constant data"));
    size_t constant_data_cases = 0, constant_updates_cases = 0, zero_data_cases = 0;
    const size_t n = case_count();
    size_t data_count_cases = 0, two_count_cases = 0, data_count_errors = 0, data_count_constant_cases = 0;
    std::vector<cprogram::Case> cases;
    std::vector<kernelgen::KernelSpec> kernels;
    size_t errors_expected = 0, constant_cases = 0, counted_cases = 0, data_counted_cases = 0, data_counted_constant_cases = 0;
    for (size_t i = 0; i < n; ++i) {
        reference::Problem p = g.problem(op);
        const TypeRow& type = kTypes[static_cast<size_t>(g.uniform(0, kTypes.size() - 1))];
        const std::string dtype = type.name;
        if (dtype == "string") p.reduction = "none";
        if ((dtype == "complex64" || dtype == "complex128") && (p.reduction == "max" || p.reduction == "min")) {
            p.reduction = g.chance(0.5) ? "add" : "mul";
        }
        const bool int32 = g.chance(0.5);
        json spec{{"name", "random_" + op + "_" + std::to_string(i)}, {"op", op}, {"dtype", type.name},
                  {"data_shape", p.data_shape}, {"indices_shape", p.indices_shape}};
        if (std::string(type.name) == "float32" && g.chance(0.3)) spec["dtype"] = "float";  // ONNX's spelling
        if (int32 || g.chance(0.5)) spec["index_dtype"] = int32 ? "int32" : "int64";
        const bool scatter = op == "ScatterND" || op == "ScatterElements";
        if ((op == "Gather" || op == "GatherElements" || op == "ScatterElements") && (p.axis != 0 || g.chance(0.5))) spec["axis"] = p.axis;
        if (op == "GatherND" && (p.batch_dims != 0 || g.chance(0.5))) spec["batch_dims"] = p.batch_dims;
        if (scatter && (p.reduction != "none" || g.chance(0.5))) spec["reduction"] = p.reduction;
        if (scatter && g.chance(0.3)) spec["updates_shape"] = reference::updates_shape(p);
        unroll_choice(g, spec);

        const bool in_place = g.chance(0.3);
        std::vector<int64_t> indices = g.indices(p, int32);
        // Now and then the leading dimension of indices is a run-time count: the call passes a count up to
        // the bound (or above it), and the rows beyond the count hold values out of range, which the kernel
        // must not read.
        // A Gather along axis 1 or later may count data's rows instead: every index is then read and checked.
        std::optional<uint32_t> count;
        bool data_rows = false;
        const bool index_rows_countable = countable(p), data_rows_countable = data_countable(p);
        if ((index_rows_countable || data_rows_countable) && g.chance(0.2)) {
            data_rows = data_rows_countable && (!index_rows_countable || g.chance(0.5));
            spec["count"] = "runtime";
            if (data_rows) {
                spec["count_leads"] = "data";
                count = pick_count(g, p.data_shape[0]);
                ++data_counted_cases;
            } else {
                count = pick_count(g, p.indices_shape[0]);
                const auto row = static_cast<uint64_t>(reference::count(p.indices_shape) / p.indices_shape[0]);
                for (uint64_t at = uint64_t{std::min<uint32_t>(*count, static_cast<uint32_t>(p.indices_shape[0]))} * row;
                     at < indices.size(); ++at) {
                    if (g.chance(0.5)) indices[at] = int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::max();
                }
            }
            ++counted_cases;
        }
        const Generator before = g;  // a data count below remakes the case from the same draws
        cprogram::Case c = make_case(g, p, spec, type, indices, int32, in_place, count);
        // Now and then a case whose indices are all in range trusts them: "index_check": "none" must give the
        // same output, and ASan still watches every access.
        if (c.expected_status == 0 && g.chance(0.1)) {
            spec["index_check"] = "none";
            c.label = spec.dump();
        } else if (c.expected_status == 0 && (!count || data_rows) && g.chance(data_rows ? 0.4 : 0.15)) {
            // Or they are constant, given in the spec (nested or flat): the kernel resolves them when it is
            // generated, takes no indices, and must give the same output. (A count of index rows does not
            // combine with them; one of data rows does.)
            spec["indices"] = g.chance(0.5) ? nested(indices, p.indices_shape) : json(indices);
            c.label = spec.dump();
            c.constant_indices = true;
        }
        // Now and then a kernel prefetches a few tuples ahead (its tensors are too small for "auto" to): the
        // hints' addresses come from the indices too, and ASan and UBSan watch them being computed.
        if (!c.constant_indices && !count && g.chance(0.25)) {
            spec["prefetch"] = g.uniform(1, 3);
            c.label = spec.dump();
        }
        // About two in five of the kernels that can take one get a run-time data count ("data_count"), drawn from a
        // generator of their own so that every other case stays as it was: beside a count of index rows or alone,
        // the call passes 0, the bound, a value between or above it, and data of exactly its first rows.
        if (data_count_able(p) && !c.constant_indices && !data_rows && !spec.contains("prefetch") && h.chance(0.4)) {
            spec["data_count"] = "runtime";
            const uint32_t data_count = pick_count(h, p.data_shape[0]);
            indices = data_count_indices(h, p, indices, data_count, int32);
            Generator again = before;
            c = make_case(again, p, spec, type, indices, int32, in_place, count, data_count);
            if (c.expected_status != 0) spec.erase("index_check");  // unchecked, an index out of range is undefined
            // Now and then (without a count of index rows) the indices are constant, the kernel holds them and
            // checks them against the data count at run time; the generator refuses those outside data_shape.
            if (!count && !spec.contains("index_check") && h.chance(0.3)) {
                json constant = spec;
                constant["indices"] = h.chance(0.5) ? nested(indices, p.indices_shape) : json(indices);
                std::vector<kernelgen::Diagnostic> refused;
                if (kernelgen::parse_spec_text(constant.dump(), "random.json", refused).size() == 1 && refused.empty()) {
                    spec = constant;
                    c.constant_indices = true;
                    ++data_count_constant_cases;
                }
            }
            c.label = spec.dump();
            ++data_count_cases;
            two_count_cases += count.has_value();
            data_count_errors += c.expected_status == -1;
        }
        // About one gather in five holds its data: the values in the spec ("data", nested or flat), the kernel's
        // table in flash, and no data argument. Drawn from a generator of their own, as the data count's.
        if ((op == "Gather" || op == "GatherElements" || op == "GatherND") && dtype != "string" &&
            !spec.contains("data_count") && d.chance(0.2)) {
            std::vector<json> values = values_json(c.data, dtype);
            // With a count of data rows the case holds only the first `count` rows: the table's rows beyond them,
            // which the kernel must not read, hold zeros.
            const json zero = dtype == "bool" ? json(false) : dtype.rfind("complex", 0) == 0 ? json::array({0, 0}) : json(0);
            values.resize(static_cast<size_t>(reference::count(p.data_shape)), zero);
            spec["data"] = d.chance(0.5) && !p.data_shape.empty() ? json(values) : nested(values, p.data_shape);
            c.label = spec.dump();
            c.constant_data = true;
            ++constant_data_cases;
        }
        // About one scatter in four holds its data, its updates or both (the values in the spec, nested or flat):
        // no data or updates argument. Now and then the data is all zero bytes, which the kernel writes with a memset
        // and no table: the case is remade from the same draws with zero data.
        if (scatter && dtype != "string" && !spec.contains("data_count") && d.chance(0.25)) {
            const int64_t held = d.uniform(0, 2);  // 0: data, 1: updates, 2: both
            if (held != 1 && d.chance(0.3)) {
                Generator again = before;
                cprogram::Case zeros = make_case(again, p, spec, type, indices, int32, in_place, count, std::nullopt, true);
                zeros.constant_indices = c.constant_indices;
                c = std::move(zeros);
                ++zero_data_cases;
            }
            if (held != 1) {
                const std::vector<json> values = values_json(c.data, dtype);
                spec["data"] = d.chance(0.5) && !p.data_shape.empty() ? json(values) : nested(values, p.data_shape);
                c.constant_data = true;
                ++constant_data_cases;
            }
            if (held != 0) {
                const std::vector<json> values = values_json(c.updates, dtype);
                const auto shape = reference::updates_shape(p);
                spec["updates"] = d.chance(0.5) && !shape.empty() ? json(values) : nested(values, shape);
                c.constant_updates = true;
                ++constant_updates_cases;
            }
            c.label = spec.dump();
        }
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto parsed = kernelgen::parse_spec_text(spec.dump(), "random.json", diagnostics);
        ASSERT_TRUE(diagnostics.empty()) << spec.dump() << "\n" << diagnostics.front().str();
        ASSERT_EQ(parsed.size(), 1u);
        kernels.push_back(parsed.front());
        errors_expected += c.expected_status != 0;
        constant_cases += c.constant_indices;
        data_counted_constant_cases += data_rows && c.constant_indices;
        cases.push_back(std::move(c));
    }
    // Both outcomes must be exercised, or the test proves less than it claims. (A run of a few cases, set by
    // KERNELGEN_RANDOM_CASES to chase one failure, is too small for these proportions to hold.)
    if (n >= 100) {
        EXPECT_GE(errors_expected, n / 25) << "too few out-of-range cases";
        EXPECT_LT(errors_expected, n / 2) << "too few in-range cases";
        EXPECT_GT(constant_cases, n / 40) << "too few cases with constant indices";
        EXPECT_GT(counted_cases, n / 40) << "too few cases with a run-time count";
        if (op != "Scatter") {  // every operator but the deprecated one takes a data count (along axis 0)
            EXPECT_GT(data_count_cases, n / 40) << "too few cases with a run-time data count";
            EXPECT_GT(two_count_cases, 0u) << "no case with two run-time counts";
            EXPECT_GT(data_count_errors, 0u) << "no case with an index outside its run-time data count";
            EXPECT_GT(data_count_constant_cases, 0u) << "no case with a run-time data count and constant indices";
        }
        EXPECT_GT(constant_data_cases, n / 40) << "too few cases with constant data";
        if (op == "ScatterND" || op == "ScatterElements") {
            EXPECT_GT(constant_updates_cases, n / 40) << "too few cases with constant updates";
            EXPECT_GT(zero_data_cases, 0u) << "no case with constant data of zeros";
        }
        if (op == "Gather") {
            EXPECT_GT(data_counted_cases, n / 40) << "too few cases with a run-time count of data rows";
            EXPECT_GT(data_counted_constant_cases, 0u) << "no case with a count of data rows and constant indices";
        }
    }

    // NaN in max and min: 16 scatters more, drawn from a generator of their own (the cases above stay as they were),
    // one for each float type, reduction (max, min) and call (into a new output, in place), each index in range and
    // about a third of data and of the updates NaN: a NaN update meets a number in each (drawn again until it does),
    // numbers meet NaN, NaN meets NaN where indices repeat. A kernel dropping the NaN rule of either operand gives a
    // number where NaN is expected.
    if (op == "ScatterND" || op == "ScatterElements") {
        Generator v(seed_for(op + " NaN"));
        auto in_range = [](const reference::Problem& p, const std::vector<int64_t>& indices) {
            const std::vector<int64_t> bounds = index_bounds(p);
            for (size_t i = 0; i < indices.size(); ++i) {
                if (indices[i] < -bounds[i] || indices[i] >= bounds[i]) return false;
            }
            return true;
        };
        for (const std::string dtype : {"float32", "float64", "float16", "bfloat16"}) {
            const TypeRow& type = *std::find_if(kTypes.begin(), kTypes.end(), [&](const TypeRow& row) { return row.name == dtype; });
            for (const std::string reduction : {"max", "min"}) {
                for (const bool in_place : {false, true}) {
                    // Drawn again until a NaN update meets a number somewhere.
                    json spec;
                    cprogram::Case c;
                    for (bool meets = false; !meets;) {
                        const bool int32 = v.chance(0.5);
                        reference::Problem p = v.problem(op);
                        std::vector<int64_t> indices = v.indices(p, int32);
                        if (reference::count(reference::updates_shape(p)) == 0 || !in_range(p, indices)) continue;
                        p.reduction = reduction;
                        spec = json{{"name", "random_" + op + "_nan_" + std::to_string(kernels.size() - n)}, {"op", op},
                                    {"dtype", dtype}, {"data_shape", p.data_shape}, {"indices_shape", p.indices_shape},
                                    {"reduction", reduction}};
                        if (int32) spec["index_dtype"] = "int32";
                        if (op == "ScatterElements") spec["axis"] = p.axis;
                        unroll_choice(v, spec);
                        c = make_case(v, p, spec, type, indices, int32, in_place, std::nullopt, std::nullopt, false, 1.0 / 3, &meets);
                    }
                    cases.push_back(std::move(c));
                    std::vector<kernelgen::Diagnostic> diagnostics;
                    auto parsed = kernelgen::parse_spec_text(spec.dump(), "random.json", diagnostics);
                    ASSERT_TRUE(diagnostics.empty()) << spec.dump() << "\n" << diagnostics.front().str();
                    kernels.push_back(parsed.front());
                }
            }
        }
    }

    dump_cases(op, cases);
    if (cases_only()) return;
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();

    // Where each kernel's files begin among the run's (and, last, where the support files do).
    std::vector<size_t> kernel_files{0};
    for (const auto& kernel : kernels) {
        kernel_files.push_back(kernel_files.back() + (kernel.constant_data || kernel.constant_updates ? 3 : 2));
    }
    const fs::path root = scratch(op);
    const size_t batch_size = 50;
    for (size_t first = 0, batch = 0; first < cases.size(); first += batch_size, ++batch) {
        const size_t last = std::min(cases.size(), first + batch_size);
        const fs::path dir = root / ("batch" + std::to_string(batch));
        // The batch's kernels (a .h and a .c each, and a kernel with constant data its table's file) and the
        // support files, which close the run's files.
        std::vector<kernelgen::OutputFile> files(result.files.begin() + static_cast<std::ptrdiff_t>(kernel_files[first]),
                                                 result.files.begin() + static_cast<std::ptrdiff_t>(kernel_files[last]));
        files.insert(files.end(), result.files.end() - 2, result.files.end());
        const std::vector<cprogram::Case> slice(cases.begin() + static_cast<std::ptrdiff_t>(first),
                                                cases.begin() + static_cast<std::ptrdiff_t>(last));
        // The first batch compiles for the ATmega2560 too (on_target_atmega2560 runs 40 random kernels per operator
        // there as well): 16-bit int and size_t, whatever the shapes.
        if (build_and_run(dir, files, slice, compiler_for(batch), batch == 0)) fs::remove_all(dir);
    }
    if (!::testing::Test::HasFailure()) fs::remove_all(root);
}

// Hostile indices, systematically: for kernels of every operator (int32 and int64 indices, each unroll
// mode, ScatterND in place and not), every value of a hostile list at each index position in turn, the
// others in range. Each run must give the reference's output or the error code with the output untouched,
// under ASan and UBSan: in particular no overflow while a value is wrapped or scaled.
void run_hostile_cases(bool int32) {
    const int64_t low = int32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    const int64_t high = int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    struct Shape {
        const char* op;
        std::vector<int64_t> data, indices;
        int64_t axis = 0, batch_dims = 0;
        const char* reduction = "none";
        bool auto_only = false;
    };
    const std::vector<Shape> shapes{
        {"Gather", {5, 3}, {2, 2}, 0},
        {"Gather", {2, 7}, {3}, -1},
        {"GatherElements", {4, 3}, {2, 3}, 0},
        {"GatherElements", {3, 6}, {3, 2}, -1},
        {"GatherND", {4, 3, 2}, {2, 2}},
        {"GatherND", {2, 5, 3}, {2, 2, 1}, 0, 1},
        {"ScatterND", {6, 2}, {3, 1}, 0, 0, "none"},
        {"ScatterND", {3, 4}, {2, 2}, 0, 0, "add"},
        {"ScatterND", {5}, {4, 1}, 0, 0, "max"},
        {"ScatterElements", {4, 3}, {2, 3}, 0, 0, "none"},
        {"ScatterElements", {3, 5}, {3, 2}, -1, 0, "add"},
        // Power-of-two ranges, where "auto" checks int32 values by their ORed offsets (the other modes, as above):
        // 4 a turn (12 values), one a turn (6).
        {"Gather", {8, 3}, {3, 4}, 0, 0, "none", true},
        {"GatherElements", {2, 16}, {1, 12}, 1, 0, "none", true},
        {"ScatterND", {4, 4, 2}, {3, 2}, 0, 0, "add", true}};
    const std::array<const char*, 3> unrolls{"auto", "none", "full"};
    Generator g(seed_for(int32 ? "hostile32" : "hostile64"));
    std::vector<cprogram::Case> cases;
    std::vector<kernelgen::KernelSpec> kernels;
    size_t refused = 0;
    for (size_t s = 0; s < shapes.size(); ++s) {
        for (size_t u = 0; u < unrolls.size(); ++u) {
            const Shape& shape = shapes[s];
            if (shape.auto_only && std::string(unrolls[u]) != "auto") continue;
            reference::Problem p;
            p.op = shape.op;
            p.data_shape = shape.data;
            p.indices_shape = shape.indices;
            p.axis = shape.axis;
            p.batch_dims = shape.batch_dims;
            p.reduction = shape.reduction;
            const TypeRow& type = kTypes[(s + u) % kTypes.size()];
            if (std::string(type.name) == "string" && p.reduction != "none") continue;
            if ((std::string(type.name) == "complex64" || std::string(type.name) == "complex128") && p.reduction == "max") continue;
            json spec{{"name", std::string("hostile_") + (int32 ? "i32_" : "i64_") + std::to_string(s) + "_" + unrolls[u]},
                      {"op", p.op}, {"dtype", type.name}, {"index_dtype", int32 ? "int32" : "int64"},
                      {"data_shape", p.data_shape}, {"indices_shape", p.indices_shape}, {"unroll", unrolls[u]}};
            if (p.op == "Gather" || p.op == "GatherElements" || p.op == "ScatterElements") spec["axis"] = p.axis;
            if (p.op == "GatherND") spec["batch_dims"] = p.batch_dims;
            if (p.op == "ScatterND" || p.op == "ScatterElements") spec["reduction"] = p.reduction;
            // With "none" and "full", each copy also prefetches the next tuple's block, from the extreme values.
            if (u != 0) spec["prefetch"] = 1;
            std::vector<kernelgen::Diagnostic> diagnostics;
            auto parsed = kernelgen::parse_spec_text(spec.dump(), "hostile.json", diagnostics);
            ASSERT_TRUE(diagnostics.empty()) << spec.dump() << "\n" << diagnostics.front().str();
            kernels.push_back(parsed.front());

            const std::vector<int64_t> bounds = index_bounds(p);
            for (size_t at = 0; at < bounds.size(); ++at) {
                const int64_t b = bounds[at];
                std::vector<int64_t> values{low, low + 1, -b - 1, -b, int64_t{-1}, int64_t{0}, b - 1, b, b + 1, high - 1, high};
                if (!int32) {
                    // Values whose low word alone is in range (the check by words of kernelgen_support.h, on AVR).
                    const int64_t word = int64_t{1} << 32;
                    values.insert(values.end(), {word, word - 1, word + b - 1, -word, -word - b});
                }
                for (int64_t value : values) {
                    std::vector<int64_t> indices;
                    for (int64_t bound : bounds) indices.push_back(g.uniform(-bound, bound - 1));
                    indices[at] = value;
                    cases.push_back(make_case(g, p, spec, type, indices, int32, g.chance(0.5)));
                    refused += cases.back().expected_status != 0;
                }
            }
        }
    }
    EXPECT_GT(refused, cases.size() / 3);
    EXPECT_LT(refused, cases.size() * 4 / 5);
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    // One compiler each, both sanitizer runtimes over the two tests: int32 indices with clang (when it is there),
    // int64 with gcc, which also compiles them for the ATmega2560.
    const fs::path root = scratch(int32 ? "hostile32" : "hostile64");
    const fs::path dir = root / "kernels";
    if (build_and_run(dir, result.files, cases, compiler_for(int32 ? 1 : 0), !int32)) fs::remove_all(dir);
    if (!::testing::Test::HasFailure()) fs::remove_all(root);
}

// Three kernels whose tables (30,000 bytes each, given in the spec) take 90,000 bytes of flash together, more than
// the 64 KB a 16-bit address reaches on AVR: every row of each, by positive and negative indices, and an index out
// of range, on the host with the sanitizers and (its cases dumped like the random ones) on every emulated board,
// where the ATmega2560 reads them with ELPM wherever the linker put them. Values: (7i + 13k) mod 251 for element
// i of table k, checked against that formula.
TEST(RandomKernels, TablesBeyond64KB) {
    constexpr int64_t kRows = 300, kColumns = 100;
    std::map<std::string, json> specs;
    std::vector<cprogram::Case> cases;
    std::vector<kernelgen::KernelSpec> kernels;
    for (int64_t k = 0; k < 3; ++k) {
        std::vector<int64_t> values(static_cast<size_t>(kRows * kColumns));
        for (size_t i = 0; i < values.size(); ++i) values[i] = (7 * static_cast<int64_t>(i) + 13 * k) % 251;
        const std::string name = "far_table_" + std::to_string(k);
        const json spec{{"name", name}, {"op", "Gather"}, {"dtype", "uint8"}, {"data_shape", {kRows, kColumns}},
                        {"indices_shape", {3}}, {"data", values}};
        specs[name] = spec;
        std::vector<uint8_t> table(values.begin(), values.end());  // what the kernel holds, for the ONNX Runtime cross-check
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto parsed = kernelgen::parse_spec_text(spec.dump(), "far.json", diagnostics);
        ASSERT_TRUE(diagnostics.empty()) << diagnostics.front().str();
        kernels.push_back(parsed.front());
        auto add = [&](std::vector<int64_t> indices, bool in_range) {
            cprogram::Case c;
            c.kernel = name;
            c.label = name + " rows " + std::to_string(indices[0]) + ", " + std::to_string(indices[1]) + ", " +
                      std::to_string(indices[2]);
            c.constant_data = true;
            c.element_size = 1;
            c.data = table;
            c.indices = cprogram::bytes_of(indices);
            c.expected_status = in_range ? 0 : -1;
            c.expected_output.assign(static_cast<size_t>(3 * kColumns), cprogram::kSentinel);
            for (size_t r = 0; in_range && r < 3; ++r) {
                const int64_t row = indices[r] < 0 ? indices[r] + kRows : indices[r];
                for (int64_t j = 0; j < kColumns; ++j) {
                    c.expected_output[r * static_cast<size_t>(kColumns) + static_cast<size_t>(j)] =
                        static_cast<uint8_t>((7 * (row * kColumns + j) + 13 * k) % 251);
                }
            }
            cases.push_back(std::move(c));
        };
        for (int64_t row = 0; row < kRows; row += 30) add({row, kRows - 1 - row, -1 - row}, true);
        add({0, kRows, 1}, false);
    }
    dump_cases("TablesBeyond64KB", cases, &specs);
    if (cases_only()) return;
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    const fs::path root = scratch("far");
    if (build_and_run(root / "kernels", result.files, cases, compiler_for(0), true)) fs::remove_all(root);
}

// Random Gathers of run-time extents ("runtime_axes"): 60 kernels of every element type but string, data of rank 1 to
// 4 (bounds up to 5, at most 96 elements), any axis (negative too), a random set of the axes from it on run-time, int32 and int64
// indices, every unroll setting; each called at 4 sets of extents, each from 0 to its bound (now and then one above
// it: the extent's error, -4 for the first), with indices mostly in range of the extent passed at the gather axis and
// now and then hostile. The reference runs on data of the extents passed, which the case passes as an exactly-sized
// buffer, as it does the output. The cases are dumped like the random ones: the boards run them too.
TEST(RandomKernels, RunTimeExtents) {
    Generator g(seed_for("runtime_axes"));
    std::map<std::string, json> specs;
    std::vector<cprogram::Case> cases;
    std::vector<kernelgen::KernelSpec> kernels;
    for (int k = 0; k < 60; ++k) {
        const TypeRow& type = kTypes[static_cast<size_t>(k) % (kTypes.size() - 1)];  // not string, the last
        reference::Problem bound;
        int64_t rank = 0;
        do {  // tensors of at most 96 elements at the bounds, as the other random problems (the boards' RAM)
            rank = g.uniform(1, 4);
            bound = reference::Problem{};
            bound.op = "Gather";
            for (int64_t i = 0; i < rank; ++i) bound.data_shape.push_back(g.uniform(1, 5));
            bound.indices_shape = g.shape(static_cast<size_t>(g.uniform(0, 2)));
            bound.axis = g.uniform(-rank, rank - 1);
        } while (reference::count(bound.data_shape) > 96 || reference::count(reference::output_shape(bound)) > 96);
        const auto axis = static_cast<size_t>(bound.axis < 0 ? bound.axis + rank : bound.axis);
        std::vector<size_t> runtime;  // normalized, ascending; given in the spec negative now and then
        json listed = json::array();
        for (auto a = axis; a < static_cast<size_t>(rank); ++a) {
            if (!g.chance(0.6)) continue;
            runtime.push_back(a);
            listed.push_back(g.chance(0.3) ? static_cast<int64_t>(a) - rank : static_cast<int64_t>(a));
        }
        if (runtime.empty()) {
            runtime.push_back(axis);
            listed.push_back(static_cast<int64_t>(axis));
        }
        const bool int32 = g.chance(0.5);
        const std::string name = "extents_" + std::to_string(k);
        json spec{{"name", name}, {"op", "Gather"}, {"dtype", type.name}, {"data_shape", bound.data_shape},
                  {"indices_shape", bound.indices_shape}, {"axis", bound.axis}, {"runtime_axes", listed},
                  {"index_dtype", int32 ? "int32" : "int64"}};
        unroll_choice(g, spec);
        specs[name] = spec;
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto parsed = kernelgen::parse_spec_text(spec.dump(), "extents.json", diagnostics);
        ASSERT_TRUE(diagnostics.empty()) << diagnostics.front().str();
        kernels.push_back(parsed.front());
        for (int call = 0; call < 4; ++call) {
            reference::Problem p = bound;  // at the extents passed
            std::vector<uint32_t> extents;
            int status = 0;
            for (size_t i = 0; i < runtime.size(); ++i) {
                const int64_t b = bound.data_shape[runtime[i]];
                int64_t e = call == 0 ? b : g.uniform(0, b);
                if (call > 0 && g.chance(0.08)) e = b + g.uniform(1, 3);
                if (e > b && status == 0) status = -4 - static_cast<int>(i);
                extents.push_back(static_cast<uint32_t>(e));
                p.data_shape[runtime[i]] = e;
            }
            const std::vector<int64_t> indices = g.indices(p, int32);
            cprogram::Case c;
            c.kernel = name;
            c.label = spec.dump();
            c.data_dims = extents;
            c.compare = type.compare;
            c.element_size = type.size;
            c.indices = cprogram::bytes_of(indices);
            if (int32) {
                std::vector<int32_t> narrow(indices.begin(), indices.end());
                c.indices = cprogram::bytes_of(narrow);
            }
            with_type(type.name, [&](auto zero) {
                using T = decltype(zero);
                if constexpr (!std::is_same_v<T, std::string>) {
                    const auto data = g.values<T>(static_cast<size_t>(reference::count(p.data_shape)), "d");
                    std::vector<T> output;
                    const bool ok = status == 0 && reference::run(p, data, indices, {}, output);
                    c.data = cprogram::bytes_of(data);
                    c.expected_status = ok ? 0 : status != 0 ? status : -1;
                    const auto size = static_cast<size_t>(reference::count(reference::output_shape(p)));
                    if (ok) c.expected_output = cprogram::bytes_of(output);
                    else c.expected_output.assign(size * sizeof(T), cprogram::kSentinel);
                }
            });
            cases.push_back(std::move(c));
        }
    }
    dump_cases("RunTimeExtents", cases, &specs);
    if (cases_only()) return;
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    for (size_t batch = 0; batch < 2; ++batch) {
        const fs::path root = scratch("extents-" + std::to_string(batch));
        if (build_and_run(root / "kernels", result.files, cases, compiler_for(batch), batch == 0)) fs::remove_all(root);
    }
}

// Random quantized tables ("quantization"): 50 Gathers along axis 0 whose int8, uint8, int4 or uint4 table (given in the
// spec, nested or flat) dequantizes to float32, float16 or bfloat16 with one scale, a scale per index along any axis,
// or blocks along any axis (a partial last block included), without zero points, with one, or with one per scale;
// int32 and int64 indices, negative and out-of-range ones. The expected outputs come from reference::dequantize
// (coordinates and ONNX's formula, exact products rounded once) and a plain row copy. Three kernels hold tables of
// 30,000 values (int8, uint8, int4: 30,000, 30,000 and 15,000 bytes), so that on the ATmega2560 (its cases dumped like
// the random ones) some lie beyond 64 KB of flash.
TEST(RandomKernels, QuantizedTables) {
    Generator g(seed_for("quantized tables"));
    const size_t n = case_count() / 4;
    std::map<std::string, json> specs;
    std::vector<cprogram::Case> cases;
    std::vector<kernelgen::KernelSpec> kernels;
    static const std::array<const char*, 4> qtypes{"int8", "uint8", "int4", "uint4"};
    static const std::array<const char*, 3> dtypes{"float32", "float16", "bfloat16"};
    size_t blocked = 0, per_axis = 0, zero_tables = 0, errors = 0;
    for (size_t i = 0; i < n + 3; ++i) {
        const bool large = i >= n;  // the three 30,000-byte tables
        const std::string qtype = large ? qtypes[i - n] : qtypes[static_cast<size_t>(g.uniform(0, 3))];
        const std::string dtype = dtypes[static_cast<size_t>(g.uniform(0, 2))];
        const bool four = qtype == "int4" || qtype == "uint4", is_signed = qtype[0] == 'i';
        const int64_t low = is_signed ? (four ? -8 : -128) : 0, high = four ? (is_signed ? 7 : 15) : (is_signed ? 127 : 255);
        reference::Shape data_shape = large ? reference::Shape{300, 100} : g.shape(static_cast<size_t>(g.uniform(1, 3)));
        const auto rank = static_cast<int64_t>(data_shape.size());
        const int64_t axis = g.chance(0.2) ? -1 : g.uniform(0, rank - 1);
        int64_t block = 0;
        if (axis >= 0 && g.chance(0.6)) block = g.uniform(1, std::max<int64_t>(data_shape[static_cast<size_t>(axis)], 1));
        blocked += block > 0;
        per_axis += axis >= 0 && block == 0;
        reference::Shape scale_shape;
        if (axis >= 0 && block == 0) scale_shape = {data_shape[static_cast<size_t>(axis)]};
        if (block > 0) {
            scale_shape = data_shape;
            scale_shape[static_cast<size_t>(axis)] = (data_shape[static_cast<size_t>(axis)] + block - 1) / block;
        }
        // Scales m * 2^e, exact in the output type (m of up to 24, 11 or 8 bits; float16 ones multiples of 2^-24, its
        // least subnormal), so that products need rounding;
        // float16's overflow now and then, and its small ones are subnormal.
        std::vector<double> scales;
        const int64_t most = dtype == "float32" ? (1 << 24) - 1 : dtype == "float16" ? 2047 : 255;
        for (int64_t k = 0; k < reference::count(scale_shape); ++k) {
            const double m = static_cast<double>(g.uniform(1, most)) * (g.chance(0.3) ? -1 : 1);
            const int64_t e = dtype == "float16" ? g.uniform(-24, -6) : dtype == "float32" ? g.uniform(-40, -10) : g.uniform(-30, 10);
            scales.push_back(std::ldexp(m, static_cast<int>(e)));
        }
        std::vector<int32_t> zeros;
        const int64_t zero_mode = g.uniform(0, 2);  // none, one, one per scale
        if (zero_mode == 1) zeros.push_back(static_cast<int32_t>(g.uniform(low, high)));
        if (zero_mode == 2) {
            for (int64_t k = 0; k < reference::count(scale_shape); ++k) zeros.push_back(static_cast<int32_t>(g.uniform(low, high)));
        }
        zero_tables += zero_mode == 2;
        std::vector<int32_t> values;
        for (int64_t k = 0; k < reference::count(data_shape); ++k) values.push_back(static_cast<int32_t>(g.uniform(low, high)));
        const std::string name = "quantized_" + std::to_string(i);
        json quantization{{"type", qtype}};
        if (axis >= 0) quantization["axis"] = g.chance(0.3) ? axis - rank : axis;
        if (block > 0 || (axis >= 0 && g.chance(0.2))) quantization["block_size"] = block;
        quantization["scales"] = g.chance(0.5) || scale_shape.empty() ? json(scales) : nested(scales, scale_shape);
        if (zero_mode == 1) quantization["zero_points"] = zeros.front();
        if (zero_mode == 2) quantization["zero_points"] = nested(zeros, scale_shape);
        reference::Problem p;
        p.op = "Gather";
        p.data_shape = data_shape;
        p.indices_shape = large ? reference::Shape{3} : g.shape(static_cast<size_t>(g.uniform(0, 2)));
        p.axis = 0;
        const bool int32 = g.chance(0.5);
        std::vector<int64_t> indices = g.indices(p, int32);
        json spec{{"name", name}, {"op", "Gather"}, {"dtype", dtype}, {"data_shape", data_shape},
                  {"indices_shape", p.indices_shape}, {"index_dtype", int32 ? "int32" : "int64"},
                  {"data", g.chance(0.5) ? json(values) : nested(values, data_shape)}, {"quantization", quantization}};
        unroll_choice(g, spec);
        specs[name] = spec;
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto parsed = kernelgen::parse_spec_text(spec.dump(), "quantized.json", diagnostics);
        ASSERT_TRUE(diagnostics.empty()) << spec.dump() << "\n" << diagnostics.front().str();
        kernels.push_back(parsed.front());

        // The expected output: the table dequantized whole, then its rows gathered.
        const reference::Shape out_shape = reference::output_shape(p);
        const halfref::Format format = dtype == "float16" ? halfref::kFloat16 : halfref::kBFloat16;
        double (*round)(double) = dtype == "float32" ? +[](double x) { return static_cast<double>(static_cast<float>(x)); }
                                  : dtype == "float16" ? +[](double x) { return halfref::to_double(halfref::from_double(x, halfref::kFloat16), halfref::kFloat16); }
                                                       : +[](double x) { return halfref::to_double(halfref::from_double(x, halfref::kBFloat16), halfref::kBFloat16); };
        const std::vector<double> table = reference::dequantize(data_shape, values, axis, block, scales, zeros, round);
        const size_t width = dtype == "float32" ? 4 : 2;
        cprogram::Case c;
        c.kernel = name;
        // A short label (a program on a target embeds it as a string): the spec is in the dump and the test's output.
        c.label = name + ": " + qtype + " " + json(data_shape).dump() + " to " + dtype + ", " + quantization.value("axis", json("no axis")).dump() +
                  " axis, block " + std::to_string(block) + ", zero points " + std::to_string(zeros.size());
        c.constant_data = true;
        c.compare = dtype == "float32" ? cprogram::Compare::Float : dtype == "float16" ? cprogram::Compare::Float16 : cprogram::Compare::BFloat16;
        c.element_size = width;
        for (int64_t v : indices) {
            if (int32) {
                const auto bytes = cprogram::bytes_of(std::vector<int32_t>{static_cast<int32_t>(v)});
                c.indices.insert(c.indices.end(), bytes.begin(), bytes.end());
            } else {
                const auto bytes = cprogram::bytes_of(std::vector<int64_t>{v});
                c.indices.insert(c.indices.end(), bytes.begin(), bytes.end());
            }
        }
        const int64_t rows = data_shape[0], row = reference::count(data_shape) / std::max<int64_t>(rows, 1);
        const bool in_range = std::all_of(indices.begin(), indices.end(), [&](int64_t v) { return v >= -rows && v < rows; });
        c.expected_status = in_range ? 0 : -1;
        errors += !in_range;
        c.expected_output.assign(static_cast<size_t>(reference::count(out_shape)) * width, cprogram::kSentinel);
        for (size_t t = 0; in_range && t < indices.size(); ++t) {
            const int64_t r = indices[t] < 0 ? indices[t] + rows : indices[t];
            for (int64_t j = 0; j < (rows > 0 ? row : 0); ++j) {
                const double value = table[static_cast<size_t>(r * row + j)];
                const size_t at = (t * static_cast<size_t>(row) + static_cast<size_t>(j)) * width;
                if (width == 4) {
                    const auto f = static_cast<float>(value);
                    std::memcpy(c.expected_output.data() + at, &f, 4);
                } else {
                    const uint16_t bits = halfref::from_double(value, format);
                    std::memcpy(c.expected_output.data() + at, &bits, 2);
                }
            }
        }
        cases.push_back(std::move(c));
    }
    if (n >= 40) {
        EXPECT_GT(blocked, n / 10) << "too few blocked tables";
        EXPECT_GT(per_axis, n / 10) << "too few tables with a scale per index";
        EXPECT_GT(zero_tables, n / 10) << "too few tables of zero points";
        EXPECT_GT(errors, n / 25) << "too few out-of-range cases";
        EXPECT_LT(errors, n / 2) << "too few in-range cases";
    }
    dump_cases("QuantizedTables", cases, &specs);
    if (cases_only()) return;
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    const fs::path root = scratch("quantized");
    if (build_and_run(root / "kernels", result.files, cases, compiler_for(0), true)) fs::remove_all(root);
}

// TensorScatter: random caches (batch, heads, sequence, features in 2 to 4 axes, the sequence axis anywhere after
// the batch), every element type, linear and circular, int32 and int64 write indices: mostly valid (both edges of
// linear's 0..max - length, any value from 0 for circular, INT64_MAX and INT32_MAX among them), now and then hostile
// (negative, INT64_MIN, one past the linear edge). Some in place, some with constant write indices; against the
// reference's corrected circular mode (only the sequence coordinate wraps).
TEST(RandomKernels, TensorScatter) {
    Generator g(seed_for("tensor scatter"));
    const size_t n = case_count() / 2;
    std::vector<cprogram::Case> cases;
    std::vector<kernelgen::KernelSpec> kernels;
    size_t errors = 0, circular = 0, wrapped = 0, in_place_cases = 0, constant = 0, large_prefix = 0;
    for (size_t i = 0; i < n; ++i) {
        reference::Problem p;
        p.op = "TensorScatter";
        const auto rank = static_cast<size_t>(g.uniform(2, 4));
        p.data_shape.push_back(g.uniform(1, 5));
        for (size_t d = 1; d < rank; ++d) p.data_shape.push_back(g.uniform(1, 4));
        const int64_t axis = g.uniform(1, static_cast<int64_t>(rank) - 1);
        p.axis = g.chance(0.5) ? axis - static_cast<int64_t>(rank) : axis;
        const int64_t max = p.data_shape[static_cast<size_t>(axis)];
        p.update_shape = p.data_shape;
        p.update_shape[static_cast<size_t>(axis)] = g.uniform(0, max);
        const int64_t length = p.update_shape[static_cast<size_t>(axis)];
        p.mode = g.chance(0.5) ? "circular" : "linear";
        p.indices_shape = {p.data_shape[0]};
        // The corrected circular mode differs from the old reference where a prefix coordinate reaches max.
        large_prefix += p.mode == "circular" && std::any_of(p.data_shape.begin(), p.data_shape.begin() + axis, [&](int64_t d) { return d >= max; });
        const TypeRow& type = kTypes[static_cast<size_t>(g.uniform(0, kTypes.size() - 1))];
        const bool int32 = g.chance(0.5);
        const int64_t type_max = int32 ? INT32_MAX : INT64_MAX, type_min = int32 ? INT32_MIN : INT64_MIN;
        std::vector<int64_t> indices;
        for (int64_t b = 0; b < p.data_shape[0]; ++b) {
            if (p.mode == "linear") {
                indices.push_back(g.chance(0.3) ? (g.chance(0.5) ? 0 : max - length) : g.uniform(0, max - length));
            } else {
                const std::array<int64_t, 4> far{type_max, type_max - 1, INT32_MAX, 1000003};
                indices.push_back(g.chance(0.25) ? far[static_cast<size_t>(g.uniform(0, 3))] : g.uniform(0, 3 * max));
            }
        }
        if (g.chance(0.25)) {
            const std::array<int64_t, 4> hostile{-1, type_min, p.mode == "linear" ? max - length + 1 : -max, type_min + 1};
            indices[static_cast<size_t>(g.uniform(0, static_cast<int64_t>(indices.size()) - 1))] = hostile[static_cast<size_t>(g.uniform(0, 3))];
        }
        for (int64_t w : indices) wrapped += p.mode == "circular" && w >= 0 && w % std::max<int64_t>(max, 1) + length > max;
        const std::string name = "random_TensorScatter_" + std::to_string(i);
        json spec{{"name", name}, {"op", "TensorScatter"}, {"dtype", type.name}, {"data_shape", p.data_shape},
                  {"indices_shape", p.indices_shape}, {"updates_shape", p.update_shape}};
        if (p.axis != -2 || g.chance(0.5)) spec["axis"] = p.axis;
        if (p.mode == "circular" || g.chance(0.5)) spec["mode"] = p.mode;
        if (int32 || g.chance(0.5)) spec["index_dtype"] = int32 ? "int32" : "int64";
        unroll_choice(g, spec);
        const bool in_place = g.chance(0.3);
        cprogram::Case c = make_case(g, p, spec, type, indices, int32, in_place);
        if (c.expected_status == 0 && g.chance(0.15)) {
            spec["indices"] = indices;
            c.label = spec.dump();
            c.constant_indices = true;
            ++constant;
        }
        std::vector<kernelgen::Diagnostic> diagnostics;
        auto parsed = kernelgen::parse_spec_text(spec.dump(), "random.json", diagnostics);
        ASSERT_TRUE(diagnostics.empty()) << spec.dump() << "\n" << diagnostics.front().str();
        kernels.push_back(parsed.front());
        errors += c.expected_status != 0;
        circular += p.mode == "circular";
        in_place_cases += c.in_place;
        cases.push_back(std::move(c));
    }
    if (n >= 100) {
        EXPECT_GE(errors, n / 25) << "too few refused write indices";
        EXPECT_LT(errors, n / 2) << "too few valid write indices";
        EXPECT_GT(circular, n / 4) << "too few circular caches";
        EXPECT_GT(wrapped, n / 20) << "too few circular writes that wrap";
        EXPECT_GT(large_prefix, 0u) << "no circular cache whose prefix reaches its sequence length (onnx/onnx#8353)";
        EXPECT_GT(in_place_cases, n / 10) << "too few in-place updates";
        EXPECT_GT(constant, 0u) << "no case with constant write indices";
    }
    dump_cases("TensorScatter", cases);
    if (cases_only()) return;
    kernelgen::GenerateResult result = kernelgen::generate(kernels);
    ASSERT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().str();
    const fs::path root = scratch("TensorScatter");
    std::vector<kernelgen::OutputFile> files = result.files;
    if (build_and_run(root / "kernels", files, cases, compiler_for(0), true)) fs::remove_all(root);
}

TEST(RandomKernels, Gather) { run_random_cases("Gather"); }
TEST(RandomKernels, GatherElements) { run_random_cases("GatherElements"); }
TEST(RandomKernels, GatherND) { run_random_cases("GatherND"); }
TEST(RandomKernels, ScatterND) { run_random_cases("ScatterND"); }
TEST(RandomKernels, ScatterElements) { run_random_cases("ScatterElements"); }
TEST(HostileIndices, Int32) { run_hostile_cases(true); }
TEST(HostileIndices, Int64) { run_hostile_cases(false); }

}  // namespace
