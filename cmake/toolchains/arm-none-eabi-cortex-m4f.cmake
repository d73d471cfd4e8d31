# Toolchain file: arm-none-eabi-gcc for Cortex-M4F with hard-float (FPv4-SP). The generator is a host
# program: build it natively first and pass it as KERNELGEN_EXECUTABLE (or find_package(KernelGen)).
#   cmake -S firmware -B build-m4 -DCMAKE_TOOLCHAIN_FILE=<this file> -DKERNELGEN_EXECUTABLE=<host kernelgen>
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
