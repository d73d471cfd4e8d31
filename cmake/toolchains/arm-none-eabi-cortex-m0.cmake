# Toolchain file: arm-none-eabi-gcc for Cortex-M0 (ARMv6-M, soft float; no divide instruction). See arm-none-eabi-cortex-m4f.cmake.
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m0 -mthumb -mfloat-abi=soft)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
