/* kernelgen_outside_i64 (kernelgen_support.h), the kernels' check of an int64 index against a literal size,
 * kernelgen_outside_i64_bits, its branch-free form for a loop that gathers one flag (by words on 32-bit cores), and
 * kernelgen_outside_count_i64/_i32, the check against a run-time data count (sizes from 0 to 2^31 - 1), each
 * compared with the plain definition (index < -size or index > size - 1) for sizes from 0 to 2^31 and the values
 * around every edge a word-at-a-time test could get wrong: the range's own edges, the int32 edges, the 2^32
 * multiples (whose low word alone is in range), the int64 extremes, and a pseudo-random sweep.
 *
 * Then the wraps that turn a checked index into an offset, kernelgen_wrap_i64_u32/_i64_u64/_i32_u32 (from the
 * low word alone for a size up to 2^31), against index < 0 ? index + size : index, for every in-range value near
 * the edges above and sizes up to 2^32 - 1; and every in-range index through them with literal sizes, as the kernels
 * call them (the 8- and 16-bit cores' AND of the low byte or 16 bits, in the build by words).
 *
 * Then kernelgen_ored_offsets_i32, a turn of the loop that ORs the offsets of int32 indices against a power-of-two
 * size, with each value of a hostile list at each position of the turn (4 values a turn; 1 in the build by words),
 * and kernelgen_ored_offset_i32, a turn of one value: each against the contract the kernels' proofs take from
 * kernelgen_support.h (the result within 2 * size - 1 exactly when the `outside` given is and each value is in range);
 * and kernelgen_ored_offsets_i64, its turn for int64 indices, the same way, with values moved by multiples of 2^32
 * and the int64 extremes.
 *
 * Built for the host under AddressSanitizer and UBSan three times: with the host's own 64-bit compare, with the
 * test by words that 8- and 16-bit targets use (KERNELGEN_CHECK_BY_WORDS=1; the host is little-endian), and with
 * the tests by words of 32-bit cores: the branch-free one (KERNELGEN_CHECK_BITS_BY_WORDS=1) and Cortex-M0's
 * compare of the high word with the low word's sign (KERNELGEN_CHECK_SIGN_WORD=1). The on-target tests run it on
 * every class too, where the 32-bit cores take kernelgen_outside_i64_bits by words, and Cortex-M0 its sign-word
 * kernelgen_outside_i64, of their own accord.
 * Prints "N cases, F failed"; exits with status 1 when F is not 0. */
#include "kernelgen_support.h"

#include <stdio.h>

static unsigned long cases;
static unsigned long failures;

/* The next state of the tests' pseudo-random sequence (a 64-bit linear congruential generator). */
static uint64_t next_state(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state;
}

static void check(int64_t index, uint32_t size)
{
    const int expected = index < -(int64_t)size || index > (int64_t)size - 1;
    /* The literal size's tests take sizes from 1 to 2^31, the data count's from 0 to 2^31 - 1. */
    const int literal = size >= 1u;
    const int counted = size <= 0x7FFFFFFFu;
    const int has_i32 = index >= INT32_MIN && index <= INT32_MAX;
    const int got = literal ? kernelgen_outside_i64(&index, size) != 0 : expected;
    const int got_bits = literal ? kernelgen_outside_i64_bits(&index, size) != 0u : expected;
    const int got_count = counted ? kernelgen_outside_count_i64(&index, size) != 0u : expected;
    const int got_count_i32 = counted && has_i32 ? kernelgen_outside_count_i32((int32_t)index, size) != 0u : expected;
    ++cases;
    if (got != expected || got_bits != expected || got_count != expected || got_count_i32 != expected) {
        ++failures;
        if (failures <= 10u) {
            printf("index %lld, size %lu: %s (outside_i64), %s (outside_i64_bits), %s (outside_count_i64), %s "
                   "(outside_count_i32), expected %s\n",
                   (long long)index, (unsigned long)size, got ? "outside" : "inside", got_bits ? "outside" : "inside",
                   got_count ? "outside" : "inside", got_count_i32 ? "outside" : "inside",
                   expected ? "outside" : "inside");
        }
    }
}

/* kernelgen_outside_range_i64 and its _bits form against the plain compare: [low, low + span], both ends int32
 * values (indices with constants added). */
