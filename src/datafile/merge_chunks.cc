// Merges of a bucket's files by chunks of keys (datafile/data_file.h: MergeFilesByColumnChunks,
// MergedChunkReader, CompactFilesByChunks), over the files merged_columns.cc loads.
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/column_rep.h"
#include "common/memory_budget.h"
#include "datafile/merged_columns_internal.h"
#include "datafile/range_reader.h"
#include "format/column_values.h"
#include "format/parquet/reader.h"

namespace tributary::datafile {

namespace {

// Per file, per table column: its reader over the file's rows (nullopt: not read).
using RangeReaders = std::vector<std::vector<std::optional<ColumnRangeReader>>>;

// The readers of `file_cols` (-1: not read) over the row groups each file's keys came from.
RangeReaders OpenRanges(const std::vector<DedupFile>& files,
                        const std::vector<std::vector<int>>& file_cols) {
  RangeReaders readers(files.size());
  for (size_t f = 0; f < files.size(); f++) {
    for (int c : file_cols[f]) {
      readers[f].emplace_back();
      if (c >= 0) readers[f].back().emplace(files[f].reader, files[f].groups, c, files[f].path);
    }
  }
  return readers;
}

// Every table column (`readers`; nullopt: not read, left empty) of rows [lo[f], hi[f]] of each
// file f (hi[f] < 0: none), concatenated in file order; `start[f]` is set to where file f's rows
// begin. Ranges of a file ascend from call to call: each page is decoded once.
Result<std::vector<ColumnVector>> ReadDedupRanges(const std::vector<DedupFile>& files,
                                                  RangeReaders& readers, const FileLayout& layout,
                                                  const std::vector<int64_t>& lo,
                                                  const std::vector<int64_t>& hi,
                                                  std::vector<uint32_t>* start) {
  start->assign(files.size(), 0);
  uint32_t next = 0;
  for (size_t f = 0; f < files.size(); f++) {
    (*start)[f] = next;
    if (hi[f] >= 0) next += static_cast<uint32_t>(hi[f] - lo[f] + 1);
  }
  std::vector<ColumnVector> columns(layout.fields.size());
  for (size_t t = 0; t < layout.fields.size(); t++) {
    ColumnVector& all = columns[t];
    all.type = layout.fields[t].type;
    all.rep = ColumnVector::RepOf(all.type);
    if (!files.empty() && !readers[0][t]) continue;  // not needed
    all.Reserve(next + 1);
    for (size_t f = 0; f < files.size(); f++) {
      if (hi[f] < 0) continue;
      TRIB_ASSIGN_OR_RETURN(ColumnVector one, readers[f][t]->Read(lo[f], hi[f] + 1));
      if (one.rep != all.rep) one = Canonical(std::move(one));
      if (one.rep != all.rep) {
        return Status::Corruption("data file '" + files[f].path + "': column '" +
                                  layout.fields[t].name + "' changed its representation");
      }
      all.AppendAll(std::move(one));
    }
  }
  // Each input is read once: the pages this chunk touched need not stay in memory.
  for (const DedupFile& file : files) file.reader->ReleasePages();
  return columns;
}

// The files' key groups merged by `plan` `chunk_keys` keys at a time, each chunk over the
// columns of the rows its keys hold (one range of each file's rows: files and groups are in key
// order), in key order, one chunk a call.
class KeyChunkMerger {
 public:
  KeyChunkMerger(std::vector<DedupFile> files, std::vector<std::vector<int>> file_cols,
                 const FileLayout& layout, ColumnMergePlan* plan, const std::vector<bool>* needed,
                 size_t chunk_keys)
      : files_(std::move(files)),
        file_cols_(std::move(file_cols)),
        layout_(layout),
        plan_(plan),
        needed_(needed),
        chunk_keys_(chunk_keys),
        cursor_(files_),
        readers_(OpenRanges(files_, file_cols_)) {}
  // Not copied or moved: cursor_ refers to files_.
  KeyChunkMerger(const KeyChunkMerger&) = delete;
  KeyChunkMerger& operator=(const KeyChunkMerger&) = delete;

  // False when a key would need the row merge (a retraction the plan does not take): known
  // before any chunk is merged. REQUIRES: called once, before Next.
  Result<bool> Start() {
    if (plan_->LatestWins()) {
      // The newest record of each key wins: found on the keys alone (a k-way merge of the raw
      // keys), then each chunk of winners gathers its columns.
      TRIB_ASSIGN_OR_RETURN(Winners w, MergeLatest(files_, plan_->keep_retracts()));
      winners_ = std::move(w);
      return true;
    }
    if (plan_->TakesRetractions()) return true;
    for (const DedupFile& file : files_) {
      for (size_t i = 0; i < file.size(); i++) {
        if (IsRetract(static_cast<RowKind>(file.kinds[i]))) return false;
      }
    }
    return true;
  }

