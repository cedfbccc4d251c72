// Test helpers for Avro datums: a GoogleTest printer, so failed comparisons show values.
// Included only by *_test.cc files.
#pragma once

#include <ostream>
#include <string>

#include "format/avro.h"

namespace tributary::avro {

inline void PrintTo(const Datum& d, std::ostream* os) {
  if (d.union_branch >= 0) *os << "<branch " << d.union_branch << ">";
  std::visit(
      [os](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          *os << "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          *os << (v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, std::string>) {
          *os << '"';
          for (unsigned char c : v) {
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
              *os << c;
            } else {
              static const char* kDigits = "0123456789abcdef";
              *os << "\\x" << kDigits[c >> 4] << kDigits[c & 15];
            }
          }
          *os << '"';
        } else if constexpr (std::is_same_v<T, DatumList>) {
          *os << "[";
          for (size_t i = 0; i < v.size(); ++i) {
            if (i > 0) *os << ", ";
            PrintTo(v[i], os);
          }
          *os << "]";
        } else if constexpr (std::is_same_v<T, DatumMap>) {
          *os << "{";
          for (size_t i = 0; i < v.size(); ++i) {
            if (i > 0) *os << ", ";
            *os << v[i].first << ": ";
            PrintTo(v[i].second, os);
          }
          *os << "}";
        } else {
          *os << v;
        }
      },
      d.rep);
}

}  // namespace tributary::avro
