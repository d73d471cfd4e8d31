# Toolchain file: riscv64-unknown-elf-gcc for RV32IMAC (32-bit, multiply and divide, atomics, compressed; soft
# float) with picolibc, whose specs file every compile and link uses (its headers, C library and linker
# script, placed by the __flash/__ram symbols: see share/kernelgen/boards/riscv-virt/riscv_virt.ld).
#   cmake -S firmware -B build-rv32 -DCMAKE_TOOLCHAIN_FILE=<this file> -DKERNELGEN_EXECUTABLE=<host kernelgen>
# RISCV_TOOLCHAIN_PREFIX overrides where the compilers are found (default: riscv64-unknown-elf- on the PATH).
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(RISCV_TOOLCHAIN_PREFIX "riscv64-unknown-elf-" CACHE STRING "Path and prefix of the riscv64-unknown-elf tools")
set(CMAKE_C_COMPILER "${RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${RISCV_TOOLCHAIN_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${RISCV_TOOLCHAIN_PREFIX}gcc")
set(KERNELGEN_TARGET_CPU_FLAGS -march=rv32imac -mabi=ilp32 --specs=picolibc.specs)
# How a program links besides: picolibc's default start-up and no system calls, unless the project says
# otherwise (--oslib=semihost --crt0=semihost: printf and exit through semihosting, as under qemu).
set(KERNELGEN_LINK_SPECS "" CACHE STRING
    "Link flags of bare-metal programs: empty, or --oslib=semihost --crt0=semihost (semihosting)")
include("${CMAKE_CURRENT_LIST_DIR}/bare-metal-common.cmake")
