/* ATmega2560 under simavr (simavr -m atmega2560): stdout on UART0, which simavr prints, and a stop that ends
 * the simulation. Link it with a program built by avr-gcc and avr-libc; it needs no call: avr-libc's start-up
 * code runs board_init() before main() (section .init8), and exit() (main's return) reaches board_stop()
 * (section .fini0), which sleeps with interrupts off, the state simavr stops on. simavr's exit status does not
 * carry main's: a program prints its result. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdio.h>

void board_init(void) __attribute__((naked, used, section(".init8")));
void board_stop(void) __attribute__((naked, used, section(".fini0")));

static int uart_put(char c, FILE *stream)
{
    (void)stream;
    while ((UCSR0A & _BV(UDRE0)) == 0u) {
    }
    UDR0 = (uint8_t)c;
    return 0;
}

static FILE uart = FDEV_SETUP_STREAM(uart_put, NULL, _FDEV_SETUP_WRITE);

void board_init(void)
{
    UBRR0 = 0u;
    UCSR0B = _BV(TXEN0);
    stdout = &uart;
}

void board_stop(void)
{
    cli();
    sleep_enable();
    sleep_cpu();
}
