// TableSchema: one version of a table's schema, as stored in `schema/schema-N`.
// Immutable once published; shared as std::shared_ptr<const TableSchema>.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tributary/types.h"

namespace tributary {

struct TableSchema {
  int64_t id = 0;
  std::vector<Field> fields;
  int32_t highest_field_id = -1;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  std::map<std::string, std::string> options;
  std::string comment;
  int64_t time_millis = 0;

  // Index of the column named `name` (case-sensitive), or -1.
  int FieldIndex(const std::string& name) const;
  bool HasPrimaryKey() const { return !primary_keys.empty(); }
  // Primary key minus partition keys (the `_KEY_` columns of data files).
  std::vector<std::string> TrimmedPrimaryKeys() const;
  // `bucket-key` option, else the trimmed primary key; for append tables with no bucket-key,
  // every column.
  std::vector<std::string> BucketKeys() const;
  // The option value, or nullopt when unset.
  std::optional<std::string> Option(const std::string& key) const;
  // The `bucket` option (Paimon default -1).
  int32_t NumBuckets() const;
};

}  // namespace tributary
