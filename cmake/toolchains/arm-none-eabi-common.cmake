# What the arm-none-eabi toolchain files share; they set KERNELGEN_TARGET_CPU_FLAGS first.
# ARM_TOOLCHAIN_PREFIX overrides where the compilers are found (default: arm-none-eabi- on the PATH).
set(CMAKE_SYSTEM_PROCESSOR arm)
set(ARM_TOOLCHAIN_PREFIX "arm-none-eabi-" CACHE STRING "Path and prefix of the arm-none-eabi tools")
set(CMAKE_C_COMPILER "${ARM_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${ARM_TOOLCHAIN_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${ARM_TOOLCHAIN_PREFIX}gcc")
# How a bare-metal program links: newlib with stubs for the system calls no operating system provides
# (--specs=nosys.specs), unless the project says otherwise: --specs=rdimon.specs for semihosting (with the
# board files of share/kernelgen/boards/), or "" when its own start-up code and C library cover them.
set(KERNELGEN_LINK_SPECS "--specs=nosys.specs" CACHE STRING
    "Link flags of bare-metal programs: --specs=nosys.specs, --specs=rdimon.specs (semihosting) or empty")
include("${CMAKE_CURRENT_LIST_DIR}/bare-metal-common.cmake")
