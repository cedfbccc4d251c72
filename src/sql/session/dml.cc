// INSERT, DELETE and UPDATE: every value is computed, converted and checked as it is written, and
// a failing statement aborts its writer, so it commits nothing.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <functional>
#include <set>

#include "meta/partition_marker.h"
#include "meta/paths.h"
#include "options/option_keys.h"
#include "sql/binder/cast.h"
#include "sql/binder/expression.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/planner/query.h"
#include "sql/session/session.h"
#include "table/auto_partition.h"
#include "table/partition_expire.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::sql {

namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string Plural(size_t n, const char* verb) {
  return std::string(verb) + " " + std::to_string(n) + (n == 1 ? " row" : " rows");
}

// Checks NOT NULL and primary-key columns of a complete row.
Status CheckNulls(const TableSchema& schema, const Row& row, const Pos& pos,
                  const std::vector<bool>* written) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (!row[i].is_null()) continue;
    const Field& f = schema.fields[i];
    bool key = Contains(schema.primary_keys, f.name);
    if (!key && f.type.nullable) continue;
    std::string what = key ? "primary-key column '" : "NOT NULL column '";
    if (written && !(*written)[i]) {
      return ErrorAt(pos, what + f.name + "' is not in the INSERT column list and has no value");
    }
    return ErrorAt(pos, "NULL value for " + what + f.name + "'");
  }
  return Status::OK();
}

// PARTITION (k = 'v', ...) of `schema`: each value converted to its column's type; is_static
// and values (one per column) say which columns it fixes, with what. Returns the partition as
// the writer takes it (column -> value text).
Result<std::map<std::string, std::string>> StaticPartition(
    const TableSchema& schema, const Identifier& id, const std::vector<PartitionSpecEntry>& spec,
    std::vector<bool>* is_static, Row* values) {
  Scope empty;
  Binder const_binder(&empty);
  const int assign = static_cast<int>(CastMode::kAssignment);
  std::map<std::string, std::string> out;
  for (const auto& p : spec) {
    int idx = schema.FieldIndex(p.column);
    if (idx < 0) return ErrorAt(p.pos, "unknown column '" + p.column + "' in PARTITION");
    if (!Contains(schema.partition_keys, p.column)) {
      return ErrorAt(p.pos, "'" + p.column + "' is not a partition column of " + id.ToString());
    }
    if ((*is_static)[idx]) return ErrorAt(p.pos, "partition column '" + p.column + "' given twice");
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr v, const_binder.Bind(*p.value));
    TRIB_ASSIGN_OR_RETURN(v, CastTo(std::move(v), schema.fields[idx].type, assign));
    if (!v->IsConstant() || v->constant.is_null()) {
      return ErrorAt(p.pos, "a partition value must be a non-NULL literal");
    }
    (*is_static)[idx] = true;
    (*values)[idx] = v->constant;
    // As the writer names partitions (an overwrite compares with it): a DATE as its day number.
    out[p.column] = meta::PartitionValueString(v->constant, schema.fields[idx].type);
  }
  return out;
}

// `chunks`, unless it has no rows (then nothing is written: no commit, no maintenance); its
// first chunk is read to know.
Result<std::optional<RowChunks>> UnlessEmpty(RowChunks chunks) {
  std::vector<Row> first;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, chunks(&first));
    if (!more) return std::optional<RowChunks>();
    if (!first.empty()) break;
  }
  return std::optional<RowChunks>(
      [first = std::move(first), taken = false,
       chunks = std::move(chunks)](std::vector<Row>* out) mutable -> Result<bool> {
        if (!taken) {
          taken = true;
          *out = std::move(first);
          return true;
        }
        return chunks(out);
      });
}

// Writes every chunk of `next` with `kind`; returns the rows written.
Result<int64_t> WriteChunks(TableWriter& writer, RowKind kind, const RowChunks& next) {
  int64_t n = 0;
  std::vector<Row> rows;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, next(&rows));
    if (!more) return n;
    for (const Row& r : rows) TRIB_RETURN_NOT_OK(writer.Write(kind, r));
    n += static_cast<int64_t>(rows.size());
  }
}

