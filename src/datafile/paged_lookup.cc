// Point lookups in large Parquet data files by their page index (FindIntKeysByPages): the key
// column's per-page bounds (the column index, kept in the process-wide cache) say which pages
// may hold a key; only those pages of the key column are decoded, and only the pages holding
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

// The key column's page bounds in one row group: page p holds rows [first_row[p],
// first_row[p + 1]) whose keys lie in [min[p], max[p]].
struct PageBounds {
  std::vector<int64_t> first_row;  // pages + 1 entries
  std::vector<int64_t> min, max;
};

// Every row group's page bounds of column `col`, or nullopt when a row group has no usable page
// index (no column index, no offset index, a page without integer bounds).
Result<std::shared_ptr<const std::vector<PageBounds>>> LoadPageBounds(
    const format::parquet::ParquetReader& reader, const std::string& path, int col) {
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
            if (!p.min || !p.max || !p.min->is_int() || !p.max->is_int() || p.num_values <= 0) {
              return Status::NotFound("no page index");
            }
            b.min.push_back(p.min->int_value());
            b.max.push_back(p.max->int_value());
            b.first_row.push_back(b.first_row.back() + p.num_values);
          }
          if (pages.empty() || b.first_row.back() != reader.metadata().row_groups[rg].num_rows) {
            return Status::NotFound("no page index");
          }
          bytes += static_cast<int64_t>(pages.size()) * 24;
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

Result<std::optional<std::vector<KeyPosition>>> FindIntKeysByPages(
    const DataFileRef& ref, const FileLayout& layout, int32_t level,
    const std::vector<int64_t>& keys) {
  using Out = std::optional<std::vector<KeyPosition>>;
  if (layout.key_columns.size() != 1 || !layout.fields[layout.key_columns[0]].type.IsInteger() ||
      !ReadsColumns(ref.path)) {
    return Out();
  }
  TRIB_ASSIGN_OR_RETURN(ParquetReaderPtr reader, OpenParquet(ref));
  const auto& schema = reader->schema();
  // The file's columns: the key, _SEQUENCE_NUMBER, _VALUE_KIND, then every table field.
  std::vector<int> cols = {FileColumnOf(schema, layout.fields[layout.key_columns[0]])};
  cols.push_back(schema.FindColumn("_SEQUENCE_NUMBER"));
  cols.push_back(schema.FindColumn("_VALUE_KIND"));
  for (const Field& field : layout.fields) {
    const int c = FileColumnOf(schema, field);
    auto type = c >= 0 ? reader->ColumnType(c) : std::nullopt;
    if (!type || type->id != field.type.id) return Out();
    cols.push_back(c);
  }
  if (std::any_of(cols.begin(), cols.begin() + 3, [](int c) { return c < 0; })) return Out();
  TRIB_ASSIGN_OR_RETURN(auto bounds, LoadPageBounds(*reader, ref.path, cols[0]));
  if (!bounds) return Out();
  std::vector<KeyPosition> out;
  int64_t group_start = 0;  // the file row of the row group's first row
  for (int rg = 0; rg < reader->num_row_groups(); rg++) {
    const PageBounds& b = (*bounds)[rg];
    // The pages that may hold a key.
    RowRanges candidates;
    for (int64_t k : keys) {
      for (size_t p = 0; p < b.min.size(); p++) {
        if (b.min[p] <= k && k <= b.max[p])
          AddRange(&candidates, b.first_row[p], b.first_row[p + 1]);
      }
    }
    if (!candidates.empty()) {
      TRIB_ASSIGN_OR_RETURN(auto key_column,
                            reader->ReadRowGroupVectors(rg, {cols[0]}, &candidates));
      const ColumnVector& got = key_column[0];
      if (got.rep != ColumnVector::Rep::kInt) return Out();
      // The rows (in the row group) whose key is asked for: candidates' rows in order.
      RowRanges found;
      std::vector<int64_t> found_rows;
      size_t i = 0;
      for (const auto& [begin, end] : candidates) {
        for (int64_t r = begin; r < end; r++, i++) {
          if (i > 0 && got.ints[i] < got.ints[i - 1]) {
            return Status::Corruption("data file '" + ref.path + "': keys out of order");
          }
          if (!got.IsNull(i) && std::binary_search(keys.begin(), keys.end(), got.ints[i])) {
            AddRange(&found, r, r + 1);
            found_rows.push_back(r);
          }
        }
      }
      if (!found.empty()) {
        std::vector<int> rest(cols.begin() + 1, cols.end());
        TRIB_ASSIGN_OR_RETURN(auto values, reader->ReadRowGroupVectors(rg, rest, &found));
        for (size_t f = 0; f < found_rows.size(); f++) {
          KeyPosition kp;
          kp.position = group_start + found_rows[f];
          const Value seq = values[0].Get(f), kind = values[1].Get(f);
          if (!seq.is_int() || !kind.is_int() || kind.int_value() < 0 || kind.int_value() > 3) {
            return Status::Corruption("data file '" + ref.path + "': row " +
                                      std::to_string(group_start + found_rows[f]) +
                                      " has no valid sequence number or row kind");
          }
          kp.record.sequence = seq.int_value();
          kp.record.kind = static_cast<RowKind>(kind.int_value());
          kp.record.level = level;
          kp.record.value.reserve(layout.fields.size());
          for (size_t t = 0; t < layout.fields.size(); t++) {
            kp.record.value.push_back(values[2 + t].Get(f));
          }
          out.push_back(std::move(kp));
        }
      }
    }
    group_start += reader->metadata().row_groups[rg].num_rows;
  }
  return Out(std::move(out));
}

}  // namespace tributary::datafile
