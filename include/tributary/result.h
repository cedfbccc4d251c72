// Result<T>: a value or the Status explaining why there is none.
// Thread-safety: a value type.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "tributary/status.h"

namespace tributary {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

  // REQUIRES: ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T ValueOr(T fallback) const { return ok() ? std::get<T>(v_) : fallback; }

 private:
  std::variant<Status, T> v_;
};

}  // namespace tributary

// Declares or assigns `lhs` from a Result expression, returning its Status on error.
#define TRIB_ASSIGN_OR_RETURN(lhs, rexpr) \
  TRIB_ASSIGN_OR_RETURN_IMPL(TRIB_CONCAT(_trib_res_, __LINE__), lhs, rexpr)
#define TRIB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                               \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