// Writes the rows of `next` with `kind` and commits; aborts on the first error (of a row or of
// the writer) so nothing is published; `*written` receives the rows written.
// A plain write (default options) takes its writer from `lender` when it lends one.
Result<std::optional<int64_t>> WriteAll(Table& table, const WriteOptions& options, RowKind kind,
                                        const RowChunks& next, bool maintain = true,
                                        const WriterLender* lender = nullptr,
                                        int64_t* written = nullptr) {
  std::unique_ptr<TableWriter> own;
  std::optional<LentWriter> lent;
  const bool plain = !options.overwrite && options.dynamic_options.empty() &&
                     options.overwrite_partitions.empty() && !options.overwrite_partition &&
                     !options.overwrite_buckets && !options.write_columns &&
                     options.commit_user.empty();
  if (lender && *lender && plain) {
    TRIB_ASSIGN_OR_RETURN(lent, (*lender)(table));
  }
  if (!lent) {
    TRIB_ASSIGN_OR_RETURN(own, table.NewWriter(options));
  }
  TableWriter* writer = lent ? lent->writer : own.get();
  auto fail = [&](Status st) -> Status {
    writer->Abort();
    if (lent) lent->give_back(false);
    return st;
  };
  auto n = WriteChunks(*writer, kind, next);
  if (!n.ok()) return fail(n.status());
  if (written != nullptr) *written = *n;
  if (Interrupted()) {
    // Ctrl-C in the shell: its input may have been cut short; nothing is committed.
    return fail(Status::Invalid("cancelled (Ctrl-C): nothing was committed"));
  }
  auto committed = writer->CommitAndWaitForCompaction();  // a statement ends its input
  if (!committed.ok()) return fail(committed.status());
  PrintCommitWarnings(*writer);
  if (lent) lent->give_back(true);
  // A table with automatic partitions keeps them up to date whenever it is written. The rows
  // are committed: a failure here is a warning, not the statement's error (CALL
  // sys.maintain_partitions retries it).
  if (maintain) {
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    auto maintained = table::MaintainAutoPartitions(table, now);
    if (!maintained.ok()) {
      std::fprintf(stderr,
                   "warning: the rows were committed, but maintaining the automatic "
                   "partitions failed: %s\n",
                   maintained.status().ToString().c_str());
    }
    // Paimon's partition expiration: a statement is a batch job, which checks when it ends if
    // 'end-input.check-partition-expire' is true or the check interval is 0.
    auto rule = table::PartitionExpireRuleOf(*table.schema());
    if (rule.ok() && *rule && ((*rule)->end_input_check || (*rule)->check_interval_ms == 0)) {
      auto expired = table::ExpirePartitions(table, **rule, now);
      if (!expired.ok()) {
        std::fprintf(stderr,
                     "warning: the rows were committed, but expiring partitions "
                     "failed: %s\n",
                     expired.status().ToString().c_str());
      }
    }
  }
  return committed;
}

}  // namespace

namespace {
// WriteAll of rows at hand (handed to the writer in chunks of copies).
Result<std::optional<int64_t>> WriteAll(Table& table, const WriteOptions& options, RowKind kind,
                                        const std::vector<Row>& rows, bool maintain = true,
                                        const WriterLender* lender = nullptr) {
  constexpr size_t kChunk = 4096;
  size_t next = 0;
  RowChunks chunks = [&](std::vector<Row>* out) -> Result<bool> {
    if (next >= rows.size()) return false;
    const size_t end = std::min(rows.size(), next + kChunk);
    out->assign(rows.begin() + static_cast<std::ptrdiff_t>(next),
                rows.begin() + static_cast<std::ptrdiff_t>(end));
    next = end;
    return true;
  };
  return WriteAll(table, options, kind, chunks, maintain, lender);
}

// An OVERWRITE commit that writes nothing: the rows of `partition` (a prefix of the partition
// keys; empty: the whole table) go.
Result<std::optional<int64_t>> OverwriteWithNothing(
    Table& table, const std::map<std::string, std::string>& partition) {
  WriteOptions options;
  options.overwrite = true;
  options.overwrite_partition = partition;
  return WriteAll(table, options, RowKind::kInsert, std::vector<Row>{}, /*maintain=*/false);
}
}  // namespace

namespace {
// The partitioned table an ALTER TABLE ... ADD / DROP PARTITION names, and its partitions
// ('k=v/k2=v2'; `with_files`: those holding data files).
struct PartitionedTable {
  std::unique_ptr<Table> table;
  std::set<std::string> existing, with_files;
};
Result<PartitionedTable> OpenPartitioned(const AlterTableStmt& s, const ResolvedName& rn) {
  PartitionedTable out;
  auto opened = rn.catalog->GetTable(rn.id);
  if (!opened.ok()) return ErrorAt(s.name.pos, opened.status().message());
  out.table = std::move(*opened);
  if (out.table->schema()->partition_keys.empty()) {
    return ErrorAt(s.name.pos, "table " + rn.id.ToString() + " is not partitioned");
  }
  Identifier parts_id = rn.id;
  parts_id.system_table = "partitions";
  auto parts = rn.catalog->ReadSystemTable(parts_id);
  if (!parts.ok()) return ErrorAt(s.name.pos, parts.status().message());
  int name_col = -1, files_col = -1;
  for (size_t c = 0; c < parts->fields.size(); c++) {
    if (parts->fields[c].name == "partition") name_col = static_cast<int>(c);
    if (parts->fields[c].name == "file_count") files_col = static_cast<int>(c);
  }
  for (const Row& r : parts->rows) {
    if (name_col < 0) break;
    const std::string name = r[name_col].string_value();
    out.existing.insert(name);
    if (files_col < 0 || r[files_col].is_null() || r[files_col].int_value() > 0) {
      out.with_files.insert(name);
    }
  }
  return out;
}
}  // namespace