  // The next chunk's merged records (valid until the next call); nullptr after the last.
  Result<MergedColumns*> Next() {
    if (winners_) {
      if (next_winner_ >= winners_->size()) return nullptr;
      TRIB_RETURN_NOT_OK(GatherWinners());
      return &chunk_;
    }
    members_.clear();
    ends_.clear();
    while (ends_.size() < chunk_keys_ && cursor_.Next(&one_)) {
      members_.insert(members_.end(), one_.begin(), one_.end());
      ends_.push_back(members_.size());
    }
    TRIB_RETURN_NOT_OK(cursor_.status());
    if (ends_.empty()) return nullptr;
    TRIB_RETURN_NOT_OK(MergeChunk());
    return &chunk_;
  }

  size_t records() const {
    size_t n = 0;
    for (const DedupFile& file : files_) n += file.size();
    return n;
  }
  size_t num_files() const { return files_.size(); }

 private:
  // The next chunk_keys_ winners' records: each file's winners in it are one ascending range of
  // its rows (winners come in key order).
  Status GatherWinners() {
    const Winners& w = *winners_;
    const size_t w0 = next_winner_, last = std::min(w.size(), w0 + chunk_keys_);
    const size_t n = files_.size();
    std::vector<int64_t> lo(n, INT64_MAX), hi(n, -1);
    // A chunk also ends before a winner that would make a file's range span more than
    // chunk_keys_ rows (keys deleted, or overwritten by other files, lie between winners): a
    // chunk reads at most chunk_keys_ rows of each file, as the merge charges.
    size_t w1 = w0;
    for (; w1 < last; w1++) {
      const uint32_t f = w.run_of[w1];
      const int64_t pos = w.pos_of[w1];
      if (w1 > w0 && hi[f] >= 0 && pos - lo[f] >= static_cast<int64_t>(chunk_keys_)) break;
      lo[f] = std::min(lo[f], pos);
      hi[f] = std::max(hi[f], pos);
    }
    next_winner_ = w1;
    std::vector<uint32_t> start;
    TRIB_ASSIGN_OR_RETURN(chunk_.columns,
                          ReadDedupRanges(files_, readers_, layout_, lo, hi, &start));
    plan_->Start(layout_.fields.size(), &chunk_.merged);
    ColumnMergeOutput& out = chunk_.merged;
    out.rows.reserve(w1 - w0);
    out.sequences.reserve(w1 - w0);
    out.kinds.reserve(w1 - w0);
    for (size_t k = w0; k < w1; k++) {
      const uint32_t f = w.run_of[k], pos = w.pos_of[k];
      out.rows.push_back(start[f] + static_cast<uint32_t>(pos - lo[f]));
      out.sequences.push_back(files_[f].seqs[pos]);
      out.kinds.push_back(files_[f].kinds[pos]);
    }
    return Status::OK();
  }

  Status MergeChunk() {
    const size_t n = files_.size();
    std::vector<int64_t> lo(n, INT64_MAX), hi(n, -1);
    for (const auto& [f, pos] : members_) {
      lo[f] = std::min<int64_t>(lo[f], pos);
      hi[f] = std::max<int64_t>(hi[f], pos);
    }
    std::vector<uint32_t> start;
    TRIB_ASSIGN_OR_RETURN(chunk_.columns,
                          ReadDedupRanges(files_, readers_, layout_, lo, hi, &start));
    uint32_t null_row = 0;  // after the chunk's rows
    for (size_t f = 0; f < n; f++) {
      if (hi[f] >= 0) null_row += static_cast<uint32_t>(hi[f] - lo[f] + 1);
    }
    if (plan_->kind() == ColumnMergePlan::Kind::kPartialUpdate) {
      for (ColumnVector& c : chunk_.columns) {
        if (c.size() > 0) c.Append(Value::Null());
      }
    }
    // KeyGroup numbers record (f, pos) base[f] + pos: here start[f] + pos - lo[f], which the
    // unsigned sum gives (modulo 2^32) whatever the order of the terms.
    std::vector<uint32_t> base(n, 0);
    for (size_t f = 0; f < n; f++) {
      if (hi[f] >= 0) base[f] = start[f] - static_cast<uint32_t>(lo[f]);
    }
    plan_->Start(layout_.fields.size(), &chunk_.merged);
    size_t begin = 0;
    for (size_t end : ends_) {
      one_.assign(members_.begin() + static_cast<std::ptrdiff_t>(begin),
                  members_.begin() + static_cast<std::ptrdiff_t>(end));
      begin = end;
      TRIB_ASSIGN_OR_RETURN(
          bool merged, plan_->Merge(ValueGroup{{&files_, &base, &one_}, &chunk_.columns}, needed_,
                                    null_row, &chunk_.merged));
      if (!merged) return Status::Internal("a key checked for the column merge needs rows");
    }
    return Status::OK();
  }

