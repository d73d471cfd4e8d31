// The one way a function of the generator says it failed: it returns a Result, its value or the problem that
// stopped it (a sentence a message to the user is built from). What the user sees is made of these where they are
// reported: a spec's problems as Diagnostics (file, JSON pointer, message), import's as lines naming the model and
// the node. The one exception is a resource limit passed (import's time and memory), which unwinds the whole
// analysis as an exception (LimitExceeded).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace kernelgen {

// Why something could not be done: a sentence, "" where a caller needs no reason (a Result that is simply absent).
struct Problem {
    std::string message;
};

// The value of a check that has none beyond passing (Result<Ok>).
struct Ok {};

template <typename T>
class Result {
public:
    Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as a function returns its value
    Result(Problem problem) : problem_(std::move(problem.message)) {}  // NOLINT: implicit likewise

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    T& operator*() { return *value_; }
    const T& operator*() const { return *value_; }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }
    // The value, taken out (the result is then empty).
    T take() { return std::move(*value_); }
    // The problem; "" when there is a value.
    const std::string& problem() const { return problem_; }

private:
    std::optional<T> value_;
    std::string problem_;
};

// A check passed.
inline Result<Ok> ok() { return Ok{}; }

}  // namespace kernelgen
