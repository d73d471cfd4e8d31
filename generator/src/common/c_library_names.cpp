#include "common/c_library_names.h"

#include <set>
#include <string>

namespace kernelgen {
namespace {

// <math.h> (and <complex.h>) functions that come in float (`f`) and long double (`l`) variants too.
constexpr std::string_view kMathFunctions[] = {
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh",
    "exp", "exp2", "expm1", "frexp", "ilogb", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf",
    "scalbn", "scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil",
    "floor", "nearbyint", "rint", "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod",
    "remainder", "remquo", "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma",
    "cabs", "cacos", "cacosh", "carg", "casin", "casinh", "catan", "catanh", "ccos", "ccosh", "cexp",
    "cimag", "clog", "conj", "cpow", "cproj", "creal", "csin", "csinh", "csqrt", "ctan", "ctanh"};

// Every other function, function-like macro and lowercase type or object name of clause 7.
constexpr std::string_view kOtherNames[] = {
    // <assert.h>, <ctype.h>, <errno.h>, <fenv.h>
    "assert", "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint",
    "ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper", "errno", "feclearexcept",
    "fegetexceptflag", "feraiseexcept", "fesetexceptflag", "fetestexcept", "fegetround", "fesetround",
    "fegetenv", "feholdexcept", "fesetenv", "feupdateenv",
    // <inttypes.h>, <locale.h>, <math.h> classification macros, <setjmp.h>, <signal.h>, <stdarg.h>
    "imaxabs", "imaxdiv", "strtoimax", "strtoumax", "wcstoimax", "wcstoumax", "setlocale", "localeconv",
    "fpclassify", "isfinite", "isinf", "isnan", "isnormal", "signbit", "isgreater", "isgreaterequal",
    "isless", "islessequal", "islessgreater", "isunordered", "setjmp", "longjmp", "jmp_buf", "signal",
    "raise", "va_list", "va_start", "va_arg", "va_copy", "va_end", "complex", "imaginary", "offsetof",
    // <stdio.h>
    "remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen", "setbuf", "setvbuf",
    "fprintf", "fscanf", "printf", "scanf", "snprintf", "sprintf", "sscanf", "vfprintf", "vfscanf",
    "vprintf", "vscanf", "vsnprintf", "vsprintf", "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc",
    "getchar", "gets", "putc", "putchar", "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek",
    "fsetpos", "ftell", "rewind", "clearerr", "feof", "ferror", "perror", "stdin", "stdout", "stderr",
    "FILE",
    // <stdlib.h>
    "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul",
    "strtoull", "rand", "srand", "calloc", "free", "malloc", "realloc", "abort", "atexit", "exit", "_Exit",
    "getenv", "system", "bsearch", "qsort", "abs", "labs", "llabs", "div", "ldiv", "lldiv", "mblen",
    "mbtowc", "wctomb", "mbstowcs", "wcstombs",
    // <time.h>
    "clock", "difftime", "mktime", "time", "asctime", "ctime", "gmtime", "localtime", "strftime",
    // <wchar.h>, <wctype.h>
    "fwprintf", "fwscanf", "swprintf", "swscanf", "vfwprintf", "vfwscanf", "vswprintf", "vswscanf",
    "vwprintf", "vwscanf", "wprintf", "wscanf", "fgetwc", "fgetws", "fputwc", "fputws", "fwide", "getwc",
    "getwchar", "putwc", "putwchar", "ungetwc", "wcstod", "wcstof", "wcstold", "wcstol", "wcstoll",
    "wcstoul", "wcstoull", "wcscpy", "wcsncpy", "wmemcpy", "wmemmove", "wcscat", "wcsncat", "wcscmp",
    "wcscoll", "wcsncmp", "wcsxfrm", "wmemcmp", "wcschr", "wcscspn", "wcspbrk", "wcsrchr", "wcsspn",
    "wcsstr", "wcstok", "wmemchr", "wcslen", "wmemset", "wcsftime", "btowc", "wctob", "mbsinit", "mbrlen",
    "mbrtowc", "wcrtomb", "mbsrtowcs", "wcsrtombs", "iswalnum", "iswalpha", "iswblank", "iswcntrl",
    "iswdigit", "iswgraph", "iswlower", "iswprint", "iswpunct", "iswspace", "iswupper", "iswxdigit",
    "iswctype", "wctype", "towlower", "towupper", "towctrans", "wctrans"};

const std::set<std::string, std::less<>>& names() {
    static const std::set<std::string, std::less<>> all = [] {
        std::set<std::string, std::less<>> out;
        for (auto name : kMathFunctions) {
            out.emplace(name);
            out.emplace(std::string(name) + "f");
            out.emplace(std::string(name) + "l");
        }
        for (auto name : kOtherNames) out.emplace(name);
        return out;
    }();
    return all;
}

}  // namespace

bool is_c_library_name(std::string_view name) { return names().count(name) != 0; }

}  // namespace kernelgen
