#pragma once
// Status and StatusOr<T>: how every expected failure in flowbench travels (bad graphs, bad feeds,
// missing files, dead ranks). Broken engine invariants use FB_CHECK instead and abort.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

namespace fb {

// Error codes follow TensorFlow's (and absl's) canonical codes.
enum class Code {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kResourceExhausted = 8,
};

const char* CodeName(Code code);

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message);
  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return ok() ? Code::kOk : state_->code; }
  const std::string& message() const;
  // "InvalidArgument: <message>", or "OK".
  std::string ToString() const;
  // Returns a copy whose message is `prefix + message()`; OK stays OK.
  Status WithPrefix(const std::string& prefix) const;

 private:
  struct State {
    Code code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

inline std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

namespace internal {
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace internal

template <typename... Args>
Status InvalidArgument(const Args&... a) { return Status(Code::kInvalidArgument, internal::StrCat(a...)); }
template <typename... Args>
Status NotFound(const Args&... a) { return Status(Code::kNotFound, internal::StrCat(a...)); }
template <typename... Args>
Status Internal(const Args&... a) { return Status(Code::kInternal, internal::StrCat(a...)); }
template <typename... Args>
Status Unimplemented(const Args&... a) { return Status(Code::kUnimplemented, internal::StrCat(a...)); }
template <typename... Args>
Status FailedPrecondition(const Args&... a) { return Status(Code::kFailedPrecondition, internal::StrCat(a...)); }
template <typename... Args>
Status OutOfRange(const Args&... a) { return Status(Code::kOutOfRange, internal::StrCat(a...)); }
template <typename... Args>
Status AlreadyExists(const Args&... a) { return Status(Code::kAlreadyExists, internal::StrCat(a...)); }
template <typename... Args>
Status DataLoss(const Args&... a) { return Status(Code::kDataLoss, internal::StrCat(a...)); }
template <typename... Args>
Status Aborted(const Args&... a) { return Status(Code::kAborted, internal::StrCat(a...)); }
template <typename... Args>
Status Unavailable(const Args&... a) { return Status(Code::kUnavailable, internal::StrCat(a...)); }
template <typename... Args>
Status Cancelled(const Args&... a) { return Status(Code::kCancelled, internal::StrCat(a...)); }
template <typename... Args>
Status ResourceExhausted(const Args&... a) { return Status(Code::kResourceExhausted, internal::StrCat(a...)); }
template <typename... Args>
Status DeadlineExceeded(const Args&... a) { return Status(Code::kDeadlineExceeded, internal::StrCat(a...)); }

// Holds either a value or a non-OK Status.
template <typename T>
class StatusOr {
 public:
  StatusOr(const Status& s) : status_(s) {  // NOLINT: implicit by design
    if (s.ok()) status_ = Internal("StatusOr constructed from OK status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// Aborts with file and line: for broken engine invariants only, never for user input.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* cond) {
    stream_ << file << ":" << line << ": FB_CHECK failed: " << cond << " ";
  }
  [[noreturn]] ~CheckFailure() {
    std::cerr << stream_.str() << std::endl;
    std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

}  // namespace fb

#define FB_CHECK(cond) \
  if (cond) {          \
  } else               \
    ::fb::CheckFailure(__FILE__, __LINE__, #cond).stream()

#define FB_CONCAT_INNER(a, b) a##b
#define FB_CONCAT(a, b) FB_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                  \
  do {                                         \
    ::fb::Status _fb_status = (expr);          \
    if (!_fb_status.ok()) return _fb_status;   \
  } while (0)

#define FB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  FB_ASSIGN_OR_RETURN_IMPL(FB_CONCAT(_fb_statusor_, __LINE__), lhs, expr)
