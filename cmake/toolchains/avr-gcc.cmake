# Toolchain file: avr-gcc with avr-libc for an 8-bit AVR, the ATmega2560 unless KERNELGEN_AVR_MCU names another
# (-mmcu). int and size_t are 16 bits and double 32 there: kernels whose tensors exceed 64 KB or whose elements
# are 64-bit doubles refuse the target with their own #error.
#   cmake -S firmware -B build-avr -DCMAKE_TOOLCHAIN_FILE=<this file> -DKERNELGEN_EXECUTABLE=<host kernelgen>
# AVR_TOOLCHAIN_PREFIX overrides where the compilers are found (default: avr- on the PATH).
set(CMAKE_SYSTEM_PROCESSOR avr)
set(AVR_TOOLCHAIN_PREFIX "avr-" CACHE STRING "Path and prefix of the avr-gcc tools")
set(KERNELGEN_AVR_MCU "atmega2560" CACHE STRING "The AVR device (avr-gcc -mmcu)")
set(CMAKE_C_COMPILER "${AVR_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${AVR_TOOLCHAIN_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${AVR_TOOLCHAIN_PREFIX}gcc")
set(KERNELGEN_TARGET_CPU_FLAGS -mmcu=${KERNELGEN_AVR_MCU})
set(KERNELGEN_LINK_SPECS "" CACHE STRING "Link flags of programs")
include("${CMAKE_CURRENT_LIST_DIR}/bare-metal-common.cmake")
