// The benchmark cases of bench/specs/, each callable three ways, and memcpy in pieces (see cases.h).
#include "cases.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include <sys/mman.h>

#include "big_embedding.h"
#include "big_gather_elements.h"
#include "big_gather_nd.h"
#include "big_scatter_nd_add.h"
#include "emb_gather_axis1.h"
#include "emb_gather_elements.h"
#include "emb_gather_nd.h"
#include "emb_gather_nd_batch.h"
#include "emb_gather_rows.h"
#include "emb_gather_rows_small.h"
#include "emb_scatter_nd.h"
#include "emb_scatter_nd_add.h"
#include "runtime_shaped.h"

namespace bench {
namespace {

using Dims = std::vector<int32_t>;

// Where the tensors live. Every tensor starts on a 64-byte cache line, as ONNX Runtime's CPU allocator and a
// firmware's arena put them (malloc's 16-byte alignment splits each row of whole cache lines over one line
// more). A tensor of 64 KiB or more gets transparent huge pages where Linux offers them, so that its bytes are
// physically contiguous, as a microcontroller's memory is: with 4 KiB pages, which physical pages a run happens
// to get decides how the tensors share the L2's sets, and big_gather_nd's time changed by half from one run of
// the benchmark to the next (see README, "Speed and size").
constexpr size_t kCacheLine = 64;
constexpr size_t kHugePage = size_t{2} << 20;

inline size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

inline void* allocate_tensor(size_t bytes) {
    const size_t alignment = bytes >= (size_t{64} << 10) ? kHugePage : kCacheLine;
    void* p = std::aligned_alloc(alignment, round_up(bytes == 0 ? 1 : bytes, alignment));
    if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (alignment == kHugePage) madvise(p, round_up(bytes, alignment), MADV_HUGEPAGE);
#endif
    return p;
}

template <class T>
struct TensorAllocator {
    using value_type = T;
    TensorAllocator() = default;
    template <class U>
    TensorAllocator(const TensorAllocator<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(allocate_tensor(n * sizeof(T))); }
    void deallocate(T* p, size_t) { std::free(p); }
    template <class U>
    bool operator==(const TensorAllocator<U>&) const { return true; }
    template <class U>
    bool operator!=(const TensorAllocator<U>&) const { return false; }
};

template <class T>
using Tensor = std::vector<T, TensorAllocator<T>>;

size_t count(const Dims& dims) {
    size_t n = 1;
    for (int32_t d : dims) n *= static_cast<size_t>(d);
    return n;
}

// The tensors of one case, shared by its three calls.
struct Tensors {
    Dims data_dims, indices_dims;
    Tensor<float> data, updates, output;
    Tensor<int32_t> indices;
    std::vector<int32_t> bounds;  // the axis size each index value is checked against, value by value