namespace {
// A full partition spec of ADD / DROP PARTITION (`what`): its name as t$partitions, the writer and
// the markers name it ('k=v/k2=v2'), and its values as an overwrite names them.
Result<std::pair<std::string, std::map<std::string, std::string>>> NamePartition(
    const AlterTableStmt& s, const ResolvedName& rn, const TableSchema& schema,
    const std::vector<PartitionSpecEntry>& spec, const std::string& what) {
  std::vector<bool> is_static(schema.fields.size(), false);
  Row values(schema.fields.size());
  TRIB_ASSIGN_OR_RETURN(auto partition, StaticPartition(schema, rn.id, spec, &is_static, &values));
  std::vector<Field> fields;
  Row part;
  for (const auto& k : schema.partition_keys) {
    if (!partition.count(k)) {
      return ErrorAt(spec.empty() ? s.pos : spec[0].pos,
                     what + " needs a value for every partition key (missing '" + k + "')");
    }
    const int idx = schema.FieldIndex(k);
    fields.push_back(schema.fields[idx]);
    part.push_back(values[idx]);
  }
  return std::make_pair(meta::PartitionPath(fields, part), std::move(partition));
}
}  // namespace

Result<StatementResult> Session::AddPartitions(const AlterTableStmt& s, const ResolvedName& rn) {
  TRIB_ASSIGN_OR_RETURN(PartitionedTable pt, OpenPartitioned(s, rn));
  std::unique_ptr<Table>& table = pt.table;
  const auto schema = table->schema();
  const std::set<std::string>& existing = pt.existing;
  // Every partition checked before anything is added.
  std::vector<std::string> adds;
  for (const auto& spec : s.partitions) {
    TRIB_ASSIGN_OR_RETURN(auto named, NamePartition(s, rn, *schema, spec, "ADD PARTITION"));
    const std::string& name = named.first;
    if (existing.count(name) || std::find(adds.begin(), adds.end(), name) != adds.end()) {
      return ErrorAt(spec[0].pos,
                     "partition " + name + " of " + rn.id.ToString() + " already exists");
    }
    adds.push_back(name);
  }
  TRIB_ASSIGN_OR_RETURN(const int64_t max_partitions,
                        options::Get(*schema, options::kMaxPartitionNum));
  if (static_cast<int64_t>(existing.size() + adds.size()) > max_partitions) {
    return ErrorAt(
        s.pos,
        "adding " + std::to_string(adds.size()) + " partition(s) would give " + rn.id.ToString() +
            " " + std::to_string(existing.size() + adds.size()) +
            " partitions, more than 'max.partition.num' = " + std::to_string(max_partitions));
  }
  std::string added;
  for (const std::string& name : adds) {
    Status st = meta::MarkPartition(table->path(), name);
    if (!st.ok()) {
      return Locate(st.WithContext(added.empty() ? "nothing was added"
                                                 : "partitions " + added + " were added before"),
                    s.pos);
    }
    added += (added.empty() ? "" : ", ") + name;
  }
  StatementResult out;
  out.message = "Added partition(s) " + added + " to " + rn.id.ToString();
  return out;
}

Result<StatementResult> Session::DropPartitions(const AlterTableStmt& s, const ResolvedName& rn) {
  TRIB_ASSIGN_OR_RETURN(PartitionedTable pt, OpenPartitioned(s, rn));
  std::unique_ptr<Table>& table = pt.table;
  const auto schema = table->schema();
  const std::set<std::string>& existing = pt.existing;
  const std::set<std::string>& with_files = pt.with_files;
  // Every partition checked before anything is dropped.
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> drops;
  for (const auto& spec : s.partitions) {
    TRIB_ASSIGN_OR_RETURN(auto named, NamePartition(s, rn, *schema, spec, "DROP PARTITION"));
    const std::string& name = named.first;
    auto& partition = named.second;
    if (!existing.count(name)) {
      return ErrorAt(spec[0].pos,
                     "partition " + name + " of " + rn.id.ToString() + " does not exist");
    }
    drops.emplace_back(name, std::move(partition));
  }
  // One OVERWRITE commit that writes nothing: the files of every partition named go at once (a
  // partition added and never written has no files to drop, only its marker).
  std::vector<table::PartitionToDrop> to_drop;
  std::string dropped;
  for (auto& [name, partition] : drops) {
    to_drop.push_back(
        table::PartitionToDrop{name, std::move(partition), with_files.count(name) > 0});
    dropped += (dropped.empty() ? "" : ", ") + name;
  }
  Status st = table::DropPartitions(*table, to_drop);
  if (!st.ok()) return Locate(st, s.pos);
  StatementResult out;
  out.message = "Dropped partition(s) " + dropped + " of " + rn.id.ToString();
  return out;
}

Result<StatementResult> Session::Truncate(const TruncateStmt& s) {
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, ResolveTable(s.name));
  if (!rn.id.system_table.empty()) {
    return ErrorAt(s.name.pos, "cannot truncate system table " + rn.id.ToString());
  }
  auto opened = rn.catalog->GetTable(rn.id);
  if (!opened.ok()) return ErrorAt(s.name.pos, opened.status().message());
  // As Paimon's truncateTable: one OVERWRITE commit of every partition that writes nothing.
  auto committed = OverwriteWithNothing(**opened, {});
  if (!committed.ok()) return Locate(committed.status(), s.pos);
  StatementResult out;
  out.message = "Table " + rn.id.ToString() + " truncated";
  return out;
}

