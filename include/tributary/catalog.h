// Catalog: the entry point. Opens a warehouse directory (the Paimon filesystem catalog layout,
// `<warehouse>/<db>.db/<table>/`) and creates, lists, drops and opens tables.
// Thread-safety: a Catalog may be used from one thread at a time; several processes may open the
// same warehouse concurrently.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary::read {
class PendingSource;
}  // namespace tributary::read

namespace tributary {

class Table;

// `db.table` or `db.table$system` (system tables: snapshots, files, options, schemas, ...).
struct Identifier {
  Identifier() = default;
  Identifier(std::string database, std::string table, std::string system_table = "",
             std::string branch = "")
      : database(std::move(database)),
        table(std::move(table)),
        system_table(std::move(system_table)),
        branch(std::move(branch)) {}

  std::string database;
  std::string table;
  std::string system_table;  // empty for a data table
  std::string branch;        // empty for the main branch (`t$branch_<name>` names another)

  // Parses "t", "db.t", "catalog.db.t", each optionally with "$snapshots" etc., a branch as
  // "t$branch_<name>" and a branch's system table as "t$branch_<name>$snapshots".
  static Result<Identifier> Parse(const std::string& text, const std::string& default_db);
  // Splits the part of a name after the table's: "snapshots", "branch_b", "branch_b$files".
  Status SetSuffix(const std::string& suffix);
  std::string ToString() const;  // "db.t", "db.t$files", "db.t$branch_b", "db.t$branch_b$files"
};

// What CREATE TABLE asks for. Field ids are assigned by the catalog.
struct TableSpec {
  std::vector<Field> columns;
  std::vector<std::string> primary_keys;
  std::vector<std::string> partition_keys;
  std::map<std::string, std::string> options;
  std::string comment;
};

// One change of a table's columns (ALTER TABLE ADD / DROP / RENAME / MODIFY; Paimon's
// SchemaChange). Columns keep their field ids, so files written before read on.
struct ColumnChange {
  enum class Kind { kAdd, kDrop, kRename, kModify };
  Kind kind = Kind::kAdd;
  std::string column;
  std::string new_name;                // kRename
  std::optional<DataType> type;        // kAdd; kModify when the type changes
  std::optional<std::string> comment;  // kAdd, kModify: the column's comment when set
  // kAdd, kModify: where the column goes (kUnchanged: kAdd appends, kModify stays).
  enum class Position { kUnchanged, kFirst, kAfter };
  Position position = Position::kUnchanged;
  std::string after;  // kAfter
};

// Rows of a system table (t$snapshots, ...), computed when asked.
struct SystemTableData {
  std::vector<Field> fields;
  std::vector<Row> rows;
};

struct CatalogOptions {
  bool create_if_missing = true;  // create the warehouse directory and database `default`
  // Without create_if_missing: open a catalog over a warehouse that does not exist yet (its
  // operations fail until something creates it) instead of failing.
  bool allow_missing = false;
  // Catalog options of a warehouse on object storage (s3://bucket/prefix): Paimon's
  // 's3.endpoint', 's3.access-key', 's3.secret-key', 's3.region', 's3.path.style.access', and
  // 's3.single-writer'; absent ones come from the AWS_* environment. Ignored for a local one.
  std::map<std::string, std::string> options;
};

class Catalog {
 public:
  static Result<std::unique_ptr<Catalog>> Open(const std::string& warehouse,
                                               const CatalogOptions& options = {});
  ~Catalog();

  const std::string& warehouse() const { return warehouse_; }

  Result<std::vector<std::string>> ListDatabases() const;
  Result<bool> DatabaseExists(const std::string& db) const;
  Status CreateDatabase(const std::string& db, bool ignore_if_exists);
  Status DropDatabase(const std::string& db, bool ignore_if_not_exists, bool cascade);

  Result<std::vector<std::string>> ListTables(const std::string& db) const;
  Result<bool> TableExists(const Identifier& id) const;
  // Validates the spec (types, keys, options with did-you-mean) and writes schema-0.
  Status CreateTable(const Identifier& id, const TableSpec& spec, bool ignore_if_exists);
  Status DropTable(const Identifier& id, bool ignore_if_not_exists);
  // ALTER TABLE t SET ('k' = 'v') / RESET ('k'): writes the next schema version.
  Status AlterTableOptions(const Identifier& id, const std::map<std::string, std::string>& set,
                           const std::vector<std::string>& reset);

  // ALTER TABLE t ADD / DROP / RENAME / MODIFY columns: the changes in order, as one new schema
  // version (all or none). Paimon's rules: an added column is nullable; keys and partition
  // columns are not dropped, partition columns not renamed, key and partition types not
  // changed; a type changes only to one that reads can cast to; options naming a renamed column
  // follow it.
  Status AlterTableColumns(const Identifier& id, const std::vector<ColumnChange>& changes);
  // The same, with options set and reset in that schema version too (the positions a table's
  // computed columns are recorded at, say), and only if the latest schema is still
  // `expected_schema_id` (else Conflict: the options were worked out from an older schema).
  Status AlterTableColumns(const Identifier& id, const std::vector<ColumnChange>& changes,
                           const std::map<std::string, std::string>& set_options,
                           const std::vector<std::string>& reset_options,
                           int64_t expected_schema_id);
  // ALTER TABLE t RENAME TO u (within one database, as Paimon's filesystem catalog).
  Status RenameTable(const Identifier& from, const Identifier& to);

  // Opens a data table (id.system_table must be empty).
  Result<std::unique_ptr<Table>> GetTable(const Identifier& id) const;
  // Writes not committed yet that reads of the main branches' latest snapshots see too (the
  // server's hot tier, read/pending.h): tables opened from now on read through `source`, and
  // system tables have what it holds committed first. Null: none.
  void set_pending_source(std::shared_ptr<read::PendingSource> source) {
    pending_ = std::move(source);
  }
  // Computes a system table: snapshots, files, options, schemas, partitions, the change tables.
  // `options` (a query's hints, canonical keys): where t$audit_log reads (time travel:
  // 'scan.snapshot-id', 'scan.timestamp-millis', 'scan.tag-name', 'scan.watermark',
  // 'scan.mode') and where t$changelog / t$binlog start ('scan.startup.mode', 'scan.mode',
  // 'scan.snapshot-id', 'scan.timestamp-millis'); any other option is refused by name.
  Result<SystemTableData> ReadSystemTable(
      const Identifier& id, const std::map<std::string, std::string>& options = {}) const;

 private:
  explicit Catalog(std::string warehouse) : warehouse_(std::move(warehouse)) {}
  // The table's directory, after checking both names (every table access goes through here, so
  // no name reaches a directory outside the warehouse).
  Result<std::string> TablePath(const Identifier& id) const;
  // NotFound for a missing table, with the database's closest table name as a did-you-mean.
  Status TableNotFound(const Identifier& id) const;
  std::string warehouse_;
  std::shared_ptr<read::PendingSource> pending_;
};

}  // namespace tributary
