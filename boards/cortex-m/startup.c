/* Bare-metal start-up for programs run on qemu-system-arm's Cortex-M boards (mps2-an385, -an386, -an500, -an505,
 * mps3-an547, microbit), as kernelgen's tests run theirs; installed to share/kernelgen/boards/cortex-m/. Link with
 * --specs=rdimon.specs -nostartfiles -L <boards>/cortex-m -T <boards>/<board>/<board>.ld. The vector table comes
 * first in flash, where the core boots from; the reset handler copies .data, zeroes .bss, enables the FPU when
 * the build uses it, starts newlib (semihosting: printf and exit reach the host, and the program's exit status
 * becomes qemu's), and runs main(). A fault exits with status 3 instead of hanging. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern uint32_t __data_load__, __data_start__, __data_end__, __bss_start__, __bss_end__, __stack_top__;
extern int main(void);
extern void __libc_init_array(void);
extern void initialise_monitor_handles(void);

void reset_handler(void);
void fault_handler(void);
void _init(void);
void _fini(void);

void _init(void) {}
void _fini(void) {}

void fault_handler(void)
{
    printf("fault: the program stopped on a processor exception\n");
    _Exit(3);
}

void reset_handler(void)
{
    uint32_t *from = &__data_load__;
    uint32_t *to = &__data_start__;
    while (to < &__data_end__) {
        *to++ = *from++;
    }
    for (to = &__bss_start__; to < &__bss_end__; ++to) {
        *to = 0u;
    }
#if defined(__ARM_FP)
    /* CPACR: full access to coprocessors 10 and 11, the FPU. */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    __libc_init_array();
    initialise_monitor_handles();
    exit(main());
}

typedef void (*vector)(void);

/* Initial stack pointer, reset, then NMI, HardFault, MemManage, BusFault and UsageFault. */
__attribute__((section(".vectors"), used)) static const vector vectors[8] = {
    (vector)(uintptr_t)&__stack_top__, reset_handler, fault_handler, fault_handler,
    fault_handler, fault_handler, fault_handler, 0};