namespace {
// "<error> (statement set: <note>)".
Status WithSetNote(const Status& st, const std::string& note) {
  return Status(st.code(), st.message() + " (statement set: " + note + ")");
}
}  // namespace

struct Session::PendingWrite {
  std::unique_ptr<Table> table;
  std::unique_ptr<TableWriter> writer;
  std::string target;
  WriteOptions options;
  size_t rows = 0;
  bool overwrite = false;
};

namespace {

// Whether a later INSERT of a statement set with `b` can go through the writer an earlier one
// opened with `a` (rows in statement order, so later rows merge after earlier ones, as a second
// commit would): same hints, same columns written, neither an OVERWRITE.
bool SameWrite(const WriteOptions& a, const WriteOptions& b) {
  return !a.overwrite && !b.overwrite && a.dynamic_options == b.dynamic_options &&
         a.write_columns == b.write_columns;
}

}  // namespace

namespace {

// INSERT ... VALUES: each row's values converted to their columns' types (`targets`, or every
// column when a static partition's columns are given too), each error at its own value; the
// static partition's values filled in.
Status ValuesRows(const InsertStmt& s, const TableSchema& schema, const Identifier& id,
                  const std::vector<int>& targets, const std::vector<bool>& is_static,
                  const Row& static_values, std::vector<Row>* rows, std::vector<Pos>* row_pos) {
  const size_t n = schema.fields.size();
  const size_t source_width = s.source->values[0].size();
  const int assign = static_cast<int>(CastMode::kAssignment);
  Scope empty;
  Binder const_binder(&empty);
  bool all_columns = s.columns.empty() && s.has_partition && source_width == n;
  std::vector<int> cols = targets;
  if (all_columns) {
    cols.clear();
    for (size_t i = 0; i < n; ++i) cols.push_back(static_cast<int>(i));
  }
  for (const auto& row : s.source->values) {
    if (row.size() != cols.size()) {
      return ErrorAt(row.empty() ? s.source->pos : row[0]->pos,
                     "INSERT into " + id.ToString() + " expects " + std::to_string(cols.size()) +
                         " values per row but got " + std::to_string(row.size()));
    }
    Row out(n);
    for (size_t c = 0; c < row.size(); ++c) {
      const Field& f = schema.fields[cols[c]];
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr e, const_binder.Bind(*row[c]));
      if (!e->null_literal && !CanCast(e->type, f.type, CastMode::kAssignment)) {
        return ErrorAt(row[c]->pos, "cannot insert " + TypeName(e->type) + " into column '" +
                                        f.name + "' of type " + TypeName(f.type));
      }
      Pos pos = row[c]->pos;
      auto cast = CastTo(std::move(e), f.type, assign);
      if (!cast.ok()) {
        return Status(cast.status().code(), cast.status().message() + " (column '" + f.name + "')");
      }
      auto v = Evaluate(**cast, Row{});
      if (!v.ok()) return ErrorAt(pos, v.status().message());
      if (v->is_null() && (!f.type.nullable || Contains(schema.primary_keys, f.name))) {
        return ErrorAt(pos,
                       std::string("NULL value for ") +
                           (Contains(schema.primary_keys, f.name) ? "primary-key" : "NOT NULL") +
                           " column '" + f.name + "'");
      }
      out[cols[c]] = std::move(*v);
    }
    if (all_columns) {
      for (size_t i = 0; i < n; ++i) {
        if (is_static[i] && CompareSame(out[i], static_values[i]) != 0) {
          return ErrorAt(row[i]->pos,
                         "value of partition column '" + schema.fields[i].name +
                             "' does not match PARTITION (" + schema.fields[i].name + " = " +
                             FormatValue(static_values[i], schema.fields[i].type) + ")");
        }
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (is_static[i]) out[i] = static_values[i];
    }
    rows->push_back(std::move(out));
    row_pos->push_back(row.empty() ? s.source->pos : row[0]->pos);
  }
  return Status::OK();
}

// INSERT ... SELECT: the query opened, its columns checked against the target columns (`targets`,
// or every column when a static partition's are given too), and its rows converted to the
// table's types a batch at a time as the query hands them out (each error at the query), the
// static partition's values filled in, NOT NULL columns checked.
Result<RowChunks> InsertQueryRows(const QueryContext& session, const InsertStmt& s,
                                  std::shared_ptr<const TableSchema> schema, const Identifier& id,
                                  const std::vector<int>& targets,
                                  const std::vector<bool>& is_static, const Row& static_values,
                                  const std::vector<bool>& written) {
  const std::vector<Field>& fields = schema->fields;
  const size_t n = fields.size();
  TRIB_ASSIGN_OR_RETURN(OperatorPtr opened, OpenQuery(session, *s.source));
  std::shared_ptr<Operator> query = std::move(opened);
  const std::vector<Field> q_fields = query->fields();
  bool all_columns =
      s.columns.empty() && s.has_partition && q_fields.size() == n && targets.size() != n;
  std::vector<int> cols = targets;
  if (all_columns) {
    cols.clear();
    for (size_t i = 0; i < n; ++i) cols.push_back(static_cast<int>(i));
  }
  if (q_fields.size() != cols.size()) {
    return ErrorAt(s.source->pos,
                   "INSERT into " + id.ToString() + " expects " + std::to_string(cols.size()) +
                       " columns but the query returns " + std::to_string(q_fields.size()));
  }
  for (size_t c = 0; c < cols.size(); ++c) {
    const Field& f = fields[cols[c]];
    if (!CanCast(q_fields[c].type, f.type, CastMode::kAssignment)) {
      return ErrorAt(s.source->pos, "query column " + std::to_string(c + 1) + " ('" +
                                        q_fields[c].name + "', " + TypeName(q_fields[c].type) +
                                        ") cannot be inserted into column '" + f.name +
                                        "' of type " + TypeName(f.type));
    }
  }
  return RowChunks([&s, schema, query, q_fields, cols, all_columns, is_static, static_values,
                    written](std::vector<Row>* rows) -> Result<bool> {
    const std::vector<Field>& fields = schema->fields;
    const size_t n = fields.size();
    ColumnBatch batch;
    TRIB_ASSIGN_OR_RETURN(bool more, query->Next(&batch));
    if (!more) return false;
    rows->clear();
    for (Row& r : BatchRows(batch)) {
      Row out(n);
      for (size_t c = 0; c < cols.size(); ++c) {
        const Field& f = fields[cols[c]];
        auto v = CastValue(r[c], q_fields[c].type, f.type, CastMode::kAssignment);
        if (!v.ok()) {
          return ErrorAt(s.source->pos, v.status().message() + " (column '" + f.name + "')");
        }
        out[cols[c]] = std::move(*v);
      }
      for (size_t i = 0; i < n; ++i) {
        if (!is_static[i]) continue;
        if (all_columns && CompareSame(out[i], static_values[i]) != 0) {
          return ErrorAt(s.source->pos, "the query returns partition column '" + fields[i].name +
                                            "' = " + FormatValue(out[i], fields[i].type) +
                                            ", which does not match "
                                            "PARTITION (" +
                                            fields[i].name + " = " +
                                            FormatValue(static_values[i], fields[i].type) + ")");
        }
        out[i] = static_values[i];
      }
      TRIB_RETURN_NOT_OK(CheckNulls(*schema, out, s.source->pos, &written));
      rows->push_back(std::move(out));
    }
    return true;
  });
}

}  // namespace

