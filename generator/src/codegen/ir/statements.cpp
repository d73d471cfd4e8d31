#include "codegen/ir/statements.h"

namespace kernelgen {
namespace schedule {

Expr Expr::plus(uint64_t value) const {
    Expr out = *this;
    out.constant += value;
    return out;
}

Expr Expr::plus(const Expr& other) const {
    Expr out = *this;
    out.terms.insert(out.terms.end(), other.terms.begin(), other.terms.end());
    out.constant += other.constant;
    return out;
}

Expr variable(const std::string& name, uint64_t coefficient) {
    Term term;
    term.name = name;
    term.coefficient = coefficient;
    return Expr{{term}, 0};
}

Expr scaled(const std::string& name, const std::string& factor, uint64_t coefficient) {
    if (factor.empty()) return name.empty() ? Expr{{}, coefficient} : variable(name, coefficient);
    if (name.empty()) return variable(factor, coefficient);
    Expr out = variable(name, coefficient);
    out.terms.front().factor = factor;
    return out;
}

Expr count_times(uint64_t coefficient) {
    Term term;
    term.kind = Term::Kind::Count;
    term.coefficient = coefficient;
    return Expr{{term}, 0};
}

Expr quotient(const std::string& name, uint64_t divisor, uint64_t coefficient) {
    Term term;
    term.kind = Term::Kind::Quotient;
    term.name = name;
    term.divisor = divisor;
    term.coefficient = coefficient;
    return Expr{{term}, 0};
}

}  // namespace schedule
}  // namespace kernelgen