static void check_range(int64_t index, int32_t low, uint32_t span)
{
    const int expected = index < (int64_t)low || index > (int64_t)low + (int64_t)span;
    const int got = kernelgen_outside_range_i64(&index, low, span) != 0;
    const int got_bits = kernelgen_outside_range_i64_bits(&index, low, span) != 0u;
    ++cases;
    if (got != expected || got_bits != expected) {
        ++failures;
        if (failures <= 10u) {
            printf("index %lld, range [%ld, +%lu]: %s (outside_range_i64), %s (_bits), expected %s\n", (long long)index,
                   (long)low, (unsigned long)span, got ? "outside" : "inside", got_bits ? "outside" : "inside",
                   expected ? "outside" : "inside");
        }
    }
}

/* Shifted ranges at the ends of int32 and around 0, each edge and its neighbours moved by multiples of 2^32, and
 * pseudo-random indices. */
static void range_checks(void)
{
    static const int32_t lows[] = {INT32_MIN, INT32_MIN + 1, -70000, -5, -4, -1, 0, 1, 3, 65536, INT32_MAX - 9, INT32_MAX};
    static const uint32_t spans[] = {0u, 1u, 9u, 255u, 65535u, 0x7FFFFFFFu, 0xFFFFFFFFu};
    const int64_t word = (int64_t)1 << 32;
    const int64_t moves[] = {0, word, -word, 7 * word, -9 * word};
    uint64_t state = 4242u;
    size_t l, s, m;
    int i;
    for (l = 0u; l < sizeof lows / sizeof lows[0]; ++l) {
        for (s = 0u; s < sizeof spans / sizeof spans[0]; ++s) {
            const int64_t low = lows[l], high = (int64_t)lows[l] + (int64_t)spans[s];
            const int64_t edges[] = {low, high, 0, low + (int64_t)spans[s] / 2};
            size_t e;
            if (high > INT32_MAX) continue;  /* both ends int32 values, as the generator emits it */
            for (e = 0u; e < sizeof edges / sizeof edges[0]; ++e) {
                for (m = 0u; m < sizeof moves / sizeof moves[0]; ++m) {
                    for (i = -2; i <= 2; ++i) check_range(edges[e] + moves[m] + i, lows[l], spans[s]);
                }
            }
            check_range(INT64_MAX, lows[l], spans[s]);
            check_range(INT64_MIN, lows[l], spans[s]);
            for (i = 0; i < 500; ++i) {
                next_state(&state);
                check_range((int64_t)state, lows[l], spans[s]);
                check_range(low + (int64_t)(state % ((uint64_t)spans[s] + 3u)) - 1, lows[l], spans[s]);
            }
        }
    }
}

/* The three wraps' offsets of an in-range index (in [-size, size-1]) against index < 0 ? index + size : index. */
static void compare_wraps(int64_t index, uint32_t size, const char *kind, uint64_t narrow, uint64_t wide,
                          uint64_t from_i32)
{
    const uint64_t expected = (uint64_t)(index < 0 ? index + (int64_t)size : index);
    ++cases;
    if (narrow != expected || wide != expected || from_i32 != expected) {
        ++failures;
        if (failures <= 10u) {
            printf("index %lld, %ssize %lu: wrapped to %llu (i64_u32), %llu (i64_u64), %llu (i32_u32), expected %llu\n",
                   (long long)index, kind, (unsigned long)size, (unsigned long long)narrow, (unsigned long long)wide,
                   (unsigned long long)from_i32, (unsigned long long)expected);
        }
    }
}

/* An in-range index as a value read plus a constant ("indices_add"), through every wrap of the sum that takes the
 * value: the sum's low word for sizes up to 2^31, the int64 sum above. */
static void wrap_plus(int64_t index, uint32_t size, int64_t plus)
{
    const int64_t value = index - plus;
    const int has_i32 = value >= INT32_MIN && value <= INT32_MAX;
    const uint64_t expected = (uint64_t)(index < 0 ? index + (int64_t)size : index);
    compare_wraps(index, size, "plus ", kernelgen_wrap_plus_i64_u32(&value, plus, size),
                  kernelgen_wrap_plus_i64_u64(&value, plus, size),
                  has_i32 ? kernelgen_wrap_plus_i32_u32((int32_t)value, plus, size) : expected);
    if (has_i32) {
        compare_wraps(index, size, "plus (i32_u64) ", expected, kernelgen_wrap_plus_i32_u64((int32_t)value, plus, size), expected);
    }
}

/* An in-range index through every wrap that takes it, the size a run-time value (through the count wraps too where
 * it is one a data count may have); and as a value plus constants small and large, of either sign. */
