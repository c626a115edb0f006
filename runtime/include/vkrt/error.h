// Errors are values: every fallible call returns Status or Result<T>.
//
// Codes are ExecuTorch's numeric codes (runtime/core/error.h upstream) so runners can print
// them the same way ("status 0x23"). The message names what was wrong and where; it is
// only built on the error path, so the success path never allocates.
#pragma once

#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace vkrt {

enum class Error : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  AlreadyLoaded = 0x04,
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

// "InvalidProgram" etc.; "Unknown" for values outside the enum.
const char* error_name(Error e);

// A code plus a human-readable message. Ok carries no message.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == Error::Ok; }
  explicit operator bool() const { return is_ok(); }
  Error code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidProgram (0x23): <message>"
  std::string to_string() const;

  // Prepends context ("method forward: " + message) and returns *this, for error paths.
  Status&& with_context(std::string_view context) &&;

 private:
  Error code_ = Error::Ok;
  std::string message_;
};

// Builds an error Status with a formatted message: make_error(Error::InvalidProgram, "bad size ", n).
template <typename... Parts>
Status make_error(Error code, const Parts&... parts) {
  std::string msg;
  auto append = [&msg](const auto& p) {
    using P = std::decay_t<decltype(p)>;
    if constexpr (std::is_same_v<P, std::string> || std::is_same_v<P, std::string_view> ||
                  std::is_same_v<P, const char*> || std::is_same_v<P, char*> ||
                  std::is_array_v<std::remove_reference_t<decltype(p)>>) {
      msg += p;
    } else if constexpr (std::is_same_v<P, char>) {
      msg += p;
    } else if constexpr (std::is_same_v<P, bool>) {
      msg += p ? "true" : "false";
    } else {
      msg += std::to_string(p);
    }
  };
  (append(parts), ...);
  return Status(code, std::move(msg));
}

// Either a value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : has_value_(true) { new (&storage_) T(std::move(value)); }  // NOLINT
  Result(Status status) : has_value_(false), status_(std::move(status)) {      // NOLINT
    if (status_.is_ok()) status_ = Status(Error::Internal, "Result built from an Ok status");
  }
  Result(const Result& o) : has_value_(o.has_value_), status_(o.status_) {
    if (has_value_) new (&storage_) T(o.value());
  }
  Result(Result&& o) noexcept : has_value_(o.has_value_), status_(std::move(o.status_)) {
    if (has_value_) new (&storage_) T(std::move(o.value()));
  }
  Result& operator=(Result o) noexcept {
    reset();
    has_value_ = o.has_value_;
    status_ = std::move(o.status_);
    if (has_value_) new (&storage_) T(std::move(o.value()));
    return *this;
  }
  ~Result() { reset(); }

  bool ok() const { return has_value_; }
  explicit operator bool() const { return has_value_; }
  const Status& status() const { return status_; }
  Error error() const { return status_.code(); }

  T& value() & { return *reinterpret_cast<T*>(&storage_); }
  const T& value() const& { return *reinterpret_cast<const T*>(&storage_); }
  T&& value() && { return std::move(*reinterpret_cast<T*>(&storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void reset() {
    if (has_value_) value().~T();
    has_value_ = false;
  }
  bool has_value_;
  Status status_;
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace vkrt

// Returns the Status of `expr` from the enclosing function if it is an error.
#define VKRT_RETURN_IF_ERROR(expr)                 \
  do {                                             \
    ::vkrt::Status vkrt_status_ = (expr);          \
    if (!vkrt_status_.is_ok()) return vkrt_status_; \
  } while (0)

#define VKRT_CONCAT_INNER(a, b) a##b
#define VKRT_CONCAT(a, b) VKRT_CONCAT_INNER(a, b)

// VKRT_ASSIGN_OR_RETURN(auto x, make_x()); — unwraps a Result or returns its Status.
#define VKRT_ASSIGN_OR_RETURN(lhs, expr) \
  VKRT_ASSIGN_OR_RETURN_IMPL(VKRT_CONCAT(vkrt_result_, __LINE__), lhs, expr)
#define VKRT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

// Returns make_error(code, ...) when `cond` is false.
#define VKRT_CHECK_OR_RETURN(cond, code, ...)                           \
  do {                                                                  \
    if (!(cond)) return ::vkrt::make_error(::vkrt::Error::code, __VA_ARGS__); \
  } while (0)
