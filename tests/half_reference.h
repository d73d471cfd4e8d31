// float16 and bfloat16 computed the plain way, independently of the generated C: a bit pattern's value from
// its fields with ldexp, and float-to-pattern rounding by searching the sorted patterns for the nearest
// (ties to the even pattern). Slow and obviously right: the reference the kernels' conversions must match.
#pragma once

#include <cmath>
#include <cstdint>

namespace halfref {

struct Format {
    int exponent_bits;
    int mantissa_bits;
};
constexpr Format kFloat16{5, 10};
constexpr Format kBFloat16{8, 7};

inline int bias(Format f) { return (1 << (f.exponent_bits - 1)) - 1; }
inline uint32_t max_exponent(Format f) { return (1u << f.exponent_bits) - 1; }
inline uint16_t infinity_bits(Format f) { return static_cast<uint16_t>(max_exponent(f) << f.mantissa_bits); }

// The value of a non-negative pattern; the infinity pattern is given the value the next power of two would
// have, which is exactly where rounding starts to give infinity.
inline double magnitude(uint16_t bits, Format f) {
    const uint32_t exponent = (bits >> f.mantissa_bits) & max_exponent(f);
    const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
    if (exponent == 0) return std::ldexp(static_cast<double>(mantissa), 1 - bias(f) - f.mantissa_bits);
    return std::ldexp(static_cast<double>((1u << f.mantissa_bits) + mantissa),
                      static_cast<int>(exponent) - bias(f) - f.mantissa_bits);
}

inline bool is_nan(uint16_t bits, Format f) {
    return ((bits >> f.mantissa_bits) & max_exponent(f)) == max_exponent(f) && (bits & ((1u << f.mantissa_bits) - 1)) != 0;
}

inline double to_double(uint16_t bits, Format f) {
    const bool negative = (bits & 0x8000u) != 0;
    const auto positive = static_cast<uint16_t>(bits & 0x7FFFu);
    double value;
    if (is_nan(positive, f)) value = std::nan("");
    else if (positive == infinity_bits(f)) value = INFINITY;
    else value = magnitude(positive, f);
    return negative ? -value : value;
}

inline float to_float(uint16_t bits, Format f) { return static_cast<float>(to_double(bits, f)); }

// The nearest pattern to x, ties to even; NaN gives the canonical quiet NaN (callers compare NaN-ness).
inline uint16_t from_double(double x, Format f) {
    if (std::isnan(x)) return static_cast<uint16_t>(infinity_bits(f) | (1u << (f.mantissa_bits - 1)));
    const uint16_t sign = std::signbit(x) ? 0x8000u : 0u;
    const double a = std::fabs(x);
    // Largest pattern in [0, infinity] whose magnitude is <= a (magnitude is increasing in the pattern).
    uint32_t low = 0, high = infinity_bits(f);
    if (a >= magnitude(static_cast<uint16_t>(high), f)) return static_cast<uint16_t>(sign | high);
    while (low + 1 < high) {
        const uint32_t middle = (low + high) / 2;
        if (magnitude(static_cast<uint16_t>(middle), f) <= a) low = middle;
        else high = middle;
    }
    const double below = a - magnitude(static_cast<uint16_t>(low), f);
    const double above = magnitude(static_cast<uint16_t>(high), f) - a;
    uint32_t nearest = below < above ? low : above < below ? high : (low % 2 == 0 ? low : high);
    return static_cast<uint16_t>(sign | nearest);
}

}  // namespace halfref