static void wrap(int64_t index, uint32_t size)
{
    static const int64_t pluses[] = {0, 1, -3, 7, (int64_t)1 << 31, -((int64_t)1 << 32) - 5, (int64_t)1 << 62,
                                     -((int64_t)1 << 62)};
    const int has_i32 = index >= INT32_MIN && index <= INT32_MAX;
    const uint64_t expected = (uint64_t)(index < 0 ? index + (int64_t)size : index);
    size_t p;
    compare_wraps(index, size, "", kernelgen_wrap_i64_u32(&index, size), kernelgen_wrap_i64_u64(&index, size),
                  has_i32 ? kernelgen_wrap_i32_u32((int32_t)index, size) : expected);
    if (size <= 0x7FFFFFFFu) {  /* a data count: its bound is below 2^31 */
        compare_wraps(index, size, "count ", kernelgen_wrap_count_i64_u32(&index, size),
                      kernelgen_wrap_count_i64_u64(&index, size), kernelgen_wrap_count_i32_u32((int32_t)index, size));
        compare_wraps(index, size, "count (i32_u64) ", expected, kernelgen_wrap_count_i32_u64((int32_t)index, size), expected);
    }
    for (p = 0u; p < sizeof pluses / sizeof pluses[0]; ++p) wrap_plus(index, size, pluses[p]);
}

