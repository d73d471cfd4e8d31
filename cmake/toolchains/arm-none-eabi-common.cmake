# What the arm-none-eabi toolchain files share; they set KERNELGEN_TARGET_CPU_FLAGS first.
# ARM_TOOLCHAIN_PREFIX overrides where the compilers are found (default: arm-none-eabi- on the PATH).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(ARM_TOOLCHAIN_PREFIX "arm-none-eabi-" CACHE STRING "Path and prefix of the arm-none-eabi tools")
set(CMAKE_C_COMPILER "${ARM_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${ARM_TOOLCHAIN_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${ARM_TOOLCHAIN_PREFIX}gcc")
# No host runtime to link a test program against: try_compile builds static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
string(JOIN " " _kernelgen_cpu_flags ${KERNELGEN_TARGET_CPU_FLAGS})
set(CMAKE_C_FLAGS_INIT "${_kernelgen_cpu_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_kernelgen_cpu_flags}")
set(CMAKE_ASM_FLAGS_INIT "${_kernelgen_cpu_flags}")
# How a bare-metal program links: newlib with stubs for the system calls no operating system provides
# (--specs=nosys.specs), unless the project says otherwise: --specs=rdimon.specs for semihosting (with the
# board files of share/kernelgen/boards/), or "" when its own start-up code and C library cover them.
set(KERNELGEN_LINK_SPECS "--specs=nosys.specs" CACHE STRING
    "Link flags of bare-metal programs: --specs=nosys.specs, --specs=rdimon.specs (semihosting) or empty")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${KERNELGEN_LINK_SPECS}")
# Programs (the generator) come from the host; libraries and headers only from the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