Result<std::unique_ptr<Table>> OpenWriteTarget(const QueryContext& session,
                                               const QualifiedName& name, OptionList* hints,
                                               ResolvedName* rn, const std::string& verb) {
  TRIB_ASSIGN_OR_RETURN(*rn, session.ResolveTable(name));
  TRIB_RETURN_NOT_OK(TakeBranchHint(hints, &rn->id));
  if (!rn->id.system_table.empty()) {
    return ErrorAt(name.pos, "cannot " + verb + " system table " + rn->id.ToString());
  }
  auto opened = rn->catalog->GetTable(rn->id);
  if (!opened.ok()) return ErrorAt(name.pos, opened.status().message());
  return std::move(*opened);
}

Result<StatementResult> Session::Insert(const InsertStmt& s) {
  if (streaming() && s.source->values.empty() && !set_writes_) return StreamingInsert(s);
  ResolvedName rn;
  OptionList target_hints = s.hints;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Table> table,
                        OpenWriteTarget(*this, s.name, &target_hints, &rn, "write to"));
  const auto schema = table->schema();
  const std::vector<Field>& fields = schema->fields;
  const size_t n = fields.size();

  // PARTITION (k = 'v'): static partition values.
  std::vector<bool> is_static(n, false);
  Row static_values(n);
  TRIB_ASSIGN_OR_RETURN(auto static_partition,
                        StaticPartition(*schema, rn.id, s.partition, &is_static, &static_values));

  // Target columns: the column list, else every column that has no static value.
  std::vector<int> targets;
  std::vector<Pos> target_pos;
  if (!s.columns.empty()) {
    for (size_t i = 0; i < s.columns.size(); ++i) {
      int idx = schema->FieldIndex(s.columns[i]);
      if (idx < 0) {
        return ErrorAt(s.column_pos[i],
                       "unknown column '" + s.columns[i] + "' in table " + rn.id.ToString());
      }
      if (std::find(targets.begin(), targets.end(), idx) != targets.end()) {
        return ErrorAt(s.column_pos[i], "column '" + s.columns[i] + "' is listed twice");
      }
      if (is_static[idx]) {
        return ErrorAt(s.column_pos[i],
                       "column '" + s.columns[i] + "' already has a value in PARTITION (...)");
      }
      targets.push_back(idx);
      target_pos.push_back(s.column_pos[i]);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      if (!is_static[i]) targets.push_back(static_cast<int>(i));
    }
  }
  // An INSERT with a column list into a primary-key table (deduplicate, versioned or
  // partial-update engine) is a static partial-column write of exactly those columns: the others
  // keep their stored values. Elsewhere unlisted columns are written as NULL.
  std::vector<bool> written(n, false);
  for (int t : targets) written[t] = true;
  for (size_t i = 0; i < n; ++i) written[i] = written[i] || is_static[i];
  if (s.columns.empty()) std::fill(written.begin(), written.end(), true);

  // The rows to write, a chunk at a time, each converted and checked: VALUES at once, a query's
  // rows batch by batch as its operators hand them out, so an INSERT ... SELECT holds a batch,
  // not its whole result. A failure at any row aborts the writer: nothing is committed.
  // With a static partition and no column list the source may also give every column (as
  // `INSERT OVERWRITE t PARTITION (dt = '1') SELECT * FROM t WHERE dt = '1'`); the partition
  // columns must then equal the static values.
  RowChunks next_rows;
  std::vector<Row> values_rows;
  if (!s.source->values.empty()) {
    // VALUES: convert each expression to its column type, with its own position in errors.
    std::vector<Pos> row_pos;
    TRIB_RETURN_NOT_OK(
        ValuesRows(s, *schema, rn.id, targets, is_static, static_values, &values_rows, &row_pos));
    for (size_t r = 0; r < values_rows.size(); ++r) {
      TRIB_RETURN_NOT_OK(CheckNulls(*schema, values_rows[r], row_pos[r], &written));
    }
    next_rows = [&values_rows, done = false](std::vector<Row>* rows) mutable -> Result<bool> {
      if (done) return false;
      done = true;
      *rows = std::move(values_rows);
      return true;
    };
  } else {
    TRIB_ASSIGN_OR_RETURN(next_rows, InsertQueryRows(*this, s, schema, rn.id, targets, is_static,
                                                     static_values, written));
  }

  bool row_failed = false;  // the statement failed at a row, not in the writer
  next_rows = [&row_failed, rows_of = std::move(next_rows)](std::vector<Row>* rows) {
    Result<bool> more = rows_of(rows);
    row_failed = !more.ok();
    return more;
  };

  WriteOptions options;
  if (!target_hints.empty()) {
    auto hints = NormalizeHints(target_hints, *schema);
    if (!hints.ok()) return ErrorAt(s.hints_pos, hints.status().message());
    options.dynamic_options = std::move(*hints);
  }
  options.overwrite = s.overwrite;
  if (s.overwrite && s.has_partition) options.overwrite_partition = static_partition;
  {  // where 'write-buffer-spillable' spills: the session's 'io.tmp.dirs'
    auto tmp = this->options().find(kSpillDirsKey);
    options.spill_dirs = datafile::SpillDirs(tmp != this->options().end() ? tmp->second : "");
  }
  if (s.overwrite && !s.has_partition && !schema->partition_keys.empty()) {
    // 'dynamic-partition-overwrite' = 'false' (Paimon's option, default true): an INSERT
    // OVERWRITE without PARTITION replaces the whole table, not only the partitions written.
    std::map<std::string, std::string> with_hints = schema->options;
    for (const auto& [k, v] : options.dynamic_options) with_hints[k] = v;
    TRIB_ASSIGN_OR_RETURN(bool dynamic_overwrite,
                          options::Get(with_hints, options::kDynamicPartitionOverwrite));
    if (!dynamic_overwrite) {
      options.overwrite_partition = std::map<std::string, std::string>{};
    }
  }
  TRIB_ASSIGN_OR_RETURN(options::MergeEngine engine, options::Get(*schema, options::kMergeEngine));
  bool partial_engine = engine == options::MergeEngine::kDeduplicate ||
                        engine == options::MergeEngine::kVersioned ||
                        engine == options::MergeEngine::kPartialUpdate;
  if (schema->HasPrimaryKey() && partial_engine && !s.overwrite &&
      std::find(written.begin(), written.end(), false) != written.end()) {
    std::vector<std::string> cols;
    for (size_t i = 0; i < n; ++i) {
      if (written[i]) cols.push_back(fields[i].name);
    }
    options.write_columns = std::move(cols);
  }
  if (set_writes_) {
    // In a statement set: write the rows now, commit when every INSERT of the set has. A table
    // written again the same way takes the rows into the writer it has (a dynamic-bucket table
    // admits one writer at a time: a second would wait for the first's commit).
    PendingWrite* same_table = nullptr;
    for (auto& w : *set_writes_) {
      if (w->table->path() == table->path()) same_table = w.get();
    }
    if (same_table != nullptr && SameWrite(same_table->options, options)) {
      TRIB_ASSIGN_OR_RETURN(const int64_t written_rows,
                            WriteChunks(*same_table->writer, RowKind::kInsert, next_rows));
      same_table->rows += static_cast<size_t>(written_rows);
      return StatementResult{};
    }
    TRIB_ASSIGN_OR_RETURN(const int64_t buckets, options::Get(*schema, options::kBucket));
    if (same_table != nullptr && schema->HasPrimaryKey() && buckets == -1) {
      return NotSupportedAt(s.pos, "a statement set writing dynamic-bucket table " +
                                       rn.id.ToString() +
                                       " twice is supported only when both "
                                       "INSERTs write it alike (no OVERWRITE, the same columns and "
                                       "hints): the table takes one writer at a time");
    }
    auto pending = std::make_unique<PendingWrite>();
    auto writer = table->NewWriter(options);
    if (!writer.ok()) return ErrorAt(s.pos, writer.status().message());
    pending->writer = std::move(*writer);
    auto written_rows = WriteChunks(*pending->writer, RowKind::kInsert, next_rows);
    if (!written_rows.ok()) {
      pending->writer->Abort();
      return written_rows.status();
    }
    pending->target = rn.id.ToString();
    pending->rows = static_cast<size_t>(*written_rows);
    pending->overwrite = s.overwrite;
    pending->options = options;
    pending->table = std::move(table);
    set_writes_->push_back(std::move(pending));
    return StatementResult{};
  }
  int64_t inserted = 0;
  auto committed =
      WriteAll(*table, options, RowKind::kInsert, next_rows, true, &writer_lender_, &inserted);
  if (!committed.ok()) {
    // A row's own error (a cast, a NULL) points where it says; the writer's at the statement.
    return row_failed ? committed.status() : ErrorAt(s.pos, committed.status().message());
  }
  StatementResult out;
  out.message = Plural(static_cast<size_t>(inserted), s.overwrite ? "Overwrote with" : "Inserted");
  return out;
}

