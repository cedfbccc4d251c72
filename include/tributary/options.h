// The table of every option Tributary knows: key, type, default, allowed values, description and
// aliases. It drives validation, did-you-mean errors, SHOW CREATE TABLE, t$options and the docs.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary {

enum class OptionType { kString, kInt, kLong, kBool, kDuration, kMemorySize, kEnum, kDouble };

enum class OptionScope {
  kTable,    // stored in the schema (CREATE TABLE ... WITH, ALTER TABLE SET)
  kSession,  // SET 'key' = 'value' in the SQL shell
};

struct OptionDef {
  std::string key;                      // canonical key; may contain a <col> placeholder
  OptionType type = OptionType::kString;
  std::string default_value;            // "" when none
  std::vector<std::string> allowed;     // for kEnum
  std::string description;
  std::vector<std::string> aliases;     // e.g. "bucket.num" for "bucket"
  OptionScope scope = OptionScope::kTable;
  bool supported = true;                // false: recognized, but rejected as not yet supported
};

// Every option definition, in the table's order.
const std::vector<OptionDef>& AllOptions();

// Checks one key/value pair of `scope`. Returns the canonical key (aliases resolved) on success;
// an unknown key is an error naming the closest known key, a bad value names the allowed ones.
// `columns` lets per-column keys (fields.<col>.xxx) check the column name.
Result<std::string> CheckOption(OptionScope scope, std::string_view key, std::string_view value,
                                const std::vector<std::string>& columns = {});

// Validates every pair and returns the map with aliases rewritten to canonical keys.
Result<std::map<std::string, std::string>> NormalizeOptions(
    OptionScope scope, const std::map<std::string, std::string>& options,
    const std::vector<std::string>& columns = {});

}  // namespace tributary
