#include "table/sort_compact.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "common/column_rep.h"
#include "datafile/spill_file.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "options/option_keys.h"
#include "table/rewrite.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary::table {

namespace {

// A value as a 64-bit number in the same order (NULL first): integers (DATE, TIME, BOOLEAN too)
// and timestamps by value, DOUBLE by its IEEE bits, DECIMAL by its unscaled value (clamped),
// strings and bytes by their first 8 bytes.
uint64_t OrderBits(const Value& v) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  if (v.is_null()) return 0;
  if (v.is_bool()) return kSign + (v.bool_value() ? 1 : 0);
  if (v.is_int()) return static_cast<uint64_t>(v.int_value()) ^ kSign;
  if (v.is_timestamp()) return static_cast<uint64_t>(v.timestamp_value().millis) ^ kSign;
  if (v.is_decimal()) {
    const __int128 u = v.decimal_value().unscaled;
    const int64_t clamped = u > INT64_MAX ? INT64_MAX : u < INT64_MIN ? INT64_MIN : int64_t(u);
    return static_cast<uint64_t>(clamped) ^ kSign;
  }
  if (v.is_double()) {
    uint64_t bits;
    const double d = v.double_value();
    std::memcpy(&bits, &d, sizeof(bits));
    return (bits & kSign) ? ~bits : bits | kSign;
  }
  if (v.is_string()) {
    uint64_t out = 0;
    const std::string& s = v.string_value();
    for (size_t i = 0; i < 8; i++) {
      out = (out << 8) | (i < s.size() ? static_cast<uint8_t>(s[i]) : 0);
    }
    return out;
  }
  return 0;
}

// The bits of x[0..n) interleaved, most significant first: bit b of x[0], of x[1], ..., then
// bit b-1 of each.
std::string Interleave(const std::vector<uint64_t>& x) {
  const size_t n = x.size();
  std::string out((n * 64 + 7) / 8, '\0');
  size_t at = 0;
  for (int b = 63; b >= 0; b--) {
    for (size_t i = 0; i < n; i++, at++) {
      if ((x[i] >> b) & 1) out[at / 8] = static_cast<char>(out[at / 8] | (0x80 >> (at % 8)));
    }
  }
  return out;
}

// Skilling's transform ("Programming the Hilbert curve", 2004) of n coordinates of 64 bits into
// the "transposed" Hilbert index, whose interleaved bits are the index.
void AxesToTranspose(std::vector<uint64_t>* xs) {
  std::vector<uint64_t>& x = *xs;
  const size_t n = x.size();
  constexpr uint64_t kTop = uint64_t{1} << 63;
  for (uint64_t q = kTop; q > 1; q >>= 1) {
    const uint64_t p = q - 1;
    for (size_t i = 0; i < n; i++) {
      if (x[i] & q) {
        x[0] ^= p;  // invert the low bits of x[0]
      } else {
        const uint64_t t = (x[0] ^ x[i]) & p;  // exchange the low bits of x[0] and x[i]
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  for (size_t i = 1; i < n; i++) x[i] ^= x[i - 1];  // Gray encode
  uint64_t t = 0;
  for (uint64_t q = kTop; q > 1; q >>= 1) {
    if (x[n - 1] & q) t ^= q - 1;
  }
  for (size_t i = 0; i < n; i++) x[i] ^= t;
}

// Rows of a segment of a spilled run: each run being merged holds one segment.
constexpr size_t kRunSegmentRows = 1024;

int64_t RowBytes(const Row& r) {
  int64_t b = 16 * static_cast<int64_t>(r.size()) + 32;
  for (const Value& v : r) {
    if (v.is_string()) b += static_cast<int64_t>(v.string_value().size());
  }
  return b;
}

// The rows of sorted `runs` (the table's `width` columns, then the sort key) merged by `less`
// into `write`: each run holds its next row; ties go to the earlier run (rows read earlier), so
// the merge is as stable as one sort.
// A row to sort and its sort key ('order': empty, the columns compare).
struct Keyed {
  std::string key;
  Row row;
};

template <typename Less, typename Write>
Status MergeRuns(const std::vector<std::unique_ptr<datafile::SpillFile>>& runs, size_t width,
                 const Less& less, const Write& write) {
  struct Cursor {
    const datafile::SpillFile* file;
    size_t segment = 0;
    ColumnBatch batch;
    size_t row = 0;
    Keyed head;
  };
  std::vector<Cursor> cursors(runs.size());
  auto advance = [&](Cursor& c) -> Result<bool> {
    while (c.row >= c.batch.num_rows) {
      if (c.segment >= c.file->segments()) return false;
      TRIB_ASSIGN_OR_RETURN(c.batch, c.file->Read(c.segment++));
      c.row = 0;
    }
    c.head.row.resize(width);
    for (size_t col = 0; col < width; col++) c.head.row[col] = c.batch.columns[col].Get(c.row);
    c.head.key = std::string(c.batch.columns[width].strings[c.row]);
    c.row++;
    return true;
  };
  auto after = [&](size_t a, size_t b) {  // the heap's order: the smallest head on top
    if (less(cursors[b].head, cursors[a].head)) return true;
    if (less(cursors[a].head, cursors[b].head)) return false;
    return a > b;
  };
  std::vector<size_t> heap;
  for (size_t i = 0; i < runs.size(); i++) {
    cursors[i].file = runs[i].get();
    TRIB_ASSIGN_OR_RETURN(bool has, advance(cursors[i]));
    if (has) heap.push_back(i);
  }
  std::make_heap(heap.begin(), heap.end(), after);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), after);
    Cursor& c = cursors[heap.back()];
    TRIB_RETURN_NOT_OK(write(std::move(c.head.row)));
    TRIB_ASSIGN_OR_RETURN(bool has, advance(c));
    if (has) {
      std::push_heap(heap.begin(), heap.end(), after);
    } else {
      heap.pop_back();
    }
  }
  return Status::OK();
}

}  // namespace