    rs_shape data_shape() const { return {data_dims.data(), static_cast<int>(data_dims.size())}; }
    rs_shape indices_shape() const { return {indices_dims.data(), static_cast<int>(indices_dims.size())}; }
};

// How a case's index values are drawn.
enum class Order {
    random,    // over [-s, s-1] from a fixed seed
    in_order,  // tuple t addresses the t-th slice of data in row-major order (0, 1, 2, ...): the kernel then
               // reads exactly the bytes the memcpy baseline reads, in the same order
    few_rows,  // tuple t addresses one of data's first kFewSlices slices, drawn from a fixed seed: the kernel
               // then copies as many bytes as with `random`, from a small part of data (32 KiB for big_gather_nd)
};
constexpr size_t kFewSlices = 128;

// data and updates with distinct values; indices as `order` says.
std::shared_ptr<Tensors> make_tensors(Dims data_dims, Dims indices_dims, std::vector<int32_t> bounds_of_tuple,
                                      size_t output_size, size_t updates_size, Order order = Order::random) {
    auto t = std::make_shared<Tensors>();
    t->data_dims = std::move(data_dims);
    t->indices_dims = std::move(indices_dims);
    t->data.resize(count(t->data_dims));
    for (size_t i = 0; i < t->data.size(); ++i) t->data[i] = static_cast<float>(i % 1000003) * 0.5f;
    t->updates.resize(updates_size);
    for (size_t i = 0; i < t->updates.size(); ++i) t->updates[i] = static_cast<float>(i % 97) + 0.25f;
    t->output.assign(output_size, 0.0f);
    t->indices.resize(count(t->indices_dims));
    t->bounds.resize(t->indices.size());
    uint32_t state = 2024u;
    for (size_t i = 0; i < t->indices.size(); ++i) {
        const int32_t s = bounds_of_tuple[i % bounds_of_tuple.size()];
        state = state * 1664525u + 1013904223u;
        t->bounds[i] = s;
        t->indices[i] = static_cast<int32_t>((state >> 8) % static_cast<uint32_t>(2 * s)) - s;
    }
    if (order != Order::random) {
        // The digits of the slice's number, in the mixed radix of the bounds (last component fastest).
        const size_t k = bounds_of_tuple.size();
        for (size_t tuple = 0; tuple < t->indices.size() / k; ++tuple) {
            size_t rest = tuple;
            if (order == Order::few_rows) {
                state = state * 1664525u + 1013904223u;
                rest = (state >> 8) % kFewSlices;
            }
            for (size_t c = k; c-- > 0;) {
                const auto s = static_cast<size_t>(bounds_of_tuple[c]);
                t->indices[tuple * k + c] = static_cast<int32_t>(rest % s);
                rest /= s;
            }
        }
    }
    return t;
}

// One way of computing the case into `output`: returns the kernel's status.
using Call = std::function<int(const Tensors&, float* output)>;

std::string compare(const std::string& what, int a, int b, const Tensor<float>& x, const Tensor<float>& y) {
    if (a != b) return what + ": return codes " + std::to_string(a) + " and " + std::to_string(b);
    if (std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) != 0) {
        for (size_t i = 0; i < x.size(); ++i) {
            if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0) {
                return what + ": output element " + std::to_string(i) + " is " + std::to_string(x[i]) + " and " +
                       std::to_string(y[i]);
            }
        }
    }
    return "";
}

std::string agreement(Tensors& t, const Call& kernel, const Call& runtime) {
    Tensor<float> a(t.output.size(), -7.0f), b(t.output.size(), -7.0f);
    std::string problem = compare("in range", kernel(t, a.data()), runtime(t, b.data()), a, b);
    if (!problem.empty() || t.indices.empty()) return problem;
    // One value past its axis, in the middle: both refuse and leave the output as it was.
    const size_t middle = t.indices.size() / 2;
    const int32_t saved = t.indices[middle];
    t.indices[middle] = t.bounds[middle];
    std::fill(a.begin(), a.end(), -7.0f);
    std::fill(b.begin(), b.end(), -7.0f);
    const int ka = kernel(t, a.data()), rb = runtime(t, b.data());
    t.indices[middle] = saved;
    if (ka != -1) return "out of range: kernelgen returned " + std::to_string(ka);
    problem = compare("out of range", ka, rb, a, b);
    if (problem.empty() && a != Tensor<float>(a.size(), -7.0f)) problem = "out of range: output written";
    return problem;
}

// How the baselines move bytes: one memcpy call, or memcpy in pieces of kPiece bytes.
using Copy = void (*)(void* to, const void* from, size_t bytes);
constexpr size_t kPiece = 256;

void copy_whole(void* to, const void* from, size_t bytes) { std::memcpy(to, from, bytes); }

// Calls of kPiece bytes are what a gather's row copies are (big_gather_nd's rows are 256 bytes), and glibc
// moves them with vector loads and stores; one large call it may move with `rep movsb` (see README).
void copy_in_pieces(void* to, const void* from, size_t bytes) {
    auto* out = static_cast<unsigned char*>(to);
    const auto* in = static_cast<const unsigned char*>(from);
    for (size_t done = 0; done < bytes; done += kPiece) {
        std::memcpy(out + done, in + done, std::min(kPiece, bytes - done));
    }
}