Result<StatementResult> Session::StatementSet(const std::vector<const InsertStmt*>& inserts) {
  if (streaming() && !inserts.empty()) {
    for (const InsertStmt* s : inserts) {
      if (!s->source->values.empty()) {
        return NotSupportedAt(s->pos,
                              "INSERT ... VALUES in a statement set in streaming mode is not "
                              "supported yet: the set is one streaming job of INSERT ... SELECT");
      }
    }
    return StreamingStatementSet(inserts);
  }
  if (set_writes_) return Status::Invalid("a statement set inside a statement set");
  std::vector<std::unique_ptr<PendingWrite>> writes;
  auto abort_from = [&](size_t first) {
    for (size_t i = first; i < writes.size(); i++) writes[i]->writer->Abort();
  };
  // Every INSERT writes its rows; any failure leaves every table as it was.
  set_writes_ = &writes;
  for (const InsertStmt* insert : inserts) {
    auto r = Insert(*insert);
    if (!r.ok()) {
      set_writes_ = nullptr;
      abort_from(0);
      return WithSetNote(Locate(r.status(), insert->pos), "nothing was committed");
    }
  }
  set_writes_ = nullptr;
  if (Interrupted()) {
    abort_from(0);
    return Status::Invalid("cancelled (Ctrl-C): nothing was committed (statement set)");
  }
  // Then the commits, one table after another (as a Flink job's sinks commit; a commit that
  // fails after others succeeded says which are in).
  std::string done;
  for (size_t i = 0; i < writes.size(); i++) {
    PendingWrite& w = *writes[i];
    auto committed = w.writer->CommitAndWaitForCompaction();
    if (!committed.ok()) {
      abort_from(i + 1);
      return WithSetNote(Locate(committed.status(), inserts[i]->pos),
                         done.empty()
                             ? std::string("nothing was committed")
                             : "committed before this failure: " + done + "; nothing after it");
    }
    PrintCommitWarnings(*w.writer);
    done += (done.empty() ? "" : ", ") +
            Plural(w.rows, w.overwrite ? "overwrote with" : "inserted") + " into " + w.target +
            (*committed ? " (snapshot " + std::to_string(**committed) + ")" : "");
  }
  StatementResult out;
  out.message = "Statement set committed: " + done;
  return out;
}

