# Toolchain file: arm-none-eabi-gcc for Cortex-M55 (ARMv8.1-M) with hard-float and the M-profile vector
# extension (MVE). See arm-none-eabi-cortex-m4f.cmake.
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -mfpu=auto)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
