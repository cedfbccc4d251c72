// Typed reads of a table's options. Code outside options/ names an option by a TableOption key
// (option_keys.h) and gets its value in the C++ type the key declares: parsed as the option
// table types it (options_table.cc), or the table's default when the option is unset. The
// default is written down once, in the option table; options_test checks that every key exists
// there with a matching type, and the ctest raw_options fails when code outside options/ reads
// an option by a raw string.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {
struct TableSchema;
}  // namespace tributary

namespace tributary::options {

// schema.options (without the schema's header here).
const std::map<std::string, std::string>& SchemaOptions(const TableSchema& schema);

// Paimon's 'merge-engine'.
enum class MergeEngine { kDeduplicate, kPartialUpdate, kAggregation, kFirstRow, kVersioned };
// Paimon's 'changelog-producer'.
enum class ChangelogProducer { kNone, kInput, kLookup, kFullCompaction };
const char* MergeEngineName(MergeEngine e);
const char* ChangelogProducerName(ChangelogProducer p);

// An option of the option table read as a T: std::string (kString, kEnum), int64_t (kInt,
// kLong; kMemorySize in bytes; kDuration in milliseconds), bool (kBool), double, or one of the
// enums above (kEnum).
template <class T>
struct TableOption {
  const char* key;
};

// The value of option `key` when it is set in `options` (a table's, or a table's with hints
// applied) under its key or one of its aliases (a table written by Paimon may use any), as
// stored; nullopt when unset. No default.
std::optional<std::string> SetValue(const std::map<std::string, std::string>& options,
                                    const char* key);
template <class T>
std::optional<std::string> IsSet(const std::map<std::string, std::string>& options,
                                 TableOption<T> option) {
  return SetValue(options, option.key);
}
template <class T>
std::optional<std::string> IsSet(const TableSchema& schema, TableOption<T> option) {
  return IsSet(SchemaOptions(schema), option);
}

// The option's value (the table's default when unset), typed. A value that does not parse is an
// error naming the option and the value; so is an option that is unset and has no default (ask
// IsSet first). An enum option's string is spelled as the option table allows it (any case, '_'
// and '-' alike, as CREATE TABLE takes it: 'lz4-frame' reads as 'LZ4_FRAME'), whoever wrote it.
Result<std::string> Get(const std::map<std::string, std::string>& options,
                        TableOption<std::string> option);
Result<int64_t> Get(const std::map<std::string, std::string>& options, TableOption<int64_t> option);
Result<bool> Get(const std::map<std::string, std::string>& options, TableOption<bool> option);
Result<MergeEngine> Get(const std::map<std::string, std::string>& options,
                        TableOption<MergeEngine> option);
Result<ChangelogProducer> Get(const std::map<std::string, std::string>& options,
                              TableOption<ChangelogProducer> option);
template <class T>
Result<T> Get(const TableSchema& schema, TableOption<T> option) {
  return Get(SchemaOptions(schema), option);
}

// Get, for options whose value was checked when it was set (CREATE / ALTER TABLE) and that are
// read where no error can be returned: a value that does not parse after all (a table another
// tool wrote) reads as the table's default.
template <class T>
T GetOrDefault(const TableSchema& schema, TableOption<T> option) {
  Result<T> v = Get(SchemaOptions(schema), option);
  if (v.ok()) return *v;
  return *Get(std::map<std::string, std::string>{}, option);
}

// Checks that `key` is in the option table with a type a T reads (for options_test).
Status CheckTableOption(const char* key, const char* cpp_type);

}  // namespace tributary::options
