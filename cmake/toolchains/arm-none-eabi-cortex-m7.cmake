# Toolchain file: arm-none-eabi-gcc for Cortex-M7 with hard-float (FPv5, double precision). See arm-none-eabi-cortex-m4f.cmake.
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
