/* Exposes the static float16/bfloat16 conversions of two generated kernels (float16 and bfloat16 ScatterND
 * add, from specs/element_types.json) to tests/half_conversion_test.cpp. */
#include <stdint.h>

#include "half_accumulate.c"
#include "bf16_accumulate.c"

float shim_float16_to_float(uint16_t bits);
uint16_t shim_float16_from_float(float value);
float shim_bfloat16_to_float(uint16_t bits);
uint16_t shim_bfloat16_from_float(float value);

float shim_float16_to_float(uint16_t bits) { return kernelgen_half_accumulate_float16_to_float(bits); }
uint16_t shim_float16_from_float(float value) { return kernelgen_half_accumulate_float16_from_float(value); }
float shim_bfloat16_to_float(uint16_t bits) { return kernelgen_bf16_accumulate_bfloat16_to_float(bits); }
uint16_t shim_bfloat16_from_float(float value) { return kernelgen_bf16_accumulate_bfloat16_from_float(value); }
