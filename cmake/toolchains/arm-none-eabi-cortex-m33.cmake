# Toolchain file: arm-none-eabi-gcc for Cortex-M33 (ARMv8-M Mainline) with hard-float (FPv5, single
# precision). See arm-none-eabi-cortex-m4f.cmake.
set(KERNELGEN_TARGET_CPU_FLAGS -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16)
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