Case make_case(std::string name, std::shared_ptr<Tensors> t, size_t bytes, Call kernel, Call runtime,
               std::function<void(Tensors&, Copy)> copy) {
    Case c;
    c.name = std::move(name);
    c.bytes = bytes;
    c.kernelgen = [t, kernel] { kernel(*t, t->output.data()); };
    c.runtime_shaped = [t, runtime] { runtime(*t, t->output.data()); };
    c.memcpy = [t, copy] { copy(*t, copy_whole); };
    c.memcpy_pieces = [t, copy] { copy(*t, copy_in_pieces); };
    c.agree = [t, kernel, runtime] { return agreement(*t, kernel, runtime); };
    return c;
}

using GatherKernel = int (*)(const float*, const int32_t*, float*);
using ScatterKernel = int (*)(const float*, const int32_t*, const float*, float*);

// A gather case: the generated kernel and the runtime-shaped one on the same tensors. The gathers move their
// output: memcpy copies as many bytes from the start of data. Like the kernel's, its reads and writes are the
// same bytes on every call, and its footprint (output and the bytes read: 1 MiB for big_gather_nd) is no
// smaller than the kernel's (output, indices and the distinct rows the indices pick: about 0.9 MiB there).
Case gather_case(std::string name, const std::shared_ptr<Tensors>& t, GatherKernel kernel, Call runtime) {
    return make_case(
        std::move(name), t, t->output.size() * sizeof(float),
        [kernel](const Tensors& s, float* out) { return kernel(s.data.data(), s.indices.data(), out); },
        std::move(runtime),
        [](Tensors& s, Copy copy) { copy(s.output.data(), s.data.data(), s.output.size() * sizeof(float)); });
}

Case gather(std::string name, GatherKernel kernel, Dims data, Dims indices, int axis) {
    Dims output_dims(data.begin(), data.begin() + axis);
    output_dims.insert(output_dims.end(), indices.begin(), indices.end());
    output_dims.insert(output_dims.end(), data.begin() + axis + 1, data.end());
    auto t = make_tensors(data, indices, {data[static_cast<size_t>(axis)]}, count(output_dims), 0);
    return gather_case(std::move(name), t, kernel, [axis](const Tensors& s, float* out) {
        return rs_gather(s.data.data(), s.data_shape(), s.indices.data(), s.indices_shape(), axis, out);
    });
}

Case gather_elements(std::string name, GatherKernel kernel, Dims data, Dims indices, int axis) {
    auto t = make_tensors(data, indices, {data[static_cast<size_t>(axis)]}, count(indices), 0);
    return gather_case(std::move(name), t, kernel, [axis](const Tensors& s, float* out) {
        return rs_gather_elements(s.data.data(), s.data_shape(), s.indices.data(), s.indices_shape(), axis, out);
    });
}

Case gather_nd(std::string name, GatherKernel kernel, Dims data, Dims indices, int batch_dims,
               Order order = Order::random) {
    const auto b = static_cast<size_t>(batch_dims);
    const auto k = static_cast<size_t>(indices.back());
    Dims output_dims(indices.begin(), indices.end() - 1);
    output_dims.insert(output_dims.end(), data.begin() + static_cast<long>(b + k), data.end());
    auto t = make_tensors(data, indices, Dims(data.begin() + static_cast<long>(b), data.begin() + static_cast<long>(b + k)),
                          count(output_dims), 0, order);
    return gather_case(std::move(name), t, kernel, [batch_dims](const Tensors& s, float* out) {
        return rs_gather_nd(s.data.data(), s.data_shape(), s.indices.data(), s.indices_shape(), batch_dims, out);
    });
}