// Opens the primary-key table a DELETE or UPDATE (`statement`; `verb` for messages) changes,
// with its hint options.
struct DmlTarget {
  ResolvedName name;
  std::unique_ptr<Table> table;
  WriteOptions options;
};

Result<DmlTarget> OpenDmlTarget(const Session& session, const QualifiedName& name,
                                const OptionList& hints, const Pos& hints_pos, const Pos& pos,
                                const std::string& verb, const std::string& statement) {
  DmlTarget t;
  OptionList rest = hints;
  TRIB_ASSIGN_OR_RETURN(t.table, OpenWriteTarget(session, name, &rest, &t.name, verb));
  const auto schema = t.table->schema();
  if (!schema->HasPrimaryKey()) {
    return NotSupportedAt(pos, statement + " is only supported on primary-key tables; " +
                                   t.name.id.ToString() + " is an append table");
  }
  // Engines that combine records cannot take a DELETE or UPDATE as "remove / replace this row":
  // aggregation would add the change up, first-row would ignore it (as Paimon refuses them).
  TRIB_ASSIGN_OR_RETURN(options::MergeEngine engine, options::Get(*schema, options::kMergeEngine));
  TRIB_ASSIGN_OR_RETURN(bool remove_on_delete,
                        options::Get(*schema, options::kAggregationRemoveRecordOnDelete));
  if (engine == options::MergeEngine::kFirstRow || (engine == options::MergeEngine::kAggregation &&
                                                    !(statement == "DELETE" && remove_on_delete))) {
    return NotSupportedAt(pos,
                          statement + " is not supported on a table with merge engine '" +
                              options::MergeEngineName(engine) + "'" +
                              (engine == options::MergeEngine::kAggregation && statement == "DELETE"
                                   ? " unless 'aggregation.remove-record-on-delete' = 'true'"
                                   : ""));
  }
  if (!rest.empty()) {
    auto normalized = NormalizeHints(rest, *schema);
    if (!normalized.ok()) return ErrorAt(hints_pos, normalized.status().message());
    t.options.dynamic_options = std::move(*normalized);
  }
  return t;
}

