// Catalog::AlterTableColumns (tributary/catalog.h): ALTER TABLE ADD / DROP / RENAME / MODIFY
// columns, a new schema whose options follow the renamed and dropped columns.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>

#include "commit/snapshot_expire.h"
#include "common/evolution_cast.h"
#include "common/path_names.h"
#include "common/strings.h"
#include "datafile/file_format.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "io/s3_file_system.h"
#include "merge/merge_config.h"
#include "meta/branches.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "table/auto_partition.h"
#include "table/catalog_internal.h"
#include "table/file_store_table.h"
#include "table/partition_expire.h"
#include "table/system_tables.h"
#include "tributary/catalog.h"
#include "tributary/options.h"
#include "tributary/table.h"

namespace tributary {

using catalog_internal::AssignFieldIds;
using catalog_internal::BuildSchema;
using catalog_internal::CheckName;

namespace {

// Options whose value or key names columns: a comma list of names ('bucket-key',
// 'sequence.field', sequence groups, ...). Their names of `from` become `to` (empty: the
// option names it, reported through *named).
bool NamesColumns(const std::string& key) {
  static const std::set<std::string> kLists = {"bucket-key",
                                               "sequence.field",
                                               "partial-update.remove-record-on-sequence-group",
                                               "changelog-producer.row-deduplicate-ignore-fields",
                                               "table.merge-engine.versioned.ver-column",
                                               "primary-key",
                                               "partition",
                                               "file-index.bloom-filter.columns"};
  return kLists.count(key) > 0 || (key.rfind("fields.", 0) == 0 && key.size() > 15 &&
                                   key.compare(key.size() - 15, 15, ".sequence-group") == 0);
}

std::string RenameInList(const std::string& list, const std::string& from, const std::string& to,
                         bool* hit) {
  std::string out;
  for (const auto& name : SplitCommaList(list)) {
    const bool same = name == from;
    *hit = *hit || same;
    out += (out.empty() ? "" : ",") + (same ? to : name);
  }
  return out;
}

// Options after column `from` is renamed to `to` (`to` empty: dropped). Sets *named to an
// option that names the column in its value or in a multi-column key (which a drop refuses).
std::map<std::string, std::string> OptionsAfterColumnChange(
    const std::map<std::string, std::string>& options, const std::string& from,
    const std::string& to, std::string* named) {
  std::map<std::string, std::string> out;
  const std::string prefix = "fields." + from + ".";
  const std::string bloom_prefix = "file-index.bloom-filter." + from + ".";
  for (const auto& [k, v] : options) {
    std::string key = k;
    std::string value = v;
    if (k.rfind(prefix, 0) == 0) {
      if (to.empty()) continue;  // the dropped column's own settings go with it
      key = "fields." + to + "." + k.substr(prefix.size());
    } else if (k.rfind(bloom_prefix, 0) == 0 && (k.ends_with(".items") || k.ends_with(".fpp"))) {
      if (to.empty()) continue;
      key = "file-index.bloom-filter." + to + "." + k.substr(bloom_prefix.size());
    } else if (k.rfind("fields.", 0) == 0 && k.size() > 15 &&
               k.compare(k.size() - 15, 15, ".sequence-group") == 0) {
      // fields.<seq1,seq2>.sequence-group = 'a,b': both sides are column lists.
      bool hit = false;
      key =
          "fields." + RenameInList(k.substr(7, k.size() - 22), from, to, &hit) + ".sequence-group";
      value = RenameInList(v, from, to, &hit);
      if (hit && named && named->empty()) *named = k;
    } else if (NamesColumns(k)) {
      bool hit = false;
      value = RenameInList(v, from, to, &hit);
      if (hit && named && named->empty()) *named = k;
    }
    out[key] = value;
  }
  return out;
}

}  // namespace

Status Catalog::AlterTableColumns(const Identifier& id, const std::vector<ColumnChange>& changes) {
  return AlterTableColumns(id, changes, {}, {}, -1);
}

Status Catalog::AlterTableColumns(const Identifier& id, const std::vector<ColumnChange>& changes,
                                  const std::map<std::string, std::string>& set_options,
                                  const std::vector<std::string>& reset_options,
                                  int64_t expected_schema_id) {
  TRIB_ASSIGN_OR_RETURN(std::string path, TablePath(id));
  meta::SchemaManager schemas(path);
  for (int attempt = 0; attempt < 10; attempt++) {
    TRIB_ASSIGN_OR_RETURN(auto latest_id, schemas.LatestId());
    if (!latest_id) return TableNotFound(id);
    if (expected_schema_id >= 0 && *latest_id != expected_schema_id) {
      return Status::Conflict("the schema of '" + id.ToString() +
                              "' changed meanwhile (now "
                              "schema " +
                              std::to_string(*latest_id) + "); run the ALTER again");
    }
    TRIB_ASSIGN_OR_RETURN(auto latest, schemas.Read(*latest_id));
    std::vector<Field> fields = latest->fields;
    std::vector<std::string> primary_keys = latest->primary_keys;
    std::map<std::string, std::string> options = latest->options;
    int32_t highest = latest->highest_field_id;
    auto find = [&](const std::string& name) {
      return std::find_if(fields.begin(), fields.end(),
                          [&](const Field& f) { return f.name == name; });
    };
    auto exists = [&](const std::string& name) { return find(name) != fields.end(); };
    auto names = [&]() {
      std::vector<std::string> n;
      for (const auto& f : fields) n.push_back(f.name);
      return n;
    };
    auto unknown = [&](const std::string& name) {
      std::string message = "column '" + name + "' does not exist in table '" + id.ToString() + "'";
      const std::string hint = options::DidYouMean(name, names());
      if (!hint.empty()) message += "; did you mean '" + hint + "'?";
      return Status::Invalid(message);
    };
    auto is_key = [&](const std::string& name) {
      return std::find(primary_keys.begin(), primary_keys.end(), name) != primary_keys.end();
    };
    auto is_partition = [&](const std::string& name) {
      return std::find(latest->partition_keys.begin(), latest->partition_keys.end(), name) !=
             latest->partition_keys.end();
    };
    // Moves the field at `it` as `c` says.
    auto place = [&](std::vector<Field>::iterator it, const ColumnChange& c) -> Status {
      if (c.position == ColumnChange::Position::kUnchanged) return Status::OK();
      Field f = std::move(*it);
      fields.erase(it);
      if (c.position == ColumnChange::Position::kFirst) {
        fields.insert(fields.begin(), std::move(f));
        return Status::OK();
      }
      if (c.after == f.name) {
        return Status::Invalid("cannot move column '" + f.name + "' after itself");
      }
      auto ref = find(c.after);
      if (ref == fields.end()) return unknown(c.after);
      fields.insert(ref + 1, std::move(f));
      return Status::OK();
    };
    for (const ColumnChange& c : changes) {
      switch (c.kind) {
        case ColumnChange::Kind::kAdd: {
          if (exists(c.column)) {
            return Status::Invalid("column '" + c.column + "' already exists in table '" +
                                   id.ToString() + "'");
          }
          if (!c.type) return Status::Invalid("ADD COLUMN '" + c.column + "' needs a type");
          if (!c.type->nullable) {
            return Status::Invalid("column '" + c.column +
                                   "' cannot be NOT NULL: the rows "
                                   "already written have no value for it");
          }
          Field f;
          f.id = ++highest;
          f.name = c.column;
          int32_t next = highest + 1;  // nested field ids follow the column's
          f.type = AssignFieldIds(*c.type, &next);
          highest = next - 1;
          f.description = c.comment.value_or("");
          fields.push_back(std::move(f));
          TRIB_RETURN_NOT_OK(place(fields.end() - 1, c));
          break;
        }
        case ColumnChange::Kind::kDrop: {
          auto it = find(c.column);
          if (it == fields.end()) return unknown(c.column);
          if (is_key(c.column) || is_partition(c.column)) {
            return Status::Invalid("cannot drop column '" + c.column +
                                   "': it is a primary key "
                                   "or partition column");
          }
          std::string named;
          auto next_options = OptionsAfterColumnChange(options, c.column, "", &named);
          if (!named.empty()) {
            return Status::Invalid("cannot drop column '" + c.column + "': option '" + named +
                                   "' names it");
          }
          options = std::move(next_options);
          fields.erase(it);
          if (fields.empty()) return Status::Invalid("cannot drop every column of a table");
          break;
        }
        case ColumnChange::Kind::kRename: {
          auto it = find(c.column);
          if (it == fields.end()) return unknown(c.column);
          if (is_partition(c.column)) {
            return Status::Invalid("cannot rename partition column '" + c.column + "'");
          }
          if (exists(c.new_name)) {
            return Status::Invalid("column '" + c.new_name + "' already exists in table '" +
                                   id.ToString() + "'");
          }
          TRIB_RETURN_NOT_OK(CheckName("column", c.new_name));
          it->name = c.new_name;
          for (auto& k : primary_keys) {
            if (k == c.column) k = c.new_name;
          }
          options = OptionsAfterColumnChange(options, c.column, c.new_name, nullptr);
          break;
        }
        case ColumnChange::Kind::kModify: {
          auto it = find(c.column);
          if (it == fields.end()) return unknown(c.column);
          if (c.type && !(c.type->SameKind(it->type) && c.type->nullable == it->type.nullable &&
                          c.type->ToString() == it->type.ToString())) {
            if (is_key(c.column) || is_partition(c.column)) {
              return Status::Invalid("cannot change the type of column '" + c.column +
                                     "': it is a primary key or partition column");
            }
            if (it->type.nullable && !c.type->nullable) {
              return Status::Invalid("cannot change column '" + c.column +
                                     "' from nullable "
                                     "to NOT NULL: rows already written may hold NULL");
            }
            if (!EvolutionCastSupported(it->type, *c.type)) {
              return Status::Invalid("column type " + c.column + "[" + it->type.ToString() +
                                     "] cannot be converted to " + c.type->ToString() +
                                     " without losing information");
            }
            int32_t next = highest + 1;
            DataType t = AssignFieldIds(*c.type, &next);
            highest = next - 1;
            it->type = t;
          }
          if (c.comment) it->description = *c.comment;
          TRIB_RETURN_NOT_OK(place(it, c));
          break;
        }
      }
    }
    // The result must be a table CREATE TABLE accepts (options against the new columns,
    // merge settings, key types).
    for (const auto& k : reset_options) options.erase(k);
    for (const auto& [k, v] : set_options) options[k] = v;
    TableSpec spec;
    spec.columns = fields;
    spec.primary_keys = primary_keys;
    spec.partition_keys = latest->partition_keys;
    spec.comment = latest->comment;
    spec.options = options;
    TRIB_ASSIGN_OR_RETURN(TableSchema next, BuildSchema(spec));
    for (size_t i = 0; i < fields.size(); i++) {
      fields[i].type.nullable = next.fields[i].type.nullable;
    }
    next.fields = fields;  // keep field ids
    next.highest_field_id = highest;
    next.id = latest->id + 1;
    TRIB_ASSIGN_OR_RETURN(bool ok, schemas.Commit(next));
    if (ok) return Status::OK();
  }
  return Status::Conflict("ALTER TABLE '" + id.ToString() + "' kept losing to concurrent changes");
}

}  // namespace tributary
