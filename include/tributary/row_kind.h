// RowKind: the change a row stands for, as in Paimon and Flink (+I, -U, +U, -D).
#pragma once

#include <cstdint>
#include <string_view>

namespace tributary {

enum class RowKind : uint8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };

// "+I", "-U", "+U", "-D".
inline std::string_view RowKindShortString(RowKind k) {
  switch (k) {
    case RowKind::kInsert:
      return "+I";
    case RowKind::kUpdateBefore:
      return "-U";
    case RowKind::kUpdateAfter:
      return "+U";
    case RowKind::kDelete:
      return "-D";
  }
  return "?";
}

// An insert or update-after adds a row; an update-before or delete retracts one.
inline bool IsAdd(RowKind k) { return k == RowKind::kInsert || k == RowKind::kUpdateAfter; }
inline bool IsRetract(RowKind k) { return !IsAdd(k); }

}  // namespace tributary
