// Small string helpers shared by modules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tributary {

// "a, b,,c" -> {"a", "b", "c"}: comma-separated items, blanks trimmed, empty items dropped
// (option values such as 'bucket-key' and 'sequence.field').
std::vector<std::string> SplitCommaList(std::string_view s);

// ASCII letters lower-cased (SQL names and option words); other bytes unchanged.
std::string AsciiLower(std::string_view s);
// Equal after AsciiLower.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Whether `s` is one or more ASCII digits.
bool AllDigits(std::string_view s);

// The length (1-4) of the well-formed UTF-8 sequence starting at s[i], or 0 when none starts
// there (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, truncated).
// REQUIRES: i < s.size().
size_t Utf8SequenceAt(std::string_view s, size_t i);
// The index of the first byte of `s` that is not well-formed UTF-8, or npos.
size_t FindInvalidUtf8(std::string_view s);

}  // namespace tributary
