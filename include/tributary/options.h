// The table of every option Tributary knows: key, type, default, allowed values, description and
// aliases. It drives validation, did-you-mean errors, SHOW CREATE TABLE, t$options and the docs.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tributary/result.h"

namespace tributary {

enum class OptionType { kString, kInt, kLong, kBool, kDuration, kMemorySize, kEnum, kDouble };

enum class OptionScope {
  kTable,    // stored in the schema (CREATE TABLE ... WITH, ALTER TABLE SET)
  kSession,  // SET 'key' = 'value' in the SQL shell
  kCatalog,  // CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '...')
};

struct OptionDef {
  std::string key;  // canonical key; may contain a <col> placeholder
  OptionType type = OptionType::kString;
  std::string default_value;         // "" when none
  std::vector<std::string> allowed;  // for kEnum
  std::string description;
  std::vector<std::string> aliases;  // e.g. "bucket.num" for "bucket"
  OptionScope scope = OptionScope::kTable;
  bool supported = true;   // false: recognized, but rejected as not yet supported
  bool hint_only = false;  // a query hint only: refused as a table option
  // kInt / kLong: inclusive bounds of the value.
  int64_t min_value = std::numeric_limits<int64_t>::min();
  int64_t max_value = std::numeric_limits<int64_t>::max();
  // kEnum: the value may be a comma-separated list of allowed values.
  bool list = false;
  // kString: the value is a comma-separated list of column names (checked when columns are known).
  bool column_list = false;
  // Extra check of the value after the type check; null when none.
  Status (*validate)(std::string_view value) = nullptr;
};

// Display name of a type: "string", "int", "duration", "memory size", ...
const char* OptionTypeName(OptionType type);

// Every option definition, in the table's order.
const std::vector<OptionDef>& AllOptions();

// Checks one key/value pair of `scope`. Returns the canonical key (aliases resolved) on success;
// an unknown key is an error naming the closest known key, a bad value names the allowed ones.
// `columns` lets per-column keys (fields.<col>.xxx) check the column name.
Result<std::string> CheckOption(OptionScope scope, std::string_view key, std::string_view value,
                                const std::vector<std::string>& columns = {});

// The definition a key refers to in `scope`: exact keys, aliases and per-column patterns
// (fields.<col>.aggregate-function). Null when unknown. The pointer lives as long as the program.
const OptionDef* FindOption(OptionScope scope, std::string_view key);

// Like CheckOption, and also returns the value in canonical form: enum values spelled as in
// `allowed` (the alias value 'first_row' becomes 'first-row'), column lists without blanks.
Result<std::pair<std::string, std::string>> NormalizeOption(
    OptionScope scope, std::string_view key, std::string_view value,
    const std::vector<std::string>& columns = {});

// The keys under which Flink's catalog records computed columns, metadata columns and watermarks
// ('schema.<n>.name', 'schema.<n>.expr', 'schema.watermark.<n>.strategy.expr', ...): table
// options written from CREATE TABLE's column list (NormalizeOptions keeps them as they are); the
// SQL layer refuses them in WITH and ALTER TABLE SET.
bool IsSchemaColumnOption(std::string_view key);

// Validates every pair and returns the map with aliases rewritten to canonical keys and values
// normalized as NormalizeOption does. A key given twice (an alias and its canonical key) is an
// error.
Result<std::map<std::string, std::string>> NormalizeOptions(
    OptionScope scope, const std::map<std::string, std::string>& options,
    const std::vector<std::string>& columns = {});

}  // namespace tributary