static void wraps(void)
{
    static const uint32_t sizes[] = {1u, 3u, 24u, 64u, 100u, 65535u, 1000003u, 0x7FFFFFFFu, 0x80000000u,
                                     0x80000001u, 0xC0000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    uint64_t state = 6789u;
    size_t s;
    int i;
    for (s = 0u; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int64_t size = (int64_t)sizes[s];
        const int64_t points[] = {-size, -1, 0, size - 1, -((int64_t)1 << 31), ((int64_t)1 << 31) - 1,
                                  (int64_t)1 << 31, -size / 2, size / 2};
        size_t p;
        for (p = 0u; p < sizeof points / sizeof points[0]; ++p) {
            for (i = -2; i <= 2; ++i) {
                const int64_t index = points[p] + i;
                if (index >= -size && index <= size - 1) wrap(index, sizes[s]);
            }
        }
        for (i = 0; i < 2000; ++i) {
            wrap((int64_t)(next_state(&state) % (uint64_t)(2 * size)) - size, sizes[s]);
        }
    }
}

/* Every index in [-SIZE, SIZE-1] through the wraps, SIZE a literal, as the kernels call them (the size a constant
 * after inlining): in the build by words a power-of-two size up to 256 or 65536 takes the AND of the index's low
 * byte or 16 bits. */
#define WRAP_LITERAL(SIZE)                                                                                     \
    do {                                                                                                       \
        int64_t index;                                                                                         \
        for (index = -(int64_t)(SIZE); index < (int64_t)(SIZE); ++index) {                                     \
            const int64_t at = index;                                                                          \
            compare_wraps(index, (SIZE), "literal ", kernelgen_wrap_i64_u32(&at, (SIZE)),                      \
                          kernelgen_wrap_i64_u64(&at, (uint64_t)(SIZE)), kernelgen_wrap_i32_u32((int32_t)index, (SIZE))); \
        }                                                                                                      \
    } while (0)

static void literal_wraps(void)
{
    WRAP_LITERAL(1u);
    WRAP_LITERAL(2u);
    WRAP_LITERAL(16u);
    WRAP_LITERAL(128u);
    WRAP_LITERAL(256u);
    WRAP_LITERAL(512u);
    WRAP_LITERAL(32768u);
    WRAP_LITERAL(65536u);
    WRAP_LITERAL(131072u);
    WRAP_LITERAL(24u);
}

/* kernelgen_ored_offsets_i32, a turn of the loop of ORed checks (int32 indices, a power-of-two size up to 2^30):
 * KERNELGEN_ORED_CHECKS values (4, or 1 under KERNELGEN_CHECK_BY_WORDS), one of them `value` at position `at`, the
 * others in range; the turn must report "outside" (its ORed offsets above 2 * size - 1) exactly when `value` is
 * outside [-size, size-1], and after ORing the turns of a loop, when any value was (two turns). */
static void ored(int32_t value, uint32_t at, uint32_t size, uint64_t *state)
{
    int32_t values[2u * KERNELGEN_ORED_CHECKS];
    uint32_t i;
    const int expected = (int64_t)value < -(int64_t)size || (int64_t)value > (int64_t)size - 1;
    int got, got_one, got_loop, outside_before;
    uint32_t outside = 0u, inside_before;
    for (i = 0u; i < 2u * KERNELGEN_ORED_CHECKS; ++i) {
        values[i] = (int32_t)((int64_t)((next_state(state) >> 33) % (2u * (uint64_t)size)) - (int64_t)size);
    }
    values[at % KERNELGEN_ORED_CHECKS] = value;
    /* Its contract: the result is within 2 * size - 1 exactly when the `outside` it is given is and each value is
     * in range; so is the one-value turn's (kernelgen_ored_offset_i32). */
    inside_before = (uint32_t)(next_state(state) >> 33) % (2u * size);
    got = kernelgen_ored_offsets_i32(inside_before, values, size) > 2u * size - 1u;
    got_one = kernelgen_ored_offset_i32(inside_before, value, size) > 2u * size - 1u;
    outside_before = kernelgen_ored_offsets_i32(2u * size + inside_before, values, size) > 2u * size - 1u &&
                     kernelgen_ored_offset_i32(2u * size + inside_before, value, size) > 2u * size - 1u;
    for (i = 0u; i < 2u * KERNELGEN_ORED_CHECKS; ++i) values[i] = i % 2u ? -(int32_t)size : (int32_t)(size - 1u);
    values[KERNELGEN_ORED_CHECKS + at % KERNELGEN_ORED_CHECKS] = value;
    for (i = 0u; i < 2u * KERNELGEN_ORED_CHECKS; i += KERNELGEN_ORED_CHECKS) {
        outside = kernelgen_ored_offsets_i32(outside, &values[i], size);
    }
    got_loop = outside > 2u * size - 1u;
    ++cases;
    if (got != expected || got_one != expected || got_loop != expected || !outside_before) {
        ++failures;
        if (failures <= 10u) {
            printf("index %ld at %lu, size %lu: %s (one turn), %s (one value), %s (two turns), expected %s%s\n",
                   (long)value, (unsigned long)at, (unsigned long)size, got ? "outside" : "inside",
                   got_one ? "outside" : "inside", got_loop ? "outside" : "inside", expected ? "outside" : "inside",
                   outside_before ? "" : "; an outside given was lost");
        }
    }
}

static void ored_checks(void)
{
    uint64_t state = 4242u;
    uint32_t n, at;
    int i;
    for (n = 0u; n <= 30u; ++n) {
        const int64_t size = (int64_t)1 << n;
        const int64_t points[] = {-size, size - 1, 0, -1, INT32_MIN, INT32_MAX, -2 * size, 2 * size - 1, 2 * size,
                                  -3 * size, ((int64_t)1 << 31) - size, -((int64_t)1 << 31) + size};
        size_t p;
        for (p = 0u; p < sizeof points / sizeof points[0]; ++p) {
            for (i = -2; i <= 2; ++i) {
                const int64_t value = points[p] + i;
                if (value < INT32_MIN || value > INT32_MAX) continue;
                for (at = 0u; at < KERNELGEN_ORED_CHECKS; ++at) ored((int32_t)value, at, (uint32_t)size, &state);
            }
        }
        for (i = 0; i < 2000; ++i) {
            ored((int32_t)(uint32_t)(next_state(&state) >> 32), (uint32_t)i, (uint32_t)size, &state);
        }
    }
}

/* kernelgen_ored_offsets_i64, the same turn for int64 indices (whose values the loops read 4 a turn, or 1 in the
 * build by words), with the same contract: one value `value` at position `at`, the others in range, reported
 * "outside" exactly when `value` is outside [-size, size-1], for one turn and two ORed into one another. */
static void ored_i64(int64_t value, uint32_t at, uint32_t size, uint64_t *state)
{
    int64_t values[2u * KERNELGEN_ORED_CHECKS];
    uint32_t i;
    const int expected = value < -(int64_t)size || value > (int64_t)size - 1;
    int got, got_loop, outside_before;
    kernelgen_ored_i64_t outside = 0u, inside_before;
    for (i = 0u; i < 2u * KERNELGEN_ORED_CHECKS; ++i) {
        values[i] = (int64_t)((next_state(state) >> 33) % (2u * (uint64_t)size)) - (int64_t)size;
    }
    values[at % KERNELGEN_ORED_CHECKS] = value;
    inside_before = (kernelgen_ored_i64_t)((next_state(state) >> 33) % (2u * (uint64_t)size));
    got = kernelgen_ored_offsets_i64(inside_before, values, size) > 2u * size - 1u;
    outside_before = kernelgen_ored_offsets_i64((kernelgen_ored_i64_t)(2u * size + inside_before), values, size) >
                     2u * size - 1u;
    for (i = 0u; i < 2u * KERNELGEN_ORED_CHECKS; ++i) values[i] = i % 2u ? -(int64_t)size : (int64_t)size - 1;
    values[KERNELGEN_ORED_CHECKS + at % KERNELGEN_ORED_CHECKS] = value;
    for (i = 0u; i < 2u * KERNELGEN_ORED_CHECKS; i += KERNELGEN_ORED_CHECKS) {
        outside = kernelgen_ored_offsets_i64(outside, &values[i], size);
    }
    got_loop = outside > 2u * size - 1u;
    ++cases;
    if (got != expected || got_loop != expected || !outside_before) {
        ++failures;
        if (failures <= 10u) {
            printf("int64 index %lld at %lu, size %lu: %s (one turn), %s (two turns), expected %s%s\n",
                   (long long)value, (unsigned long)at, (unsigned long)size, got ? "outside" : "inside",
                   got_loop ? "outside" : "inside", expected ? "outside" : "inside",
                   outside_before ? "" : "; an outside given was lost");
        }
    }
}

/* Every power-of-two size up to 2^30, the range's edges, twice and three times it and the int32 edges, each moved
 * by multiples of 2^32 (whose low word alone is in range), the int64 extremes, and a pseudo-random sweep. */
static void ored_i64_checks(void)
{
    static const int64_t moves[] = {0, (int64_t)1 << 32, -((int64_t)1 << 32), (int64_t)3 << 32, -((int64_t)5 << 32)};
    uint64_t state = 4343u;
    uint32_t n, at;
    int i;
    for (n = 0u; n <= 30u; ++n) {
        const int64_t size = (int64_t)1 << n;
        const int64_t points[] = {-size, size - 1, 0, -1, INT32_MIN, INT32_MAX, -2 * size, 2 * size - 1, 2 * size,
                                  -3 * size};
        size_t p, m;
        for (p = 0u; p < sizeof points / sizeof points[0]; ++p) {
            for (m = 0u; m < sizeof moves / sizeof moves[0]; ++m) {
                for (i = -2; i <= 2; ++i) {
                    for (at = 0u; at < KERNELGEN_ORED_CHECKS; ++at) {
                        ored_i64(points[p] + moves[m] + i, at, (uint32_t)size, &state);
                    }
                }
            }
        }
        for (i = 0; i < 3; ++i) {
            ored_i64(INT64_MAX - i, (uint32_t)i, (uint32_t)size, &state);
            ored_i64(INT64_MIN + i, (uint32_t)i, (uint32_t)size, &state);
        }
        for (i = 0; i < 2000; ++i) {
            ored_i64((int64_t)next_state(&state), (uint32_t)i, (uint32_t)size, &state);
        }
    }
}

int main(void)
{
    static const uint32_t sizes[] = {0u, 1u, 2u, 3u, 5u, 7u, 64u, 100u, 255u, 256u, 65535u, 65536u, 1000003u,
                                     0x7FFFFFFFu, 0x80000000u};
    const int64_t word = (int64_t)1 << 32;
    const int64_t centres[] = {0, (int64_t)1 << 31, -((int64_t)1 << 31), word, -word, 3 * word, -5 * word,
                               INT64_MAX, INT64_MIN};
    size_t s, c;
    uint64_t state = 12345u;
    int i;
    for (s = 0u; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int64_t size = (int64_t)sizes[s];
        const int64_t edges[] = {-size, size - 1, size, -size - 1};
        for (c = 0u; c < sizeof centres / sizeof centres[0]; ++c) {
            size_t e;
            for (e = 0u; e < sizeof edges / sizeof edges[0]; ++e) {
                /* The range's edges moved by a multiple of 2^32, and a few values around each. */
                for (i = -2; i <= 2; ++i) {
                    const int64_t centre = centres[c];
                    const int64_t shift = edges[e] + i;
                    /* centre + shift, without signed overflow at the int64 extremes */
                    if ((shift > 0 && centre > INT64_MAX - shift) || (shift < 0 && centre < INT64_MIN - shift)) {
                        continue;
                    }
                    check(centre + shift, sizes[s]);
                }
            }
            for (i = -2; i <= 2; ++i) {
                if ((i > 0 && centres[c] > INT64_MAX - i) || (i < 0 && centres[c] < INT64_MIN - i)) continue;
                check(centres[c] + i, sizes[s]);
            }
        }
        for (i = 0; i < 4000; ++i) {
            next_state(&state);
            check((int64_t)state, sizes[s]);                          /* anywhere */
            check((int64_t)(state >> 32) - (int64_t)(state & 0xFFu) * word, sizes[s]);  /* near 2^32 multiples */
        }
    }
    wraps();
    range_checks();
    literal_wraps();
    ored_checks();
    ored_i64_checks();
    printf("%lu cases, %lu failed\n", cases, failures);
    return failures == 0u ? 0 : 1;
}