  std::vector<DedupFile> files_;
  std::vector<std::vector<int>> file_cols_;
  const FileLayout& layout_;
  ColumnMergePlan* plan_;
  const std::vector<bool>* needed_;
  size_t chunk_keys_;
  KeyGroupCursor cursor_;  // over files_ (declared after it)
  RangeReaders readers_;
  std::vector<std::pair<uint32_t, uint32_t>> members_;  // the chunk's records (file, position)
  std::vector<size_t> ends_;                            // where each key's records end in it
  std::vector<std::pair<uint32_t, uint32_t>> one_;      // the records of one key
  MergedColumns chunk_;
  std::optional<Winners> winners_;  // when the newest record wins (Start)
  size_t next_winner_ = 0;
};

// What a merge by chunks holds, charged to the process's budget as a query operator's: the
// keys, sequences and kinds (about 32 bytes a record) and a chunk's columns (at most a record of
// each file a key, and never more than every record).
int64_t ChunkMergeBytes(const KeyChunkMerger& merger, size_t chunk_keys) {
  const int64_t records = static_cast<int64_t>(merger.records());
  return records * 32 +
         std::min<int64_t>(records, static_cast<int64_t>(chunk_keys * merger.num_files())) * 64;
}

}  // namespace

Result<bool> MergeFilesByColumnChunks(const std::vector<DataFileRef>& paths,
                                      const FileLayout& layout, ColumnMergePlan* plan,
                                      const std::vector<bool>* needed,
                                      const std::vector<Predicate>* skip_filters, size_t chunk_keys,
                                      const std::function<Result<bool>(MergedColumns&)>& fn) {
  std::vector<DedupFile> files;
  std::vector<std::vector<int>> file_cols;
  TRIB_ASSIGN_OR_RETURN(bool readable,
                        LoadForChunks(paths, layout, skip_filters, needed, &files, &file_cols));
  if (!readable) return false;
  KeyChunkMerger merger(std::move(files), std::move(file_cols), layout, plan, needed, chunk_keys);
  TRIB_ASSIGN_OR_RETURN(bool mergeable, merger.Start());
  if (!mergeable) return false;
  MemoryCharge charge;
  charge.Set(ChunkMergeBytes(merger, chunk_keys));
  while (true) {
    TRIB_ASSIGN_OR_RETURN(MergedColumns * chunk, merger.Next());
    if (chunk == nullptr) return true;
    TRIB_ASSIGN_OR_RETURN(bool more, fn(*chunk));
    if (!more) return true;
  }
}

struct MergedChunkReader::State {
  std::unique_ptr<ColumnMergePlan> plan;
  std::vector<bool> needed;
  std::optional<KeyChunkMerger> merger;
  MemoryCharge charge;
};

MergedChunkReader::MergedChunkReader() : state_(std::make_unique<State>()) {}
MergedChunkReader::~MergedChunkReader() = default;

Result<std::unique_ptr<MergedChunkReader>> MergedChunkReader::Open(
    const std::vector<DataFileRef>& paths, const FileLayout& layout,
    std::unique_ptr<ColumnMergePlan> plan, std::optional<std::vector<bool>> needed,
    const std::vector<Predicate>* skip_filters, size_t chunk_keys) {
  std::unique_ptr<MergedChunkReader> r(new MergedChunkReader());
  State& s = *r->state_;
  s.plan = std::move(plan);
  const std::vector<bool>* wanted = nullptr;
  if (needed) {
    s.needed = std::move(*needed);
    wanted = &s.needed;
  }
  std::vector<DedupFile> files;
  std::vector<std::vector<int>> file_cols;
  TRIB_ASSIGN_OR_RETURN(bool readable,
                        LoadForChunks(paths, layout, skip_filters, wanted, &files, &file_cols));
  if (!readable) return std::unique_ptr<MergedChunkReader>();
  s.merger.emplace(std::move(files), std::move(file_cols), layout, s.plan.get(), wanted,
                   chunk_keys);
  TRIB_ASSIGN_OR_RETURN(bool mergeable, s.merger->Start());
  if (!mergeable) return std::unique_ptr<MergedChunkReader>();
  s.charge.Set(ChunkMergeBytes(*s.merger, chunk_keys));
  return r;
}

Result<MergedColumns*> MergedChunkReader::Next() {
  if (!state_->merger) return nullptr;
  TRIB_ASSIGN_OR_RETURN(MergedColumns * chunk, state_->merger->Next());
  if (chunk == nullptr) {  // done: what the merge held goes now
    state_->merger.reset();
    state_->charge.Set(0);
  }
  return chunk;
}

Result<bool> CompactFilesByChunks(const std::vector<DataFileRef>& paths, const FileLayout& layout,
                                  ColumnMergePlan* plan, size_t chunk_rows,
                                  DataFileWriter* writer) {
  std::vector<DedupFile> files;
  // Every column of every file must be readable column by column before anything is written.
  std::vector<std::vector<int>> file_cols;
  TRIB_ASSIGN_OR_RETURN(bool readable,
                        LoadForChunks(paths, layout, nullptr, nullptr, &files, &file_cols));
  if (!readable) return false;
  if (plan->kind() != ColumnMergePlan::Kind::kDeduplicate &&
      plan->kind() != ColumnMergePlan::Kind::kFirstRow) {
    // Their merges read values: merged a chunk of keys at a time.
    KeyChunkMerger merger(std::move(files), std::move(file_cols), layout, plan, nullptr,
                          chunk_rows);
    TRIB_ASSIGN_OR_RETURN(bool mergeable, merger.Start());
    if (!mergeable) return false;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(MergedColumns * chunk, merger.Next());
      if (chunk == nullptr) return true;
      std::vector<format::ColumnValues> sources;
      for (const auto& c : chunk->columns) sources.push_back(ColumnValuesOf(c));
      TRIB_RETURN_NOT_OK(writer->WriteMerged(std::move(sources), chunk->merged));
    }
  }
  std::vector<uint32_t> base(files.size(), 0);
  for (size_t f = 1; f < files.size(); f++) {
    base[f] = base[f - 1] + static_cast<uint32_t>(files[f - 1].size());
  }
  // The merge on keys, sequences and kinds alone: which record of which file wins.
  struct Group : KeyGroup {
    bool IsNull(size_t, size_t) const { return false; }  // not asked by these engines
    Value Get(size_t, size_t) const { return Value::Null(); }
  };
  ColumnMergeOutput merged;
  plan->Start(layout.fields.size(), &merged);
  TRIB_ASSIGN_OR_RETURN(bool done,
                        MergeEveryKey(files, plan, nullptr, 0, &merged, [&](const auto& members) {
                          return Group{{&files, &base, &members}};
                        }));
  if (!done) return false;
  // The winners' columns, a chunk of merged records at a time: within a chunk each file's
  // records are one range of its rows (files and merge are in key order).
  auto file_of = [&](uint32_t row) {
    return static_cast<size_t>(std::upper_bound(base.begin(), base.end(), row) - base.begin() - 1);
  };
  std::vector<uint32_t> local(std::min(chunk_rows, merged.size()));
  RangeReaders readers = OpenRanges(files, file_cols);
  for (size_t k0 = 0; k0 < merged.size(); k0 += chunk_rows) {
    const size_t k1 = std::min(merged.size(), k0 + chunk_rows);
    std::vector<int64_t> lo(files.size(), INT64_MAX), hi(files.size(), -1);
    for (size_t k = k0; k < k1; k++) {
      const uint32_t r = merged.rows[k];
      const size_t f = file_of(r);
      const int64_t pos = r - base[f];
      lo[f] = std::min(lo[f], pos);
      hi[f] = std::max(hi[f], pos);
    }
    std::vector<uint32_t> start;  // where each file's range starts among the chunk's rows
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> columns,
                          ReadDedupRanges(files, readers, layout, lo, hi, &start));
    for (size_t k = k0; k < k1; k++) {
      const uint32_t r = merged.rows[k];
      const size_t f = file_of(r);
      local[k - k0] = start[f] + static_cast<uint32_t>(r - base[f] - lo[f]);
    }
    std::vector<format::ColumnValues> sources;
    for (const auto& c : columns) sources.push_back(ColumnValuesOf(c));
    TRIB_RETURN_NOT_OK(writer->WriteColumns(sources, local.data(), merged.sequences.data() + k0,
                                            merged.kinds.data() + k0, k1 - k0));
  }
  return true;
}

}  // namespace tributary::datafile
