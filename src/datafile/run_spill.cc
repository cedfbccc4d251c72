#include "datafile/run_spill.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/column_rep.h"
#include "common/memory_budget.h"
#include "datafile/data_file.h"
#include "merge/sort_merge_reader.h"
#include "options/core_options.h"

namespace tributary::datafile {

namespace {

using merge::KeyValue;
using merge::RecordSource;

// Inputs, then spilled runs, merged at once: the readers a spilling merge holds.
constexpr size_t kFanIn = 8;
// Rows of a spill segment (the unit read back) at most: a spilled run holds one at a time.
constexpr size_t kSegmentRows = 4096;

// About what `kv` takes in memory (its Values and their strings; nested values a flat guess).
int64_t RecordBytes(const KeyValue& kv) {
  int64_t n = static_cast<int64_t>(sizeof(KeyValue) + kv.value.size() * sizeof(Value));
  for (const Value& v : kv.value) {
    if (v.is_string()) n += static_cast<int64_t>(v.string_value().size());
    if (v.is_nested()) n += 256;
  }
  return n;
}

// The table's columns (nullable: a read leaves the columns it does not need null), then each
// record's sequence number, kind and level.
std::vector<Field> RecordFields(const FileLayout& layout) {
  std::vector<Field> fields = layout.fields;
  for (Field& f : fields) f.type = f.type.WithNullable(true);
  const int32_t n = static_cast<int32_t>(fields.size());
  fields.push_back(Field{n, "_SEQUENCE_NUMBER", DataType::BigInt(), ""});
  fields.push_back(Field{n + 1, "_VALUE_KIND", DataType::BigInt(), ""});
  fields.push_back(Field{n + 2, "_LEVEL", DataType::BigInt(), ""});
  return fields;
}

// Appends `records` to `file` as rows of RecordFields.
Status AppendRecords(const std::vector<Field>& fields, const std::vector<KeyValue>& records,
                     SpillFile* file) {
  if (records.empty()) return Status::OK();
  const size_t nf = fields.size() - 3;
  std::vector<ColumnVector> columns;
  for (const Field& f : fields) columns.push_back(TypedColumn(f.type));
  for (const KeyValue& kv : records) {
    for (size_t c = 0; c < nf; c++) columns[c].Append(kv.value[c]);
    columns[nf].ints.push_back(kv.sequence);
    columns[nf + 1].ints.push_back(static_cast<int64_t>(kv.kind));
    columns[nf + 2].ints.push_back(kv.level);
  }
  std::vector<const ColumnVector*> view;
  for (const ColumnVector& c : columns) view.push_back(&c);
  std::vector<uint32_t> rows(records.size());
  for (size_t i = 0; i < rows.size(); i++) rows[i] = static_cast<uint32_t>(i);
  return file->AppendRows(view, rows);
}

// The records of several sources in merge order, every one kept (no merge function).
class MergedSource : public RecordSource {
 public:
  MergedSource(std::vector<std::unique_ptr<RecordSource>> sources, const merge::KeyComparator& cmp,
               const merge::SequenceOrder& order)
      : cmp_(cmp), order_(order), tree_(std::move(sources), &cmp_, &order_) {}
  Status Init() { return tree_.Init(); }
  Result<bool> Next(KeyValue* out) override {
    if (tree_.Top() == nullptr) return false;
    TRIB_RETURN_NOT_OK(tree_.Pop(out));
    return true;
  }

 private:
  merge::KeyComparator cmp_;
  merge::SequenceOrder order_;
  merge::LoserTree tree_;
};

Result<std::unique_ptr<MergedSource>> Merge(std::vector<std::unique_ptr<RecordSource>> sources,
                                            const merge::KeyComparator& cmp,
                                            const merge::SequenceOrder& order) {
  auto merged = std::make_unique<MergedSource>(std::move(sources), cmp, order);
  TRIB_RETURN_NOT_OK(merged->Init());
  return merged;
}

// Where a run spilled into `file` lies: segments [first, end).
struct Span {
  size_t first = 0, end = 0;
};

// Drains `source` into `file` as one run, in segments cut at the record that brings them to
// `segment_bytes` (RecordBytes: an estimate; nested values a flat guess) or to kSegmentRows.
Result<Span> SpillRun(RecordSource* source, const std::vector<Field>& fields, SpillFile* file,
                      int64_t segment_bytes) {
  Span span{file->segments(), 0};
  std::vector<KeyValue> slice;
  int64_t slice_bytes = 0;
  KeyValue kv;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, source->Next(&kv));
    if (!more) break;
    slice_bytes += RecordBytes(kv);
    slice.push_back(std::move(kv));
    if (slice.size() >= kSegmentRows || slice_bytes >= segment_bytes) {
      TRIB_RETURN_NOT_OK(AppendRecords(fields, slice, file));
      TRIB_RETURN_NOT_OK(file->Flush());  // the slice is one segment
      slice.clear();
      slice_bytes = 0;
    }
  }
  TRIB_RETURN_NOT_OK(AppendRecords(fields, slice, file));
  TRIB_RETURN_NOT_OK(file->Flush());
  span.end = file->segments();
  return span;
}

