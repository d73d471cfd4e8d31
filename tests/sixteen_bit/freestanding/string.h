/* The declarations of <string.h> that kernels use, for a freestanding compile with no C library (clang
 * --target=msp430 in the strict_c99_clang_msp430 test: Debian ships no MSP430 C library). */
#ifndef KERNELGEN_TEST_FREESTANDING_STRING_H
#define KERNELGEN_TEST_FREESTANDING_STRING_H

#include <stddef.h>

void *memcpy(void *restrict to, const void *restrict from, size_t size);
void *memset(void *to, int value, size_t size);

#endif
