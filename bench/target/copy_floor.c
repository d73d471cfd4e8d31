/* The reference copies that bench/target_costs.py measures beside the copy-bound cases of bench/specs/: the bytes
 * a kernel writes, moved in one call from the start of its data with no index work.
 *
 *   kg_copy_floor   the floor: the fastest plain copy loop of each target class, written in assembly so that no
 *                   compiler decides it. Cortex-M4F (Thumb-2): one ldm and one stm of 8 registers per 32 bytes;
 *                   Cortex-M0 (Thumb-1): one ldm and one stm of 4 low registers per 16 bytes; ATmega2560: 16
 *                   ld/st pairs per 16 bytes (the loop's own cost about 1/16 of the copy). `bytes` must be a
 *                   multiple of the block (32, 16, 16); the script measures the floor only for such cases.
 *   kg_copy_memcpy  the target C library's memcpy of the same bytes in one call (newlib, avr-libc).
 *
 * Both return 0, as a kernel does on success. Not part of the kernels: compiled only into the measuring program. */
#include <stddef.h>
#include <string.h>

int kg_copy_floor(void *to, const void *from, size_t bytes);
int kg_copy_memcpy(void *to, const void *from, size_t bytes);

int kg_copy_floor(void *to, const void *from, size_t bytes)
{
#if defined(__arm__)
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB >= 2
#define REGISTERS "r3, r4, r5, r6, r8, r10, r11, r12"
#define CLOBBERS "r3", "r4", "r5", "r6", "r8", "r10", "r11", "r12"
#else
#define REGISTERS "r3, r4, r5, r6"
#define CLOBBERS "r3", "r4", "r5", "r6"
#endif
    const unsigned char *end = (const unsigned char *)from + bytes;
    if (bytes != 0u) {
        __asm__ volatile("1:\n\t"
                         "ldmia %[from]!, {" REGISTERS "}\n\t"
                         "stmia %[to]!, {" REGISTERS "}\n\t"
                         "cmp %[from], %[end]\n\t"
                         "bne 1b"
                         : [to] "+l"(to), [from] "+l"(from)
                         : [end] "l"(end)
                         : CLOBBERS, "cc", "memory");
    }
#elif defined(__AVR__)
    size_t n = bytes / 16u;
    if (n != 0u) {
        /* Written out (gcc sizes an asm statement by its lines: a .rept would hide 30 of them). */
#define PAIR "ld __tmp_reg__, Z+\n\tst X+, __tmp_reg__\n\t"
#define PAIRS_4 PAIR PAIR PAIR PAIR
        __asm__ volatile("1:\n\t" PAIRS_4 PAIRS_4 PAIRS_4 PAIRS_4
                         "sbiw %2, 1\n\t"
                         "brne 1b"
                         : "+x"(to), "+z"(from), "+w"(n)
                         :
                         : "memory");
    }
#else
    memcpy(to, from, bytes);
#endif
    return 0;
}

int kg_copy_memcpy(void *to, const void *from, size_t bytes)
{
    memcpy(to, from, bytes);
    return 0;
}