std::string SortCompactKey(const std::string& strategy, const std::vector<Value>& values) {
  std::vector<uint64_t> x;
  x.reserve(values.size());
  for (const Value& v : values) x.push_back(OrderBits(v));
  if (strategy == "hilbert" && x.size() > 1) AxesToTranspose(&x);
  if (strategy == "order") {
    std::string out;
    for (uint64_t v : x) {
      for (int b = 56; b >= 0; b -= 8) out += static_cast<char>((v >> b) & 0xff);
    }
    return out;
  }
  return Interleave(x);
}

Result<RewriteResult> SortCompact(Table& table, const SortCompactRequest& request) {
  const auto schema = table.schema();
  const std::string name = table.identifier().ToString();
  TRIB_ASSIGN_OR_RETURN(const int64_t buckets, options::Get(*schema, options::kBucket));
  if (schema->HasPrimaryKey() || buckets != -1) {
    return Status::Invalid(
        "order_strategy sorts append tables without buckets ('bucket' = "
        "'-1') only, as Paimon's sort compaction; " +
        name + " is " +
        (schema->HasPrimaryKey()
             ? "a primary-key table"
             : "an append table with 'bucket' = '" + std::to_string(buckets) + "'"));
  }
  if (options::IsSet(*schema, options::kScanFallbackBranch)) {
    // A scan of main reads the fallback branch's partitions too: written back, they would
    // become main's own.
    return Status::NotSupported(
        "sort compaction of a table with 'scan.fallback-branch' is not "
        "supported yet (its scans read the branch's partitions too)");
  }
  for (const auto& spec : request.partitions) {
    for (const auto& [k, v] : spec) {
      if (std::find(schema->partition_keys.begin(), schema->partition_keys.end(), k) ==
          schema->partition_keys.end()) {
        return Status::Invalid("partitions: '" + k + "' is not a partition column of " + name);
      }
    }
  }
  if (request.strategy != "order" && request.strategy != "zorder" &&
      request.strategy != "hilbert") {
    return Status::Invalid("order_strategy '" + request.strategy +
                           "' is not one of order, zorder, hilbert, none");
  }
  if (request.columns.empty()) {
    return Status::Invalid("order_strategy '" + request.strategy +
                           "' needs order_by (the "
                           "columns to sort by, e.g. order_by => 'a,b')");
  }
  std::vector<int> key;
  for (const std::string& c : request.columns) {
    const int i = schema->FieldIndex(c);
    if (i < 0) return Status::Invalid("order_by column '" + c + "' is not a column of " + name);
    if (schema->fields[i].type.IsNested()) {
      return Status::Invalid("order_by column '" + c + "' has a nested type; sort by flat columns");
    }
    key.push_back(i);
  }
  std::vector<int> pidx;
  for (const auto& k : schema->partition_keys) pidx.push_back(schema->FieldIndex(k));
  const auto wanted = PartitionFilter(*schema, request.partitions);
  auto progress = [&](const std::string& line) {
    if (request.progress) request.progress(line);
  };
  // The rows of the latest snapshot in the partitions, sorted (partition, then the key), written
  // by one OVERWRITE of those partitions (rewrite.h).
  return RewriteLatest(table.path(), "compacted", [&](int64_t latest) -> Result<RewriteResult> {
    ScanOptions so;
    so.snapshot_id = latest;
    so.max_batch_rows = 65536;
    TRIB_ASSIGN_OR_RETURN(auto scan, table.NewScan(so));
    // a before b: partition, then the key ('order': the columns, NULLs first).
    auto less = [&](const Keyed& a, const Keyed& b) {
      for (int p : pidx) {
        const int c = CompareValues(a.row[p], b.row[p]);
        if (c != 0) return c < 0;
      }
      if (request.strategy != "order") return a.key < b.key;
      for (int c : key) {
        const Value &x = a.row[c], &y = b.row[c];
        if (x.is_null() || y.is_null()) {
          if (x.is_null() != y.is_null()) return x.is_null();  // NULLs first
          continue;
        }
        const int r = CompareValues(x, y);
        if (r != 0) return r < 0;
      }
      return false;
    };
    std::vector<Keyed> rows;
    int64_t bytes = 0, total = 0;
    // Past the limit the rows held are sorted and spilled as a run (the table's columns, then
    // the key), and the runs merged at the end, each read a segment at a time.
    std::vector<Field> run_fields = schema->fields;
    run_fields.push_back(
        Field{static_cast<int32_t>(run_fields.size()), "$key", DataType::Bytes(), ""});
    std::vector<std::unique_ptr<datafile::SpillFile>> runs;
    auto spill_run = [&]() -> Status {
      std::stable_sort(rows.begin(), rows.end(), less);
      TRIB_ASSIGN_OR_RETURN(
          auto run, datafile::SpillFile::Create(
                        run_fields, datafile::SpillOptions{request.spill_dirs}, kRunSegmentRows));
      for (size_t begin = 0; begin < rows.size(); begin += kRunSegmentRows) {
        const size_t end = std::min(rows.size(), begin + kRunSegmentRows);
        ColumnBatch b;
        for (const Field& f : run_fields) b.columns.push_back(TypedColumn(f.type));
        for (size_t i = begin; i < end; i++) {
          for (size_t c = 0; c < rows[i].row.size(); c++) b.columns[c].Append(rows[i].row[c]);
          b.columns.back().Append(Value::String(std::move(rows[i].key)));
        }
        b.num_rows = end - begin;
        TRIB_RETURN_NOT_OK(run->Append(b, 0, b.num_rows));
      }
      TRIB_RETURN_NOT_OK(run->Finish());
      runs.push_back(std::move(run));
      rows = std::vector<Keyed>();
      bytes = 0;
      progress("sorting " + name + ": " + std::to_string(total) + " rows read, " +
               std::to_string(runs.size()) + " sorted run(s) spilled");
      return Status::OK();
    };
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      if (!more) break;
      for (Row& r : batch.rows) {
        if (!wanted(r)) continue;
        Keyed k;
        if (request.strategy != "order") {
          std::vector<Value> values;
          for (int c : key) values.push_back(r[c]);
          k.key = SortCompactKey(request.strategy, values);
        }
        bytes += RowBytes(r) + static_cast<int64_t>(k.key.size());
        k.row = std::move(r);
        rows.push_back(std::move(k));
        if (++total % 100000 == 0) {
          progress("sorting " + name + ": " + std::to_string(total) + " rows read");
        }
        if (request.memory_limit > 0 && bytes > request.memory_limit) {
          TRIB_RETURN_NOT_OK(spill_run());
        }
      }
    }
    if (total == 0) return RewriteResult{};
    WriteOptions wo;
    wo.overwrite = true;
    wo.overwrite_base_snapshot = latest;
    TRIB_ASSIGN_OR_RETURN(auto writer, table.NewWriter(wo));
    int64_t written = 0;
    auto write = [&](Row row) -> Status {
      TRIB_RETURN_NOT_OK(writer->Write(RowKind::kInsert, std::move(row)));
      if (++written % 100000 == 0) {
        progress("sorting " + name + ": " + std::to_string(written) + " of " +
                 std::to_string(total) + " rows written");
      }
      return Status::OK();
    };
    if (runs.empty()) {
      std::stable_sort(rows.begin(), rows.end(), less);
      for (Keyed& k : rows) TRIB_RETURN_NOT_OK(write(std::move(k.row)));
      return CommitRewrite(*writer);
    }
    if (!rows.empty()) TRIB_RETURN_NOT_OK(spill_run());
    TRIB_RETURN_NOT_OK(MergeRuns(runs, schema->fields.size(), less, write));
    return CommitRewrite(*writer);
  });
}

}  // namespace tributary::table
