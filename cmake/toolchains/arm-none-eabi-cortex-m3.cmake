# Toolchain file: arm-none-eabi-gcc for Cortex-M3 (ARMv7-M, soft float). See arm-none-eabi-cortex-m4f.cmake.
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m3 -mthumb -mfloat-abi=soft)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
