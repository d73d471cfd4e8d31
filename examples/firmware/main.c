/* Calls the generated kernels on known inputs and compares every output with values worked out by hand.
 * Exit status: 0 when all agree, else the number of the first check that failed (no stdio needed). */
#include <stddef.h>
#include <stdint.h>

#include "embed_tokens.h"
#include "kv_cache_write.h"

static int same(const float *got, const float *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            return 0;
        }
    }
    return 1;
}

int main(void)
{
    /* Embedding table [16, 4]: row r holds r*10 + c. */
    float table[EMBED_TOKENS_DATA_SIZE];
    float rows[EMBED_TOKENS_OUTPUT_SIZE];
    const int32_t tokens[EMBED_TOKENS_INDICES_SIZE] = {3, 0, -2}; /* -2 is row 14 */
    const int32_t bad_tokens[EMBED_TOKENS_INDICES_SIZE] = {1, 16, 2}; /* 16 is past the last row */
    const float rows_expected[EMBED_TOKENS_OUTPUT_SIZE] = {30, 31, 32, 33, 0, 1, 2, 3, 140, 141, 142, 143};

    /* Key cache [2 heads, 4 slots, 3 values], updated in place at (head, slot) pairs. */
    float cache[KV_CACHE_WRITE_DATA_SIZE] = {0};
    const int64_t slots[KV_CACHE_WRITE_INDICES_SIZE] = {0, 2, 1, -1}; /* head 0 slot 2; head 1 slot 3 */
    const int64_t bad_slots[KV_CACHE_WRITE_INDICES_SIZE] = {0, 1, 1, 4}; /* slot 4 does not exist */
    const float values[KV_CACHE_WRITE_UPDATES_SIZE] = {1, 2, 3, 4, 5, 6};
    const float cache_expected[KV_CACHE_WRITE_DATA_SIZE] = {
        0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, /* head 0: slots 0..3 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 6  /* head 1 */
    };
    size_t i;

    for (i = 0; i < EMBED_TOKENS_DATA_SIZE; ++i) {
        table[i] = (float)((i / 4u) * 10u + i % 4u);
    }
    for (i = 0; i < EMBED_TOKENS_OUTPUT_SIZE; ++i) {
        rows[i] = -1.0f;
    }
    if (embed_tokens(table, bad_tokens, rows) != EMBED_TOKENS_ERROR_INDEX_OUT_OF_RANGE) {
        return 1;
    }
    for (i = 0; i < EMBED_TOKENS_OUTPUT_SIZE; ++i) {
        if (rows[i] != -1.0f) {
            return 2; /* a refused call writes nothing */
        }
    }
    if (embed_tokens(table, tokens, rows) != EMBED_TOKENS_OK) {
        return 3;
    }
    if (!same(rows, rows_expected, EMBED_TOKENS_OUTPUT_SIZE)) {
        return 4;
    }

    if (kv_cache_write(cache, bad_slots, values, cache) != KV_CACHE_WRITE_ERROR_INDEX_OUT_OF_RANGE) {
        return 5;
    }
    for (i = 0; i < KV_CACHE_WRITE_DATA_SIZE; ++i) {
        if (cache[i] != 0.0f) {
            return 6; /* the cache is untouched */
        }
    }
    if (kv_cache_write(cache, slots, values, cache) != KV_CACHE_WRITE_OK) {
        return 7;
    }
    if (!same(cache, cache_expected, KV_CACHE_WRITE_DATA_SIZE)) {
        return 8;
    }
    return 0;
}
