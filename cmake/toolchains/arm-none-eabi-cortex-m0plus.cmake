# Toolchain file: arm-none-eabi-gcc for Cortex-M0+ (ARMv6-M, soft float). See arm-none-eabi-cortex-m4f.cmake.
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m0plus -mthumb -mfloat-abi=soft)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
