// What EXPLAIN says of a table scan (DescribeScan): its projection and filters, and how the
// scan is served: a point lookup, the buckets or partitions a filter prunes.
#include <algorithm>
#include <set>
#include <utility>

#include "common/strings.h"
#include "meta/paths.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "read/scan_plan.h"
#include "sql/planner/query_internal.h"
#include "tributary/table_scan.h"

namespace tributary::sql::planner {

// What EXPLAIN says of a table scan.
// How a scan whose filters fix the whole primary key is served (as the split reader decides):
// "point lookup of id = 1 (...)", or empty.
std::string PointLookupNote(const TableSchema& schema, const std::vector<Predicate>& filters) {
  const bool vectors = options::Get(schema, options::kDeletionVectorsEnabled).ValueOr(false);
  if (!schema.HasPrimaryKey() ||
      (vectors && options::Get(schema, options::kDeletionVectorsMergeOnRead).ValueOr(false))) {
    return "";
  }
  // The filter fixing each key column, as the split reader picks it.
  std::vector<int> columns;
  for (const auto& k : schema.TrimmedPrimaryKeys()) columns.push_back(schema.FieldIndex(k));
  auto fixing = read::FiltersFixing(schema, columns, filters);
  if (!fixing) return "";
  std::string key;
  size_t keys = 1;
  for (size_t i = 0; i < columns.size(); i++) {
    const Predicate* p = (*fixing)[i];
    const Field& field = schema.fields[columns[i]];
    std::set<std::string> distinct;
    for (const Value& v : p->literals) distinct.insert(FormatValue(v, field.type));
    keys *= distinct.size();
    std::string values;
    for (const Value& v : p->literals) {
      values += (values.empty() ? "" : ", ") + FormatValue(v, field.type);
    }
    key += (key.empty() ? "" : ", ") + field.name +
           (p->literals.size() == 1 ? " = " + values : " IN (" + values + ")");
  }
  if (key.empty()) return "";
  std::string where =
      vectors ? "each split's files above level 0 whose key range holds a key, binary-searched, "
                "the rows their deletion vectors delete skipped"
              : "each split's files whose key range holds a key, binary-searched, merged";
  if (!schema.BucketKeys().empty() && options::Get(schema, options::kBucket).ValueOr(-1) > 0) {
    std::vector<int> bucket_columns;
    for (const auto& k : schema.BucketKeys()) bucket_columns.push_back(schema.FieldIndex(k));
    const bool bucket_fixed = read::FiltersFixing(schema, bucket_columns, filters).has_value();
    if (bucket_fixed) {
      where = "only the keys' buckets in each partition (from their hash); " + where;
    }
  }
  return keys == 1 ? "; point lookup of " + key + ": " + where
                   : "; point lookups of " + std::to_string(keys) + " keys (" + key + "): " + where;
}

// A filter that fixes the bucket key of a fixed-bucket table (a prefix of the primary key, say)
// without fixing the whole key: the scan reads only those values' buckets in each partition.
std::string BucketPruningNote(const TableSchema& schema, const std::vector<Predicate>& filters) {
  if (schema.BucketKeys().empty() || options::Get(schema, options::kBucket).ValueOr(-1) <= 0) {
    return "";
  }
  std::vector<int> columns;
  for (const auto& k : schema.BucketKeys()) columns.push_back(schema.FieldIndex(k));
  auto keys = read::KeysFixedByFilters(schema, columns, filters);
  if (!keys) return "";
  std::set<std::string> distinct;
  for (const Row& k : *keys) {
    std::string text;
    for (size_t i = 0; i < k.size(); i++) {
      text += (i ? ", " : "") + FormatValue(k[i], schema.fields[columns[i]].type);
    }
    distinct.insert(text);
  }
  return "; buckets: only those of " + std::to_string(distinct.size()) + " bucket-key value" +
         (distinct.size() == 1 ? "" : "s") + " in each partition";
}

// The scan's own plan of `table` under `opts` (what EXPLAIN's pruning notes count).
Result<read::ScanPlan> PlanAsScan(Table& table, const options::CoreOptions& core,
                                  const ScanOptions& opts) {
  read::ScanPlanRequest request;
  request.path = table.path();
  request.meta_path = table.path();
  request.schema = table.schema();
  request.core = &core;
  request.options = &opts;
  request.every_partition = true;  // "1 of 3 read" counts every partition
  return read::PlanScan(request);
}

// The partitions a scan of a partitioned table reads when a filter names a partition key, as the
// scan's own planning prunes them: "; partitions: 1 of 3 read (dt=a/hr=1)".
std::string PartitionPruningNote(Table& table, const ScanOptions& opts) {
  const TableSchema& schema = *table.schema();
  if (schema.partition_keys.empty()) return "";
  std::vector<Field> pfields;
  std::set<int> pcols;
  for (const auto& k : schema.partition_keys) {
    pcols.insert(schema.FieldIndex(k));
    pfields.push_back(schema.fields[schema.FieldIndex(k)]);
  }
  if (std::none_of(opts.filters.begin(), opts.filters.end(),
                   [&](const Predicate& p) { return pcols.count(p.column) > 0; })) {
    return "";
  }
  auto core = options::CoreOptions::From(schema, opts.dynamic_options);
  if (!core.ok()) return "";
  auto plan = PlanAsScan(table, *core, opts);
  if (!plan.ok()) return "";
  std::set<std::string> read;
  std::vector<std::string> names;
  for (const auto& split : plan->splits) {
    if (!read.insert(split.pbytes).second) continue;
    names.push_back(meta::PartitionPath(pfields, split.partition, core->partition_default_name));
  }
  std::sort(names.begin(), names.end());
  std::string out = "; partitions: " + std::to_string(read.size()) + " of " +
                    std::to_string(plan->partitions.size()) + " read";
  if (!names.empty()) {
    out += " (";
    for (size_t i = 0; i < names.size() && i < 5; i++) out += (i ? ", " : "") + names[i];
    out += names.size() > 5 ? ", ...)" : ")";
  }
  return out;
}

// What a point lookup reads, as the scan's own planning prunes the snapshot's files by bucket,
// key range and statistics: "; reads 1 of 4 buckets holding files (bucket 2), 1 of 6 files". The
// split reader then binary-searches those files for the keys.
std::string LookupPruningNote(Table& table, const ScanOptions& opts) {
  auto core = options::CoreOptions::From(*table.schema(), opts.dynamic_options);
  if (!core.ok()) return "";
  auto pruned = PlanAsScan(table, *core, opts);
  ScanOptions unfiltered = opts;
  unfiltered.filters.clear();
  auto whole = PlanAsScan(table, *core, unfiltered);
  if (!pruned.ok() || !whole.ok()) return "";
  auto count = [](const read::ScanPlan& plan, std::set<std::pair<std::string, int32_t>>* buckets) {
    size_t files = 0;
    for (const auto& split : plan.splits) {
      if (!split.files.empty()) buckets->insert({split.pbytes, split.bucket});
      files += split.files.size();
    }
    return files;
  };
  std::set<std::pair<std::string, int32_t>> read_buckets, all_buckets;
  const size_t read_files = count(*pruned, &read_buckets), all_files = count(*whole, &all_buckets);
  std::set<int32_t> numbers;
  for (const auto& b : read_buckets) numbers.insert(b.second);
  std::string out = "; reads " + std::to_string(read_buckets.size()) + " of " +
                    std::to_string(all_buckets.size()) + " bucket" +
                    (all_buckets.size() == 1 ? "" : "s") + " holding files";
  if (!numbers.empty()) {
    out += numbers.size() == 1 ? " (bucket " : " (buckets ";
    size_t i = 0;
    for (int32_t b : numbers) {
      if (i == 5) {
        out += ", ...";
        break;
      }
      out += (i++ ? ", " : "") + std::to_string(b);
    }
    out += ")";
  }
  return out + ", " + std::to_string(read_files) + " of " + std::to_string(all_files) + " file" +
         (all_files == 1 ? "" : "s");
}

std::string DescribeScan(const Source& source, const ScanPlan& scan, const ScanOptions& opts) {
  std::string out = "TableScan: " + source.name + " (projection: ";
  if (scan.projection.empty()) out += "none";
  for (size_t i = 0; i < scan.projection.size(); ++i) {
    out += (i ? ", " : "") + source.fields[scan.projection[i]].name;
  }
  out += "; filters: ";
  if (scan.filter_texts.empty()) out += "none";
  for (size_t i = 0; i < scan.filter_texts.size(); ++i) {
    out += (i ? " AND " : "") + scan.filter_texts[i];
  }
  out += "; limit: " + (scan.limit ? std::to_string(*scan.limit) : "none");
  if (scan.snapshot_id) out += "; snapshot: " + std::to_string(*scan.snapshot_id);
  if (source.table) {
    const TableSchema& schema = *source.table->schema();
    std::string lookup = PointLookupNote(schema, scan.filters);
    out += lookup;
    if (!lookup.empty() && Explaining()) out += LookupPruningNote(*source.table, opts);
    if (lookup.empty()) out += BucketPruningNote(schema, scan.filters);
    if (Explaining()) out += PartitionPruningNote(*source.table, opts);
  }
  out += opts.max_batch_rows > 0
             ? "; batches of at most " + std::to_string(opts.max_batch_rows) + " rows"
             : "; whole splits read ahead on every core";
  return out + ")";
}

}  // namespace tributary::sql::planner
