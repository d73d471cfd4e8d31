# What every kernelgen toolchain file shares. The family file (arm-none-eabi-common.cmake, riscv64-unknown-elf-*,
# avr-gcc.cmake) sets CMAKE_SYSTEM_PROCESSOR, the compilers, KERNELGEN_TARGET_CPU_FLAGS (the CPU flags, on every
# compile and link) and KERNELGEN_LINK_SPECS (how a program links), then includes this file.
set(CMAKE_SYSTEM_NAME Generic)
# No host runtime to link a test program against: try_compile builds static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
string(JOIN " " _kernelgen_cpu_flags ${KERNELGEN_TARGET_CPU_FLAGS})
set(CMAKE_C_FLAGS_INIT "${_kernelgen_cpu_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_kernelgen_cpu_flags}")
set(CMAKE_ASM_FLAGS_INIT "${_kernelgen_cpu_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${KERNELGEN_LINK_SPECS}")
# Programs (the generator) come from the host; libraries and headers only from the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
