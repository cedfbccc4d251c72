// Point lookups in large Parquet data files by their page index (FindKeysByPages): the first key
// column's per-page bounds (the column index, kept in the process-wide cache) say which pages
// may hold a key; only those pages of the key columns are decoded, and only the pages holding
// the rows found of the other columns. No column is decoded whole and nothing of the file's
// rows stays in memory after the lookup.
#include <algorithm>

#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/parquet_file.h"
#include "io/file_cache.h"

namespace tributary::datafile {

namespace {

using format::parquet::RowRanges;

// The first key column's page bounds in one row group: page p holds rows [first_row[p],
// first_row[p + 1]) whose values lie in [min[p], max[p]] (bounds a writer truncated still hold
// them: a shorter minimum, a larger maximum).
struct PageBounds {
  std::vector<int64_t> first_row;  // pages + 1 entries
  std::vector<Value> min, max;
};

// Whether a page bound of a key column of `type` compares with keys as their values do.
bool UsableBound(const Value& v, const DataType& type) {
  if (type.IsInteger()) return v.is_int();
  return (type.IsString() || type.IsBinary()) && v.is_string();
}

// Every row group's page bounds of column `col` (of `type`), or nullopt when a row group has no
// usable page index (no column index, no offset index, a page without bounds).
Result<std::shared_ptr<const std::vector<PageBounds>>> LoadPageBounds(
    const format::parquet::ParquetReader& reader, const std::string& path, int col,
    const DataType& type) {
  using T = std::vector<PageBounds>;
  auto bounds = io::FileCache::Instance().GetOrLoad<T>(
      "key-pages:" + path + ":" + std::to_string(col), [&]() -> Result<std::pair<T, int64_t>> {
        T groups;
        int64_t bytes = 64;
        for (int rg = 0; rg < reader.num_row_groups(); rg++) {
          TRIB_ASSIGN_OR_RETURN(auto pages, reader.PageStatistics(rg, col));
          PageBounds b;
          b.first_row.push_back(0);
          for (const auto& p : pages) {
            if (!p.min || !p.max || !UsableBound(*p.min, type) || !UsableBound(*p.max, type) ||
                p.num_values <= 0) {
              return Status::NotFound("no page index");
            }
            b.min.push_back(*p.min);
            b.max.push_back(*p.max);
            if (p.min->is_string()) {
              bytes +=
                  static_cast<int64_t>(p.min->string_value().size() + p.max->string_value().size());
            }
            b.first_row.push_back(b.first_row.back() + p.num_values);
          }
          if (pages.empty() || b.first_row.back() != reader.metadata().row_groups[rg].num_rows) {
            return Status::NotFound("no page index");
          }
          bytes += static_cast<int64_t>(pages.size()) * (8 + 2 * sizeof(Value));
          groups.push_back(std::move(b));
        }
        return std::make_pair(std::move(groups), bytes);
      });
  if (!bounds.ok() && bounds.status().IsNotFound()) {
    return std::shared_ptr<const std::vector<PageBounds>>();
  }
  return bounds;
}

// Appends rows [begin, end) to `ranges` (ascending), merging with the last range.
void AddRange(RowRanges* ranges, int64_t begin, int64_t end) {
  if (!ranges->empty() && ranges->back().second >= begin) {
    ranges->back().second = std::max(ranges->back().second, end);
  } else {
    ranges->push_back({begin, end});
  }
}

}  // namespace

namespace {

bool SearchableKeyType(const DataType& t) { return t.IsInteger() || t.IsString() || t.IsBinary(); }

}  // namespace

Result<std::optional<std::vector<KeyPosition>>> FindKeysByPages(const DataFileRef& ref,
                                                                const FileLayout& layout,
                                                                int32_t level,
                                                                const std::vector<Row>& keys) {
  using Out = std::optional<std::vector<KeyPosition>>;
  const size_t nk = layout.key_columns.size();
  if (nk == 0 || !SearchableKeyType(layout.fields[layout.key_columns[0]].type) ||
      !ReadsColumns(ref.path)) {
    return Out();
  }
  for (const Row& k : keys) {
    if (k.size() != nk || !UsableBound(k[0], layout.fields[layout.key_columns[0]].type)) {
      return Out();
    }
  }
  TRIB_ASSIGN_OR_RETURN(ParquetReaderPtr reader, OpenParquet(ref));
  const auto& schema = reader->schema();
  // The file's columns: the key columns, then a record's (RecordColumns).
  std::vector<int> cols;
  for (int k : layout.key_columns) cols.push_back(FileColumnOf(schema, layout.fields[k]));
  std::optional<std::vector<int>> record_cols = RecordColumns(*reader, layout);
  if (!record_cols || std::any_of(cols.begin(), cols.end(), [](int c) { return c < 0; })) {
    return Out();
  }
  cols.insert(cols.end(), record_cols->begin(), record_cols->end());
  TRIB_ASSIGN_OR_RETURN(auto bounds, LoadPageBounds(*reader, ref.path, cols[0],
                                                    layout.fields[layout.key_columns[0]].type));
  if (!bounds) return Out();
  const std::vector<int> key_cols(cols.begin(), cols.begin() + static_cast<std::ptrdiff_t>(nk));
  const std::vector<int> rest(cols.begin() + static_cast<std::ptrdiff_t>(nk), cols.end());
  const auto key_less = [](const Row& a, const Row& b) { return CompareKeys(a, b) < 0; };
  std::vector<KeyPosition> out;
  int64_t group_start = 0;  // the file row of the row group's first row
  for (int rg = 0; rg < reader->num_row_groups(); rg++) {
    const PageBounds& b = (*bounds)[rg];
    // The pages whose first key column's bounds may hold a key.
    RowRanges candidates;
    for (const Row& k : keys) {
      for (size_t p = 0; p < b.min.size(); p++) {
        if (CompareValues(b.min[p], k[0]) <= 0 && CompareValues(k[0], b.max[p]) <= 0) {
          AddRange(&candidates, b.first_row[p], b.first_row[p + 1]);
        }
      }
    }
    if (!candidates.empty()) {
      TRIB_ASSIGN_OR_RETURN(auto key_columns,
                            reader->ReadRowGroupVectors(rg, key_cols, &candidates));
      // The rows (in the row group) whose key is asked for: candidates' rows in order.
      RowRanges found;
      std::vector<int64_t> found_rows;
      size_t i = 0;
      Row key(nk), previous;
      for (const auto& [begin, end] : candidates) {
        for (int64_t r = begin; r < end; r++, i++) {
          for (size_t c = 0; c < nk; c++) key[c] = key_columns[c].Get(i);
          if (!previous.empty() && CompareKeys(key, previous) < 0) {
            return Status::Corruption("data file '" + ref.path + "': keys out of order");
          }
          previous = key;
          if (std::binary_search(keys.begin(), keys.end(), key, key_less)) {
            AddRange(&found, r, r + 1);
            found_rows.push_back(r);
          }
        }
      }
      if (!found.empty()) {
        TRIB_ASSIGN_OR_RETURN(auto values, reader->ReadRowGroupVectors(rg, rest, &found));
        for (size_t f = 0; f < found_rows.size(); f++) {
          KeyPosition kp;
          kp.position = group_start + found_rows[f];
          TRIB_RETURN_NOT_OK(RecordAt(values, f, ref.path, kp.position, level, &kp.record));
          out.push_back(std::move(kp));
        }
      }
    }
    group_start += reader->metadata().row_groups[rg].num_rows;
  }
  return Out(std::move(out));
}

}  // namespace tributary::datafile
