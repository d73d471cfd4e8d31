/* kernelgen_copy (kernelgen_support.h), the kernels' row copy, checked byte by byte (and kernelgen_copy_once, a
 * scatter's copy of data before its loops, at run-time lengths): every length from 0 to 257
 * bytes, at every pair of source and destination offsets from a 4-byte boundary the element size allows (any for
 * bytes, even ones for 2-byte elements, 0 and 4 for 4- and 8-byte elements), each length once as a run-time
 * value and once as a literal (the kernels pass literals, which the compiler folds: another code path). Every
 * byte of the destination outside the copy must keep its guard value.
 * The same for KERNELGEN_COPY_FROM_TABLE, the copy out of a kernel's constant data (in program memory on AVR,
 * copied by ELPM there), from every offset 0..3 of a table to every offset 0..3, each byte expected as
 * KERNELGEN_DATA_U8 reads it alone.
 *
 * Built for the host under AddressSanitizer and UBSan (with the target's copy routine forced on by
 * KERNELGEN_COPY_WITH_BLOCKS, and with the host's own), and for every emulated board of the on-target tests.
 * Prints "N cases, F failed"; exits with status 1 when F is not 0. */
#include "kernelgen_support.h"

#include <stdio.h>

#define LONGEST 257u
#define SLACK 16u
#define GUARD 0xA5u

/* 8-byte aligned: the offsets below are from an 8-byte boundary. */
static uint64_t source_words[(LONGEST + SLACK) / 8u + 1u];
static uint64_t destination_words[(LONGEST + SLACK) / 8u + 1u];
static unsigned long cases;
static unsigned long failures;

static unsigned char *source_bytes(void) { return (unsigned char *)source_words; }
static unsigned char *destination_bytes(void) { return (unsigned char *)destination_words; }

static void prepare(void)
{
    size_t i;
    for (i = 0u; i < sizeof source_words; ++i) {
        source_bytes()[i] = (unsigned char)(i * 7u + 1u);
        destination_bytes()[i] = (unsigned char)GUARD;
    }
}

/* A table of constant data as the kernels define theirs: more than LONGEST + 3 bytes, each distinct from its
 * neighbours; 298 with its NUL, an even size, as a section in program memory must have (the code after it must
 * start at an even address). */
#define TEXT16 "0123456789abcdef"
#define TEXT64 TEXT16 "ghijklmnopqrstuv" TEXT16 "wxyzABCDEFGHIJKL"
static const unsigned char copy_table[] KERNELGEN_DATA_TABLE(".text.kernelgen_copy_test_table") =
    TEXT64 "MNOPQRSTUVWXYZ!#" TEXT64 "$%&()*+,-./:;<=>" TEXT64 TEXT64 "?@[]^_{|}";

/* The destination after a copy of `bytes` from offset `from` of the source (of `table`: copy_table) to offset `to`:
 * those bytes, each as read alone, and the guard everywhere else. */
static void verify(size_t to, size_t from, size_t bytes, size_t element, int literal, int table)
{
    size_t i;
    ++cases;
    for (i = 0u; i < sizeof destination_words; ++i) {
        const int inside = i >= to && i < to + bytes;
        const unsigned char expected = !inside ? (unsigned char)GUARD
                                       : table ? (unsigned char)KERNELGEN_DATA_U8(copy_table, from + (i - to))
                                               : source_bytes()[from + (i - to)];
        if (destination_bytes()[i] != expected) {
            ++failures;
            printf("copy of %lu bytes (elements of %lu, %s%s) from offset %lu to offset %lu: byte %lu is %u, not %u\n",
                   (unsigned long)bytes, (unsigned long)element, literal ? "literal length" : "run-time length",
                   table ? ", out of the table" : "", (unsigned long)from, (unsigned long)to, (unsigned long)i,
                   (unsigned)destination_bytes()[i], (unsigned)expected);
            return;
        }
    }
}

/* A copy whose length the compiler sees as a constant, by kernelgen_copy or out of the table; COPY4, COPY16 and
 * COPY64 make 4, 16 and 64 of one of them, of lengths base * step, (base + 1) * step, ... */
#define LITERAL(bytes, element)                                                                          \
    prepare();                                                                                           \
    kernelgen_copy(destination_bytes() + to, source_bytes() + from, (size_t)(bytes), (size_t)(element)); \
    verify(to, from, (size_t)(bytes), (size_t)(element), 1, 0);
