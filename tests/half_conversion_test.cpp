// The float16 and bfloat16 conversions of the generated support code, checked exhaustively against
// tests/half_reference.h: every one of the 65,536 patterns of each format to float32 and back, and
// float32 to pattern on every midpoint between neighbours (the ties), just beside each midpoint, across
// the subnormals, at the overflow to infinity, and for NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "half_reference.h"

extern "C" {
float shim_float16_to_float(uint16_t bits);
uint16_t shim_float16_from_float(float value);
float shim_bfloat16_to_float(uint16_t bits);
uint16_t shim_bfloat16_from_float(float value);
}

namespace {

using halfref::Format;

struct Conversions {
    const char* name;
    Format format;
    float (*to_float)(uint16_t);
    uint16_t (*from_float)(float);
};

void PrintTo(const Conversions& c, std::ostream* os) { *os << c.name; }

const Conversions kFormats[] = {{"float16", halfref::kFloat16, shim_float16_to_float, shim_float16_from_float},
                                {"bfloat16", halfref::kBFloat16, shim_bfloat16_to_float, shim_bfloat16_from_float}};

uint32_t bits_of(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// from_float(x) against the nearest-pattern search; NaN only needs to stay NaN.
void expect_rounds(const Conversions& c, float x) {
    const uint16_t got = c.from_float(x);
    if (std::isnan(x)) {
        EXPECT_TRUE(halfref::is_nan(got, c.format)) << c.name << ": NaN " << std::hex << bits_of(x) << " gave " << got;
        return;
    }
    const uint16_t want = halfref::from_double(x, c.format);
    EXPECT_EQ(got, want) << c.name << ": " << std::hexfloat << x << " (bits " << std::hex << bits_of(x) << ")";
}

class HalfConversions : public ::testing::TestWithParam<Conversions> {};

TEST_P(HalfConversions, EveryPatternToFloatIsExact) {
    const Conversions& c = GetParam();
    for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const auto pattern = static_cast<uint16_t>(bits);
        const float got = c.to_float(pattern);
        if (halfref::is_nan(pattern, c.format)) {
            ASSERT_TRUE(std::isnan(got)) << c.name << " " << std::hex << bits;
            continue;
        }
        const float want = halfref::to_float(pattern, c.format);
        ASSERT_EQ(bits_of(got), bits_of(want)) << c.name << " pattern " << std::hex << bits;
    }
}

TEST_P(HalfConversions, EveryPatternRoundTrips) {
    const Conversions& c = GetParam();
    for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const auto pattern = static_cast<uint16_t>(bits);
        const uint16_t back = c.from_float(c.to_float(pattern));
        if (halfref::is_nan(pattern, c.format)) {
            ASSERT_TRUE(halfref::is_nan(back, c.format)) << c.name << " " << std::hex << bits;
        } else {
            ASSERT_EQ(back, pattern) << c.name << " " << std::hex << bits;
        }
    }
}

TEST_P(HalfConversions, TiesAndTheirNeighboursRoundToNearestEven) {
    const Conversions& c = GetParam();
    const uint16_t infinity = halfref::infinity_bits(c.format);
    for (uint32_t bits = 0; bits < infinity; ++bits) {
        // The midpoint between a pattern and the next one up (the largest finite's neighbour being the
        // overflow threshold) is exact in float32, as are the floats right beside it.
        const double low = halfref::magnitude(static_cast<uint16_t>(bits), c.format);
        const double high = halfref::magnitude(static_cast<uint16_t>(bits + 1), c.format);
        const auto middle = static_cast<float>((low + high) / 2);
        ASSERT_EQ(static_cast<double>(middle), (low + high) / 2);
        for (float x : {middle, std::nextafter(middle, 0.0f), std::nextafter(middle, INFINITY)}) {
            expect_rounds(c, x);
            expect_rounds(c, -x);
        }
        if (::testing::Test::HasFailure()) return;
    }
}

TEST_P(HalfConversions, SpecialValues) {
    const Conversions& c = GetParam();
    for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, std::nanf(""), -std::nanf(""), 65504.0f, 65519.996f, 65520.0f,
                    65536.0f, 1e10f, 3.4028235e38f, 5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f, 1.4e-45f, 1e-30f,
                    6.097555e-5f, 6.1035156e-5f, 1.0f, 1.0009766f, 1.0004883f, 1.0014648f}) {
        expect_rounds(c, x);
        expect_rounds(c, -x);
    }
    // Every float32 exponent, with a few mantissas, covers underflow, the subnormals and overflow.
    for (int exponent = -150; exponent <= 128; ++exponent) {
        for (float m : {1.0f, 1.5f, 1.25f, 1.9999999f, 1.0000001f}) expect_rounds(c, std::ldexp(m, exponent));
    }
}

INSTANTIATE_TEST_SUITE_P(Formats, HalfConversions, ::testing::ValuesIn(kFormats),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
