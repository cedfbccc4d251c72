// SchemaManager: reads and publishes the `schema/schema-N` files of one table.
// Thread-safety: stateless apart from the path; safe to share.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::meta {

// Paimon's schema JSON (version 3).
std::string SchemaToJson(const TableSchema& schema);
Result<TableSchema> SchemaFromJson(std::string_view json, const std::string& what);

class SchemaManager {
 public:
  explicit SchemaManager(std::string table_path) : table_path_(std::move(table_path)) {}

  // The highest schema id, or nullopt when the table has no schema (does not exist).
  Result<std::optional<int64_t>> LatestId() const;
  Result<std::shared_ptr<const TableSchema>> Latest() const;
  Result<std::shared_ptr<const TableSchema>> Read(int64_t id) const;
  // Publishes `schema` as schema-<schema.id>; false if that id was taken by someone else.
  Result<bool> Commit(const TableSchema& schema) const;

 private:
  std::string table_path_;
};

}  // namespace tributary::meta
