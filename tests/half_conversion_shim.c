/* Exposes the float16/bfloat16 conversions of the generated support code (kernelgen_support.h and .c, as
 * kernelgen_add_kernels() builds them) to tests/half_conversion_test.cpp; bfloat16 to float is a static
 * inline function of the header. */
#include <stdint.h>

#include "kernelgen_support.h"

float shim_float16_to_float(uint16_t bits);
uint16_t shim_float16_from_float(float value);
float shim_bfloat16_to_float(uint16_t bits);
uint16_t shim_bfloat16_from_float(float value);

float shim_float16_to_float(uint16_t bits) { return kernelgen_float16_to_float(bits); }
uint16_t shim_float16_from_float(float value) { return kernelgen_float16_from_float(value); }
float shim_bfloat16_to_float(uint16_t bits) { return kernelgen_bfloat16_to_float(bits); }
uint16_t shim_bfloat16_from_float(float value) { return kernelgen_bfloat16_from_float(value); }
