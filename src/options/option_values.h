// Parsers for option values (memory sizes, durations, booleans) and the did-you-mean helper.
// Shared by option validation and by the modules that read options.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::options {

// "128 mb", "256MB", "1 gb", "64kb", "100" (bytes). Units are binary (1 kb = 1024 bytes):
// b/bytes, k/kb/kibibytes, m/mb/mebibytes, g/gb/gibibytes, t/tb/tebibytes, case-insensitive.
Result<int64_t> ParseMemorySize(std::string_view text);

// "1 h", "30 s", "100ms", "10 min", "2 d", "500" (milliseconds), as Flink and Paimon spell
// durations. Units below a millisecond (us, ns) are truncated to whole milliseconds.
Result<int64_t> ParseDurationMillis(std::string_view text);

// "true" / "false", case-insensitive, blanks around allowed. Returns false when `text` is neither.
bool ParseBool(std::string_view text, bool* value);

// A decimal integer with an optional sign; blanks around allowed.
Result<int64_t> ParseInt64(std::string_view text);

// Restricted Damerau-Levenshtein distance (insert, delete, substitute, swap two adjacent
// characters), case-insensitive.
int EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a likely typo
// (distance at most a third of the word's length, at least 2; 1 for words of 3-4 characters;
// 0 for shorter ones), or one that is a prefix of the other. Ties go to the earlier candidate.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

// Blanks (space, tab) trimmed from both ends.
std::string_view Trim(std::string_view s);

// The allowed value `v` matches, ignoring case and treating '_' and '-' alike (so the Fluss
// spelling 'first_row' is 'first-row'); "" when none.
std::string MatchAllowed(std::string_view v, const std::vector<std::string>& allowed);

// An enum option's value spelled as `allowed` spells it (MatchAllowed), each item of a list
// (`list`: comma-separated, blanks around items dropped) joined by ","; nullopt when an item
// matches none.
std::optional<std::string> CanonicalEnum(std::string_view value,
                                         const std::vector<std::string>& allowed, bool list);

}  // namespace tributary::options
