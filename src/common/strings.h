// Small string helpers shared by modules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tributary {

// "a, b,,c" -> {"a", "b", "c"}: comma-separated items, blanks trimmed, empty items dropped
// (option values such as 'bucket-key' and 'sequence.field').
std::vector<std::string> SplitCommaList(std::string_view s);

}  // namespace tributary
