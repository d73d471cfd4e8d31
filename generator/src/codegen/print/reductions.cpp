#include "codegen/print/reductions.h"

namespace kernelgen {

namespace {

// The shared float16/bfloat16 conversions' common beginning: "<prefix>_to_float" and "<prefix>_from_float".
std::string half_prefix(DType dtype) { return "kernelgen_" + std::string(info(dtype).name); }

// The value a combine of the simpler categories returns, as one C expression.
std::string reduction_expression(DType dtype, Reduction reduction) {
    const DTypeInfo& type = info(dtype);
    const std::string element(type.c_type);
    const std::string wide = type.bits <= 32 ? "uint32_t" : "uint64_t";
    switch (type.category) {
        case Category::HalfFloat:
        case Category::Complex:
        case Category::String:
            return "update";  // reduction_statements() handles these; a string reduction is refused when read
        case Category::Bool:
            return reduction == Reduction::Add || reduction == Reduction::Max ? "(bool)(current || update)"
                                                                              : "(bool)(current && update)";
        case Category::Float:
            switch (reduction) {
                case Reduction::Add: return "current + update";
                case Reduction::Mul: return "current * update";
                // Ties go to the update, as numpy's maximum/minimum (ONNX's reference) do: max(-0, +0) is
                // the later value.
                case Reduction::Max: return "(update >= current || update != update) ? update : current";
                default: return "(update <= current || update != update) ? update : current";
            }
        case Category::SignedInt:
        case Category::UnsignedInt:
            if (type.category == Category::UnsignedInt && (type.bits == 32 || type.bits == 64)) {
                // Unsigned arithmetic of full width wraps by definition and is never promoted to int.
                if (reduction == Reduction::Add) return "current + update";
                if (reduction == Reduction::Mul) return "current * update";
            }
            switch (reduction) {
                case Reduction::Add: return "(" + element + ")((" + wide + ")current + (" + wide + ")update)";
                case Reduction::Mul: return "(" + element + ")((" + wide + ")current * (" + wide + ")update)";
                case Reduction::Max: return "update > current ? update : current";
                default: return "update < current ? update : current";
            }
    }
    return "update";
}

}  // namespace

std::string reduction_doc(DType dtype, Reduction reduction) {
    const bool order = reduction == Reduction::Max || reduction == Reduction::Min;
    const DTypeInfo& type = info(dtype);
    switch (type.category) {
        case Category::HalfFloat:
            return order ? "compared as float32; a NaN operand gives NaN and a tie (-0, +0) takes the update."
                         : "computed in float32 and rounded to the nearest " + std::string(type.name) +
                               ", ties to even, as a tensor of that type would.";
        case Category::Complex:
            return reduction == Reduction::Add ? "complex addition." : "complex multiplication (no special cases for infinities).";
        case Category::String:
            return "";
        case Category::Float:
            return order
                       ? "a NaN operand gives NaN and a tie (-0, +0) takes the update, as numpy's maximum and minimum do."
                       : "IEEE arithmetic in the element type.";
        case Category::SignedInt:
        case Category::UnsignedInt:
            return reduction == Reduction::Add || reduction == Reduction::Mul
                       ? "wraps modulo 2^" + std::to_string(type.bits) + ", computed in unsigned arithmetic (no overflow)."
                       : "the larger or smaller value.";
        case Category::Bool:
            return reduction == Reduction::Add || reduction == Reduction::Max ? "logical or, as ONNX Runtime."
                                                                              : "logical and, as ONNX Runtime.";
    }
    return "";
}

std::vector<std::string> reduction_statements(DType dtype, Reduction reduction) {
    const DTypeInfo& type = info(dtype);
    const std::string element(type.c_type);
    switch (type.category) {
        case Category::HalfFloat: {
            const std::string convert = half_prefix(dtype) + "_to_float";
            const std::string as_floats = "const float a = " + convert + "(current), b = " + convert + "(update);";
            switch (reduction) {
                case Reduction::Add: return {as_floats, "return " + half_prefix(dtype) + "_from_float(a + b);"};
                case Reduction::Mul: return {as_floats, "return " + half_prefix(dtype) + "_from_float(a * b);"};
                case Reduction::Max: return {as_floats, "return (b >= a || b != b) ? update : current;"};
                default: return {as_floats, "return (b <= a || b != b) ? update : current;"};
            }
        }
        case Category::Complex:
            if (reduction == Reduction::Add) {
                return {element + " result;", "result.re = current.re + update.re;", "result.im = current.im + update.im;",
                        "return result;"};
            }
            return {element + " result;", "result.re = current.re * update.re - current.im * update.im;",
                    "result.im = current.re * update.im + current.im * update.re;", "return result;"};
        default:
            return {"return " + reduction_expression(dtype, reduction) + ";"};
    }
}

}  // namespace kernelgen