// ScatterND (out of place): the output is a copy of data with the updates written over it, so memcpy moves
// data's bytes into the output and then the updates' bytes over its first rows.
Case scatter_nd(std::string name, ScatterKernel kernel, Dims data, Dims indices, rs_reduction reduction) {
    const auto k = static_cast<size_t>(indices.back());
    Dims updates_dims(indices.begin(), indices.end() - 1);
    updates_dims.insert(updates_dims.end(), data.begin() + static_cast<long>(k), data.end());
    auto t = make_tensors(data, indices, Dims(data.begin(), data.begin() + static_cast<long>(k)), count(data),
                          count(updates_dims));
    return make_case(
        std::move(name), t, (t->data.size() + t->updates.size()) * sizeof(float),
        [kernel](const Tensors& s, float* out) { return kernel(s.data.data(), s.indices.data(), s.updates.data(), out); },
        [reduction](const Tensors& s, float* out) {
            return rs_scatter_nd(s.data.data(), s.data_shape(), s.indices.data(), s.indices_shape(), s.updates.data(),
                                 reduction, out);
        },
        [](Tensors& s, Copy copy) {
            copy(s.output.data(), s.data.data(), s.data.size() * sizeof(float));
            copy(s.output.data(), s.updates.data(), s.updates.size() * sizeof(float));
        });
}

}  // namespace

std::vector<Case> make_cases() {
    std::vector<Case> cases;
    cases.push_back(gather("emb_gather_rows", emb_gather_rows, {64, 32}, {16}, 0));
    // The same rows of 64 bytes from a table small enough for the ATmega2560's 8 KB of RAM (1.5 KB).
    cases.push_back(gather("emb_gather_rows_small", emb_gather_rows_small, {24, 16}, {16}, 0));
    cases.push_back(gather("emb_gather_axis1", emb_gather_axis1, {8, 64, 16}, {4, 4}, 1));
    cases.push_back(gather_elements("emb_gather_elements", emb_gather_elements, {16, 32}, {16, 8}, 1));
    cases.push_back(gather_nd("emb_gather_nd", emb_gather_nd, {32, 16, 8}, {10, 2}, 0));
    cases.push_back(gather_nd("emb_gather_nd_batch", emb_gather_nd_batch, {4, 8, 8}, {4, 3, 1}, 1));
    cases.push_back(scatter_nd("emb_scatter_nd", emb_scatter_nd, {32, 16}, {8, 1}, RS_REDUCTION_NONE));
    cases.push_back(scatter_nd("emb_scatter_nd_add", emb_scatter_nd_add, {32, 16}, {8, 1}, RS_REDUCTION_ADD));
    cases.push_back(gather("big_embedding", big_embedding, {4096, 256}, {1024}, 0));
    cases.push_back(gather_nd("big_gather_nd", big_gather_nd, {64, 64, 64}, {2048, 2}, 0));
    // Not a case of the issue: big_gather_nd's kernel on indices that make it read what memcpy reads (see
    // README, "Speed and size").
    cases.push_back(gather_nd("big_gather_nd_in_order", big_gather_nd, {64, 64, 64}, {2048, 2}, 0, Order::in_order));
    // Nor this one: the same kernel copying its rows from 32 KiB of data, so that its working set is the output.
    cases.push_back(gather_nd("big_gather_nd_few_rows", big_gather_nd, {64, 64, 64}, {2048, 2}, 0, Order::few_rows));
    cases.push_back(scatter_nd("big_scatter_nd_add", big_scatter_nd_add, {4096, 256}, {1024, 1},
                               RS_REDUCTION_ADD));
    cases.push_back(gather_elements("big_gather_elements", big_gather_elements, {256, 1024},
                                    {256, 512}, 1));
    return cases;
}

bool all_agree(const std::vector<Case>& cases) {
    bool ok = true;
    for (const Case& c : cases) {
        const std::string problem = c.agree();
        if (!problem.empty()) {
            std::fprintf(stderr, "%s: kernelgen and the runtime-shaped kernel disagree (%s)\n", c.name.c_str(),
                         problem.c_str());
            ok = false;
        }
    }
    return ok;
}

}  // namespace bench