#define TABLE_LITERAL(bytes, element)                                                                    \
    prepare();                                                                                           \
    KERNELGEN_COPY_FROM_TABLE(destination_bytes() + to, copy_table, from, (size_t)(bytes));              \
    verify(to, from, (size_t)(bytes), (size_t)(element), 1, 1);
#define COPY4(copy, step, element, base) \
    copy((base) * (step), element) copy(((base) + 1u) * (step), element) \
    copy(((base) + 2u) * (step), element) copy(((base) + 3u) * (step), element)
#define COPY16(copy, step, element, base)                                                         \
    COPY4(copy, step, element, base) COPY4(copy, step, element, (base) + 4u)                      \
    COPY4(copy, step, element, (base) + 8u) COPY4(copy, step, element, (base) + 12u)
#define COPY64(copy, step, element, base)                                                         \
    COPY16(copy, step, element, base) COPY16(copy, step, element, (base) + 16u)                   \
    COPY16(copy, step, element, (base) + 32u) COPY16(copy, step, element, (base) + 48u)

/* Every byte length from 0 to 257. */
#define BYTES_0_TO_257(copy)                                                                      \
    COPY64(copy, 1u, 1u, 0u) COPY64(copy, 1u, 1u, 64u) COPY64(copy, 1u, 1u, 128u)                 \
    COPY64(copy, 1u, 1u, 192u) copy(256u, 1u) copy(257u, 1u)

/* Lengths 0..257 of bytes, at any offsets. */
static void literal_bytes(size_t to, size_t from)
{
    BYTES_0_TO_257(LITERAL)
}

/* Lengths 0..257 out of the table, every offset 0..3 to every offset 0..3, run-time and literal lengths. */
static void table_copies(void)
{
    size_t to, from, bytes;
    for (to = 0u; to < 4u; ++to) {
        for (from = 0u; from < 4u; ++from) {
            for (bytes = 0u; bytes <= LONGEST; ++bytes) {
                volatile size_t length = bytes;
                prepare();
                KERNELGEN_COPY_FROM_TABLE(destination_bytes() + to, copy_table, from, length);
                verify(to, from, bytes, 1u, 0, 1);
            }
            BYTES_0_TO_257(TABLE_LITERAL)
        }
    }
}

/* Lengths 0..256 in 2-byte elements, at even offsets. */
static void literal_halves(size_t to, size_t from)
{
    COPY64(LITERAL, 2u, 2u, 0u)
    COPY64(LITERAL, 2u, 2u, 64u)
    LITERAL(256u, 2u)
}

/* Lengths 0..256 in 4-byte elements, at offsets that are multiples of 4. */
static void literal_words(size_t to, size_t from)
{
    COPY64(LITERAL, 4u, 4u, 0u)
    LITERAL(256u, 4u)
}

/* Lengths 0..256 in 8-byte elements, at offsets that are multiples of 4 (and of 8). */
static void literal_doubles(size_t to, size_t from)
{
    COPY16(LITERAL, 8u, 8u, 0u)
    COPY16(LITERAL, 8u, 8u, 16u)
    LITERAL(256u, 8u)
}

int main(void)
{
    static const size_t elements[] = {1u, 2u, 4u, 8u};
    size_t e, to, from, bytes;
    for (e = 0u; e < sizeof elements / sizeof elements[0]; ++e) {
        const size_t element = elements[e];
        const size_t alignment = element < 4u ? element : 4u;
        const size_t offsets = alignment < 4u ? 4u : 8u;  /* every residue modulo 4, and both halves of 8 */
        for (to = 0u; to < offsets; to += alignment) {
            for (from = 0u; from < offsets; from += alignment) {
                /* Run-time lengths (volatile: the compiler may not see them). */
                for (bytes = 0u; bytes <= LONGEST; bytes += element) {
                    volatile size_t length = bytes;
                    prepare();
                    kernelgen_copy(destination_bytes() + to, source_bytes() + from, length, element);
                    verify(to, from, bytes, element, 0, 0);
                    /* A scatter's copy of data before its loops: out of line on Thumb-2. */
                    prepare();
                    kernelgen_copy_once(destination_bytes() + to, source_bytes() + from, length, element);
                    verify(to, from, bytes, element, 0, 0);
                }
                if (element == 1u) {
                    literal_bytes(to, from);
                } else if (element == 2u) {
                    literal_halves(to, from);
                } else if (element == 4u) {
                    literal_words(to, from);
                } else {
                    literal_doubles(to, from);
                }
            }
        }
    }
    table_copies();
    printf("%lu cases, %lu failed\n", cases, failures);
    return failures == 0u ? 0 : 1;
}