// The inputs [begin, end) merged into one source through a spill file (see OpenMergeSources).
Result<std::unique_ptr<RecordSource>> SpillWindow(std::vector<MergeInput>& inputs, size_t begin,
                                                  size_t end, const SortSpill& spill,
                                                  const FileLayout& layout,
                                                  const merge::KeyComparator& cmp,
                                                  const merge::SequenceOrder& order) {
  const std::vector<Field> fields = RecordFields(layout);
  // The segments held at once: one of each run merged (kFanIn), the slice being written and its
  // encoding.
  const int64_t segment_bytes = std::max<int64_t>(1, spill.buffer_bytes / (kFanIn + 2));
  auto create = [&]() -> Result<std::shared_ptr<SpillFile>> {
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SpillFile> owned,
                          SpillFile::Create(fields, spill.spill, kSegmentRows));
    return std::shared_ptr<SpillFile>(std::move(owned));
  };
  TRIB_ASSIGN_OR_RETURN(std::shared_ptr<SpillFile> file, create());
  std::vector<Span> runs;
  for (size_t i = begin; i < end; i += kFanIn) {
    std::vector<std::unique_ptr<RecordSource>> group;
    for (size_t j = i; j < std::min(end, i + kFanIn); j++) {
      TRIB_ASSIGN_OR_RETURN(auto source, inputs[j].open());
      group.push_back(std::move(source));
    }
    TRIB_ASSIGN_OR_RETURN(auto merged, Merge(std::move(group), cmp, order));
    TRIB_ASSIGN_OR_RETURN(Span span, SpillRun(merged.get(), fields, file.get(), segment_bytes));
    runs.push_back(span);
  }
  // Runs merged kFanIn at a time (in order, so ties keep going to the later input) until few
  // enough are left to read at once, each pass into a file of its own: the pass before is
  // released (its space freed) once merged, so the disk holds at most two passes' runs.
  while (runs.size() > kFanIn) {
    TRIB_ASSIGN_OR_RETURN(std::shared_ptr<SpillFile> into, create());
    std::vector<Span> next;
    for (size_t i = 0; i < runs.size(); i += kFanIn) {
      std::vector<std::unique_ptr<RecordSource>> group;
      for (size_t j = i; j < std::min(runs.size(), i + kFanIn); j++) {
        group.push_back(
            std::make_unique<SpilledRecords>(file.get(), runs[j].first, runs[j].end, true, file));
      }
      TRIB_ASSIGN_OR_RETURN(auto merged, Merge(std::move(group), cmp, order));
      TRIB_ASSIGN_OR_RETURN(Span span, SpillRun(merged.get(), fields, into.get(), segment_bytes));
      next.push_back(span);
    }
    runs = std::move(next);
    file = std::move(into);
  }
  TRIB_RETURN_NOT_OK(file->Finish());
  std::vector<std::unique_ptr<RecordSource>> last;
  for (const Span& r : runs)
    last.push_back(std::make_unique<SpilledRecords>(file.get(), r.first, r.end, true, file));
  TRIB_ASSIGN_OR_RETURN(auto merged, Merge(std::move(last), cmp, order));
  return std::unique_ptr<RecordSource>(std::move(merged));
}

}  // namespace

SpilledRecords::SpilledRecords(const SpillFile* file, size_t first, size_t end, bool with_level,
                               std::shared_ptr<const SpillFile> keep)
    : file_(file),
      keep_(std::move(keep)),
      next_(first),
      end_(end),
      nf_(file->fields().size() - (with_level ? 3 : 2)),
      with_level_(with_level) {}

