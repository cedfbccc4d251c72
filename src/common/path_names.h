// Names that become parts of file paths, checked in one place: where they are accepted (CREATE,
// ALTER, hints, procedures, the C++ API, schemas written by other engines) and again where a
// path is made from them, so that nothing a user or a file says leads outside the warehouse.
// docs/untrusted-input.md lists every such input. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "tributary/status.h"

namespace tributary {

// The longest name of one path component Tributary makes from a user's name (a table, a tag,
// ...): the file systems it runs on take 255 bytes, and some names get a prefix or a suffix.
inline constexpr size_t kMaxNameBytes = 200;

// One path component named by a user (`kind`: "database", "table", ...): not empty, "." or
// "..", no '/', '\', control character or DEL, at most `max_bytes` bytes.
Status CheckPathComponent(std::string_view kind, std::string_view name,
                          size_t max_bytes = kMaxNameBytes);
// The prefix of new file names set by `option` ('data-file.prefix', 'changelog-file.prefix'): a
// part of one file name, so no '/', '\', control character or DEL, no leading '.' (hidden and
// temporary files start so), at most 100 bytes. An empty `option`: the message says only why.
Status CheckFileNamePrefix(std::string_view option, std::string_view prefix);
// A tag (`tag/tag-<name>`): letters, digits, '-', '_', '.', not only digits, not "." or "..".
Status CheckTagName(std::string_view name);
// A branch (`branch/branch-<name>`): letters, digits, '-', '_', not only digits, not "main".
Status CheckBranchName(std::string_view name);
// A consumer (`consumer/consumer-<id>`): letters, digits, '_', '-', '.', no leading '.'.
Status CheckConsumerId(std::string_view id);

}  // namespace tributary
