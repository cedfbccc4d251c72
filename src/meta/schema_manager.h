// SchemaManager: reads and publishes the `schema/schema-N` files of one table.
// Thread-safety: stateless apart from the path; safe to share.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

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

// Which table `table_path` holds now: its first schema file's id and version (inode, size,
// modification time). A table dropped and created again under the same name has another, so a
// long-lived writer that remembered it at open never commits into a table that is no longer
// its own. NotFound when the path holds no table.
Result<std::string> TableIncarnation(const std::string& table_path);
// Whether `table_path` still holds the table `incarnation` (a TableIncarnation): one look at the
// version of the schema file it names, where TableIncarnation lists the schema folder.
Result<bool> IsTableIncarnation(const std::string& table_path, const std::string& incarnation);

// The schemas data files were written with, each read once (a file keeps the id of its schema).
// Thread-safe.
class FileSchemas {
 public:
  // `meta_path`: where schema/ is; `read_schema_id`: the schema the reader reads with.
  FileSchemas(std::string meta_path, int64_t read_schema_id)
      : meta_path_(std::move(meta_path)), read_schema_id_(read_schema_id) {}
  // The columns of schema `schema_id`, or nullptr when it is the read schema.
  Result<const std::vector<Field>*> FieldsOf(int64_t schema_id);

 private:
  std::string meta_path_;
  int64_t read_schema_id_;
  std::mutex mu_;
  std::map<int64_t, std::shared_ptr<const TableSchema>> schemas_;
};

}  // namespace tributary::meta