Result<bool> SpilledRecords::Next(KeyValue* out) {
  while (row_ >= batch_.num_rows) {
    if (next_ >= end_) return false;
    TRIB_ASSIGN_OR_RETURN(batch_, file_->Read(next_++));
    row_ = 0;
  }
  out->value.resize(nf_);
  for (size_t c = 0; c < nf_; c++) out->value[c] = batch_.columns[c].Get(row_);
  out->sequence = batch_.columns[nf_].ints[row_];
  out->kind = static_cast<RowKind>(batch_.columns[nf_ + 1].ints[row_]);
  out->level = with_level_ ? static_cast<int32_t>(batch_.columns[nf_ + 2].ints[row_]) : 0;
  out->write_mask = nullptr;
  row_++;
  return true;
}

SortSpill SortSpill::Of(const options::CoreOptions& core, std::vector<std::string> dirs) {
  SortSpill s;
  s.threshold = static_cast<size_t>(core.sort_spill_threshold);
  s.buffer_bytes = core.sort_spill_buffer_size;
  if (!core.sort_spill_threshold_set) s.min_rows = MemoryBudget::Instance().total() / 16 / 64;
  s.spill.dirs = std::move(dirs);
  return s;
}

bool SortSpill::Spills(const std::vector<int32_t>& levels, int64_t rows) const {
  return threshold >= 2 && rows > min_rows && SortedRunCount(levels) > threshold;
}

size_t SortedRunCount(const std::vector<int32_t>& levels) {
  size_t runs = 0;
  std::set<int32_t> upper;
  for (int32_t level : levels) {
    if (level == 0) {
      runs++;
    } else {
      upper.insert(level);
    }
  }
  return runs + upper.size();
}

Result<std::vector<std::unique_ptr<merge::RecordSource>>> OpenMergeSources(
    std::vector<MergeInput> inputs, const SortSpill& spill, const FileLayout& layout,
    const merge::KeyComparator& cmp, const merge::SequenceOrder& order, size_t* spilled) {
  if (spilled) *spilled = 0;
  std::vector<int32_t> levels;
  int64_t rows = 0;
  for (const auto& in : inputs) {
    levels.push_back(in.level);
    rows += in.rows;
  }
  const size_t n = inputs.size();
  size_t begin = 0, end = 0;  // the window spilled (empty: none)
  if (spill.Spills(levels, rows)) {
    // The window of consecutive inputs with the fewest bytes that, replaced by one run, leaves
    // at most `threshold` runs: outside [b, e) count the level-0 inputs and the other levels
    // with an input there.
    std::vector<size_t> zeros(n + 1, 0);                // level-0 inputs before i
    std::map<int32_t, std::pair<size_t, size_t>> span;  // level > 0 -> its first and last input
    for (size_t i = 0; i < n; i++) {
      zeros[i + 1] = zeros[i] + (levels[i] == 0 ? 1 : 0);
      if (levels[i] == 0) continue;
      auto [it, fresh] = span.try_emplace(levels[i], i, i);
      if (!fresh) it->second.second = i;
    }
    auto runs_left = [&](size_t b, size_t e) {
      size_t runs = zeros[n] - (zeros[e] - zeros[b]);
      for (const auto& [level, s] : span) runs += s.first < b || s.second >= e ? 1 : 0;
      return runs;
    };
    int64_t best = INT64_MAX;
    for (size_t b = 0; b < n; b++) {
      int64_t bytes = 0;
      for (size_t e = b + 1; e <= n; e++) {
        bytes += inputs[e - 1].bytes;
        if (bytes >= best) break;
        if (runs_left(b, e) + 1 <= spill.threshold) {  // the first e that fits: the fewest bytes
          best = bytes;
          begin = b;
          end = e;
          break;
        }
      }
    }
  }
  // The window first, so the other inputs (some read whole) are not held while it spills.
  std::unique_ptr<RecordSource> window;
  if (end > begin) {
    TRIB_ASSIGN_OR_RETURN(window, SpillWindow(inputs, begin, end, spill, layout, cmp, order));
    if (spilled) *spilled = end - begin;
  }
  std::vector<std::unique_ptr<RecordSource>> sources;
  for (size_t i = 0; i < n; i++) {
    if (i == begin && window) {
      sources.push_back(std::move(window));
      i = end - 1;
      continue;
    }
    TRIB_ASSIGN_OR_RETURN(auto source, inputs[i].open());
    sources.push_back(std::move(source));
  }
  return sources;
}

}  // namespace tributary::datafile