Result<StatementResult> Session::Delete(const DeleteStmt& s) {
  TRIB_ASSIGN_OR_RETURN(DmlTarget t, OpenDmlTarget(*this, s.name, s.hints, s.hints_pos, s.pos,
                                                   "delete from", "DELETE"));
  TRIB_ASSIGN_OR_RETURN(RowChunks matching,
                        OpenMatchingRows(*t.table, s.where.get(), t.options.dynamic_options));
  TRIB_ASSIGN_OR_RETURN(std::optional<RowChunks> rows, UnlessEmpty(std::move(matching)));
  int64_t deleted = 0;
  if (rows) {
    auto committed =
        WriteAll(*t.table, t.options, RowKind::kDelete, *rows, true, &writer_lender_, &deleted);
    if (!committed.ok()) return Locate(committed.status(), s.pos);
  }
  StatementResult out;
  out.message = Plural(static_cast<size_t>(deleted), "Deleted");
  return out;
}

Result<StatementResult> Session::Update(const UpdateStmt& s) {
  TRIB_ASSIGN_OR_RETURN(
      DmlTarget t, OpenDmlTarget(*this, s.name, s.hints, s.hints_pos, s.pos, "update", "UPDATE"));
  const ResolvedName& rn = t.name;
  std::unique_ptr<Table> table = std::move(t.table);
  const auto schema = table->schema();
  Scope scope;
  for (const auto& f : schema->fields) scope.columns.push_back({f.name, rn.id.table, f.type});
  Binder binder(&scope);
  std::vector<std::pair<int, BoundExprPtr>> sets;
  for (const auto& a : s.assignments) {
    int idx = schema->FieldIndex(a.column);
    if (idx < 0) {
      return ErrorAt(a.pos, "unknown column '" + a.column + "' in table " + rn.id.ToString());
    }
    if (Contains(schema->primary_keys, a.column) || Contains(schema->partition_keys, a.column)) {
      return ErrorAt(
          a.pos,
          "cannot update " +
              std::string(Contains(schema->primary_keys, a.column) ? "primary-key" : "partition") +
              " column '" + a.column + "'");
    }
    for (const auto& [other, e] : sets) {
      if (other == idx) return ErrorAt(a.pos, "column '" + a.column + "' is set twice");
    }
    if (ContainsAggregate(*a.value)) {
      return ErrorAt(a.value->pos, "aggregate functions are not allowed in UPDATE");
    }
    const Field& f = schema->fields[idx];
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr e, binder.Bind(*a.value));
    if (!e->null_literal && !CanCast(e->type, f.type, CastMode::kAssignment)) {
      return ErrorAt(a.value->pos, "cannot assign " + TypeName(e->type) + " to column '" + f.name +
                                       "' of type " + TypeName(f.type));
    }
    TRIB_ASSIGN_OR_RETURN(e, CastTo(std::move(e), f.type, static_cast<int>(CastMode::kAssignment)));
    sets.emplace_back(idx, std::move(e));
  }
  WriteOptions options = std::move(t.options);
  TRIB_ASSIGN_OR_RETURN(RowChunks matching,
                        OpenMatchingRows(*table, s.where.get(), options.dynamic_options));
  // A partial-update table takes NULL as "no change" (Paimon's rule): setting a value to NULL
  // would report an update that changes nothing, so it is refused with the reason.
  TRIB_ASSIGN_OR_RETURN(options::MergeEngine engine, options::Get(*schema, options::kMergeEngine));
  const bool partial_update = engine == options::MergeEngine::kPartialUpdate;
  // Each chunk of matching rows updated as it is read; a failing row aborts the writer.
  RowChunks updated = [&](std::vector<Row>* out) -> Result<bool> {
    TRIB_ASSIGN_OR_RETURN(bool more, matching(out));
    if (!more) return false;
    for (Row& r : *out) {
      const Row old = r;
      for (const auto& [idx, e] : sets) {
        TRIB_ASSIGN_OR_RETURN(r[idx], Evaluate(*e, old));
        if (partial_update && r[idx].is_null() && !old[idx].is_null()) {
          return ErrorAt(s.pos, "cannot set column '" + schema->fields[idx].name +
                                    "' to NULL: in a partial-update table NULL means 'keep the "
                                    "current value', so the row would not change (delete the "
                                    "row, or use a sequence group, to clear fields)");
        }
      }
      TRIB_RETURN_NOT_OK(CheckNulls(*schema, r, s.pos, nullptr));
    }
    return true;
  };
  TRIB_ASSIGN_OR_RETURN(std::optional<RowChunks> rows, UnlessEmpty(std::move(updated)));
  int64_t count = 0;
  if (rows) {
    auto committed =
        WriteAll(*table, options, RowKind::kUpdateAfter, *rows, true, &writer_lender_, &count);
    if (!committed.ok()) return Locate(committed.status(), s.pos);
  }
  StatementResult out;
  out.message = Plural(static_cast<size_t>(count), "Updated");
  return out;
}

}  // namespace tributary::sql
