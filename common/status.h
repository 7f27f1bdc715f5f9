// Status and Result<T>: how errors cross library boundaries.
//
// A Status is either OK or a code plus a one-line message that names the
// file, offset or line it is about ("tablet 0001/000003.tab: page 12 at
// offset 393216: checksum mismatch"). Hot loops do not return a Status on
// every step; cursors store the first error and expose it via status()
// (leveldb's convention). Thread-safety: value types, no shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace dps {

class [[nodiscard]] Status {
 public:
  // Never renumber: the codes map to exit statuses and wire error frames.
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound = 1,
    kCorruption = 2,
    kInvalidArgument = 3,
    kIOError = 4,
    kCancelled = 5,
    kUnsupported = 6,
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Cancelled(std::string msg) { return Status(Code::kCancelled, std::move(msg)); }
  static Status Unsupported(std::string msg) { return Status(Code::kUnsupported, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  const std::string& message() const { return message_; }

  // "Corruption: <message>"; "OK" when ok.
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(std::string_view context) const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or an error status. REQUIRES: ok() before value().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}            // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}    // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace dps

// The same inside a coroutine returning an awaitable Status.
#define DPS_CO_RETURN_IF_ERROR(expr)        \
  do {                                      \
    ::dps::Status dps_status_ = (expr);     \
    if (!dps_status_.ok()) co_return dps_status_; \
  } while (0)

#define DPS_RETURN_IF_ERROR(expr)        \
  do {                                   \
    ::dps::Status dps_status_ = (expr);  \
    if (!dps_status_.ok()) return dps_status_; \
  } while (0)

#define DPS_CONCAT_INNER(a, b) a##b
#define DPS_CONCAT(a, b) DPS_CONCAT_INNER(a, b)
#define DPS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
// DPS_ASSIGN_OR_RETURN(auto x, MakeX()); returns the error status on failure.
#define DPS_ASSIGN_OR_RETURN(lhs, expr) \
  DPS_ASSIGN_OR_RETURN_IMPL(DPS_CONCAT(dps_result_, __LINE__), lhs, expr)
