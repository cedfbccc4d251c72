#include "write/bucket_writer.h"

#include "common/column_rep.h"
#include "datafile/run_spill.h"
#include "datafile/spill_file.h"
#include "format/parquet/writer.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "merge/merge_function.h"
#include "merge/sort_merge_reader.h"
#include "write/lookup_changelog.h"

namespace tributary::write {

using datafile::DataFileWriter;
using datafile::ReadDataFile;
using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;
using merge::KeyValue;

BucketWriter::~BucketWriter() = default;

void BucketWriter::TakePending(std::vector<std::pair<RowKind, Row>>* out) {
  if (columns_) {
    for (size_t i = 0; i < columns_->size(); i++)
      out->emplace_back(columns_->kind(i), columns_->GetRow(i));
    columns_->Clear();
  }
  for (auto& kv : buffer_) out->emplace_back(kv.kind, std::move(kv.value));
  buffer_.clear();
  buffer_bytes_ = 0;
}

void BucketWriter::ReleaseBufferMemory() {
  if (columns_ && columns_->empty()) columns_->Clear(/*release=*/true);
}

void BucketWriter::set_lookup_cache(std::unique_ptr<LookupValueCache> cache) {
  lookup_cache_ = std::move(cache);
}

Status BucketWriter::Flush(int64_t target_file_size, bool keep_columns) {
  ReleaseFlushColumns();
  if (!runs_.empty()) return FlushRuns(target_file_size);
  if (buffer_.empty() && (!columns_ || columns_->empty())) return Status::OK();
  bool written = false;  // the data files too (FlushSharingChangelog)
  if (ctx_.input_changelog_prefix && layout_.primary_key && columns_) {
    TRIB_ASSIGN_OR_RETURN(written, FlushSharingChangelog(target_file_size));
  }
  if (!written) {
    TRIB_RETURN_NOT_OK(WriteInputChangelog(target_file_size));
    DataFileWriter writer(layout_, dir_, &namer_, target_file_size, 0, meta::FileSource::kAppend,
                          ctx_.format, ctx_.write_cols);
    const size_t first_file = new_files_.size();
    Status st = columns_              ? WriteColumns(&writer, keep_columns)
                : layout_.primary_key ? WriteMerged(&writer)
                                      : WriteAll(&writer);
    auto files = st.ok() ? writer.Finish() : Result<std::vector<meta::DataFileMeta>>(st);
    if (!files.ok()) {
      writer.Abort();
      ReleaseFlushColumns();
      return files.status();
    }
    for (auto& f : *files) new_files_.push_back(std::move(f));
    if (kept_merge_) {
      kept_first_file_ = first_file;
      return Status::OK();  // the buffer stays until ReleaseFlushColumns
    }
  }
  ClearBuffer();
  io::CrashPoint("write.after-flush");
  return Status::OK();
}

void BucketWriter::ClearBuffer() {
  // Flushes may run on another thread than the writes that filled the buffer: its records
  // are freed by ReleaseFlushed on the writing thread (freeing them here would contend for
  // the allocator's lock with that thread).
  flushed_.push_back(std::move(buffer_));
  buffer_.clear();
  if (columns_) columns_->Clear();
  buffer_bytes_ = 0;
}

Status BucketWriter::WriteInputChangelog(int64_t target_file_size) {
  if (!ctx_.input_changelog_prefix || !layout_.primary_key) return Status::OK();
  DataFileWriter changelog(layout_, dir_, changelog_namer(*ctx_.input_changelog_prefix),
                           target_file_size, 0, meta::FileSource::kAppend, ctx_.changelog_format,
                           ctx_.write_cols);
  Status st;
  if (columns_) {
    // From the column buffer: its records in key order (records of one key in write order,
    // their sequence order), written column by column.
    std::vector<uint32_t> order = columns_->SortedByKey(layout_.key_columns);
    std::vector<int64_t> sequences(order.size()), kinds(order.size());
    for (size_t k = 0; k < order.size(); k++) {
      sequences[k] = columns_first_seq_ + order[k];
      kinds[k] = static_cast<int64_t>(columns_->kind(order[k]));
    }
    if (changelog.CanWriteColumns()) {
      st = changelog.WriteColumns(columns_->Columns(), order.data(), sequences.data(), kinds.data(),
                                  order.size());
    } else {  // another 'changelog-file.format': record by record
      for (size_t k = 0; st.ok() && k < order.size(); k++) {
        KeyValue kv;
        kv.sequence = sequences[k];
        kv.kind = columns_->kind(order[k]);
        kv.value = columns_->GetRow(order[k]);
        st = changelog.Write(kv);
      }
    }
  } else {
    // The input is the changelog: every buffered record, in key order (then write order), with
    // its row kind, before the merge folds them (Paimon's INPUT producer).
    merge::SortWriteBuffer(&buffer_, merge::KeyComparator(layout_.key_columns),
                           merge::SequenceOrder(ctx_.merge_config));
    for (size_t i = 0; st.ok() && i < buffer_.size(); i++) st = changelog.Write(buffer_[i]);
  }
  if (!st.ok()) {
    changelog.Abort();
    return st;
  }
  TRIB_ASSIGN_OR_RETURN(auto files, changelog.Finish());
  for (auto& f : files) new_changelog_files_.push_back(std::move(f));
  return Status::OK();
}

std::vector<Field> BucketWriter::SpillFields(const datafile::FileLayout& layout) {
  std::vector<Field> fields = layout.fields;
  const int32_t n = static_cast<int32_t>(fields.size());
  fields.push_back(Field{n, "_SEQUENCE_NUMBER", DataType::BigInt(), ""});
  fields.push_back(Field{n + 1, "_VALUE_KIND", DataType::BigInt(), ""});
  return fields;
}

std::vector<KeyValue> BucketWriter::SortedRecords() {
  std::vector<KeyValue> records;
  if (columns_) {
    records.reserve(columns_->size());
    for (size_t i = 0; i < columns_->size(); i++) {
      records.push_back({columns_first_seq_ + static_cast<int64_t>(i), columns_->kind(i),
                         columns_->GetRow(i), 0, ctx_.write_mask});
    }
  } else {
    records = std::move(buffer_);
    buffer_.clear();
  }
  merge::SortWriteBuffer(&records, merge::KeyComparator(layout_.key_columns),
                         merge::SequenceOrder(ctx_.merge_config));
  return records;
}

namespace {

// Appends `records` (sorted) to `file`, a slice at a time: the columns made from Values never
// hold more than a slice.
Status AppendRecords(const datafile::FileLayout& layout, const std::vector<KeyValue>& records,
                     datafile::SpillFile* file) {
  constexpr size_t kSlice = 4096;
  const size_t nf = layout.fields.size();
  std::vector<ColumnVector> columns;
  ColumnVector seq = TypedColumn(DataType::BigInt()), kind = TypedColumn(DataType::BigInt());
  std::vector<uint32_t> rows;
  for (size_t begin = 0; begin < records.size(); begin += kSlice) {
    const size_t end = std::min(records.size(), begin + kSlice);
    columns.clear();
    for (const Field& f : layout.fields) columns.push_back(TypedColumn(f.type));
    seq.Clear();
    kind.Clear();
    for (size_t i = begin; i < end; i++) {
      for (size_t c = 0; c < nf; c++) columns[c].Append(records[i].value[c]);
      seq.ints.push_back(records[i].sequence);
      kind.ints.push_back(static_cast<int64_t>(records[i].kind));
    }
    std::vector<const ColumnVector*> view;
    for (const ColumnVector& c : columns) view.push_back(&c);
    view.push_back(&seq);
    view.push_back(&kind);
    rows.resize(end - begin);
    for (size_t i = 0; i < rows.size(); i++) rows[i] = static_cast<uint32_t>(i);
    TRIB_RETURN_NOT_OK(file->AppendRows(view, rows));
  }
  return Status::OK();
}

}  // namespace

Status BucketWriter::Spill(datafile::SpillFile* file) {
  ReleaseFlushColumns();
  if (buffer_.empty() && (!columns_ || columns_->empty())) return Status::OK();
  if (!CanSpill()) return Status::Internal("a bucket writer that cannot spill was asked to");
  const size_t first = file->segments();
  if (columns_ && !merge::SequenceOrder(ctx_.merge_config).HasSequenceFields()) {
    // Key order, records of a key in write order (their sequence order): the columns as they are.
    ColumnVector seq = TypedColumn(DataType::BigInt()), kind = TypedColumn(DataType::BigInt());
    std::vector<uint32_t> order = columns_->SortedByKey(layout_.key_columns);
    const size_t n = columns_->size();
    seq.ints.resize(n);
    kind.ints.resize(n);
    for (size_t i = 0; i < n; i++) {
      seq.ints[i] = columns_first_seq_ + static_cast<int64_t>(i);
      kind.ints[i] = static_cast<int64_t>(columns_->kind(i));
    }
    std::vector<const ColumnVector*> columns;
    for (const ColumnVector& c : columns_->vectors()) columns.push_back(&c);
    columns.push_back(&seq);
    columns.push_back(&kind);
    TRIB_RETURN_NOT_OK(file->AppendRows(columns, order));
  } else {
    TRIB_RETURN_NOT_OK(AppendRecords(layout_, SortedRecords(), file));
  }
  TRIB_RETURN_NOT_OK(file->Flush());
  runs_.push_back({file, first, file->segments()});
  ClearBuffer();
  if (runs_.size() > kMaxSpilledRuns) TRIB_RETURN_NOT_OK(MergeRuns(file));
  io::CrashPoint("write.after-spill");
  return Status::OK();
}

std::vector<std::unique_ptr<merge::RecordSource>> BucketWriter::RunSources() const {
  std::vector<std::unique_ptr<merge::RecordSource>> sources;
  for (const SpilledRun& run : runs_) {
    sources.push_back(
        std::make_unique<datafile::SpilledRecords>(run.file, run.first, run.end, false));
  }
  return sources;
}

Status BucketWriter::MergeRuns(datafile::SpillFile* file) {
  // Every record kept, in merge order: the runs' union as one run (no merge function: the
  // commit's flush merges, and the input changelog needs every record).
  const merge::KeyComparator cmp(layout_.key_columns);
  const merge::SequenceOrder order(ctx_.merge_config);
  merge::LoserTree tree(RunSources(), &cmp, &order);
  TRIB_RETURN_NOT_OK(tree.Init());
  const size_t first = file->segments();
  std::vector<KeyValue> slice;
  while (tree.Top() != nullptr) {
    KeyValue kv;
    TRIB_RETURN_NOT_OK(tree.Pop(&kv));
    slice.push_back(std::move(kv));
    if (slice.size() >= 4096) {
      TRIB_RETURN_NOT_OK(AppendRecords(layout_, slice, file));
      slice.clear();
    }
  }
  TRIB_RETURN_NOT_OK(AppendRecords(layout_, slice, file));
  TRIB_RETURN_NOT_OK(file->Flush());
  runs_ = {SpilledRun{file, first, file->segments()}};
  return Status::OK();
}

Status BucketWriter::FlushRuns(int64_t target_file_size) {
  // The buffer's records (the newest) are a run too, held in memory.
  std::vector<KeyValue> rest = SortedRecords();
  const merge::KeyComparator cmp(layout_.key_columns);
  const merge::SequenceOrder order(ctx_.merge_config);
  if (ctx_.input_changelog_prefix) {
    // The input changelog: every record of the runs and the buffer, in key order then merge
    // order (a merge of the runs keeping every record), as one flush of them all writes it.
    auto sources = RunSources();
    sources.push_back(std::make_unique<merge::VectorSource>(rest));
    merge::LoserTree tree(std::move(sources), &cmp, &order);
    TRIB_RETURN_NOT_OK(tree.Init());
    DataFileWriter changelog(layout_, dir_, changelog_namer(*ctx_.input_changelog_prefix),
                             target_file_size, 0, meta::FileSource::kAppend, ctx_.changelog_format,
                             ctx_.write_cols);
    Status st;
    KeyValue kv;
    while (st.ok() && tree.Top() != nullptr) {
      st = tree.Pop(&kv);
      if (st.ok()) st = changelog.Write(kv);
    }
    auto files = st.ok() ? changelog.Finish() : Result<std::vector<meta::DataFileMeta>>(st);
    if (!files.ok()) {
      changelog.Abort();
      return files.status();
    }
    for (auto& f : *files) new_changelog_files_.push_back(std::move(f));
  }
  auto sources = RunSources();
  sources.push_back(std::make_unique<merge::VectorSource>(std::move(rest)));
  TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeEngineMergeFunction(ctx_.merge_config, schema_));
  merge::SortMergeReader reader(std::move(sources), cmp, order, mf.get());
  DataFileWriter writer(layout_, dir_, &namer_, target_file_size, 0, meta::FileSource::kAppend,
                        ctx_.format, ctx_.write_cols);
  KeyValue kv;
  Status st;
  while (st.ok()) {
    auto more = reader.Next(&kv);
    if (!more.ok()) st = more.status();
    if (!st.ok() || !*more) break;
    st = writer.Write(kv);  // retractions too: this is level 0
  }
  auto files = st.ok() ? writer.Finish() : Result<std::vector<meta::DataFileMeta>>(st);
  if (!files.ok()) {
    writer.Abort();
    return files.status();
  }
  for (auto& f : *files) new_files_.push_back(std::move(f));
  runs_.clear();
  ClearBuffer();
  io::CrashPoint("write.after-flush");
  return Status::OK();
}

Result<bool> BucketWriter::FlushSharingChangelog(int64_t target_file_size) {
  if (ctx_.write_mask || !(ctx_.changelog_format == ctx_.format)) return false;
  TRIB_ASSIGN_OR_RETURN(auto plan, ColumnMergePlan::Make(*ctx_.merge_config, layout_.fields,
                                                         /*keep_retracts=*/true));
  if (!plan || plan->kind() != ColumnMergePlan::Kind::kDeduplicate) return false;
  ColumnMergeOutput merged;
  std::vector<uint32_t> order;
  TRIB_ASSIGN_OR_RETURN(bool by_columns, columns_->Merge(layout_.key_columns, columns_first_seq_,
                                                         &*plan, &merged, &order));
  const auto has_value = [](const auto& c) { return c.has_value(); };
  const auto not_empty = [](const auto& c) { return !c.empty(); };
  if (!by_columns || std::any_of(merged.computed.begin(), merged.computed.end(), has_value) ||
      std::any_of(merged.column_rows.begin(), merged.column_rows.end(), not_empty)) {
    return false;  // the data files do not hold the records as written
  }
  // The records the data files leave out (a key's earlier records), in key order.
  std::vector<char> last(columns_->size(), 0);
  for (uint32_t r : merged.rows) last[r] = 1;
  std::vector<uint32_t> earlier;
  std::vector<int64_t> sequences, kinds;
  for (uint32_t r : order) {
    if (last[r]) continue;
    earlier.push_back(r);
    sequences.push_back(columns_first_seq_ + r);
    kinds.push_back(static_cast<int64_t>(columns_->kind(r)));
  }
  meta::FileNamer* changelog_names = changelog_namer(*ctx_.input_changelog_prefix);
  DataFileWriter changelog(layout_, dir_, changelog_names, target_file_size, 0,
                           meta::FileSource::kAppend, ctx_.changelog_format, ctx_.write_cols);
  Status st;
  if (!earlier.empty()) {
    st = changelog.WriteColumns(columns_->Columns(), earlier.data(), sequences.data(), kinds.data(),
                                earlier.size());
  }
  Result<std::vector<meta::DataFileMeta>> earlier_files =
      st.ok() ? changelog.Finish() : Result<std::vector<meta::DataFileMeta>>(st);
  if (!earlier_files.ok()) {
    changelog.Abort();
    return earlier_files.status();
  }
  DataFileWriter writer(layout_, dir_, &namer_, target_file_size, 0, meta::FileSource::kAppend,
                        ctx_.format, ctx_.write_cols);
  writer.CopyFilesTo(changelog_names);
  st = writer.WriteMerged(columns_->Columns(), merged);
  Result<std::vector<meta::DataFileMeta>> files =
      st.ok() ? writer.Finish() : Result<std::vector<meta::DataFileMeta>>(st);
  if (!files.ok()) {
    writer.Abort();
    for (const auto& f : *earlier_files) datafile::RemoveDataFile(dir_, f);
    return files.status();
  }
  for (auto& f : *files) new_files_.push_back(std::move(f));
  for (auto& f : *earlier_files) new_changelog_files_.push_back(std::move(f));
  for (auto& f : writer.TakeCopies()) new_changelog_files_.push_back(std::move(f));
  return true;
}

void BucketWriter::MoveBufferAbove(int64_t live_max) {
  // Spilled runs keep their numbers, as flushed files do: Renumber moves the merged files.
  if (!runs_.empty()) return;
  if (!buffer_.empty() && new_files_.empty() && buffer_.front().sequence <= live_max) {
    const int64_t shift = live_max + 1 - buffer_.front().sequence;
    for (auto& kv : buffer_) kv.sequence += shift;
    next_seq_ += shift;
  }
  const bool columns_empty = !columns_ || columns_->empty();
  if (!columns_empty && new_files_.empty() && columns_first_seq_ <= live_max) {
    const int64_t shift = live_max + 1 - columns_first_seq_;
    columns_first_seq_ += shift;
    next_seq_ += shift;
  }
  if (buffer_.empty() && columns_empty && new_files_.empty()) RaiseNextSeq(live_max + 1);
}

Result<std::vector<meta::DataFileMeta>> BucketWriter::Renumber(int64_t shift,
                                                               int64_t target_file_size) {
  std::vector<meta::DataFileMeta> out;
  int64_t max_seq = 0;
  auto drop_out = [&]() {
    for (const auto& f : out) datafile::RemoveDataFile(dir_, f);
  };
  for (const auto& f : new_files_) {
    // Each old file holds sorted unique keys; it becomes one (or more, if it rolls) new file.
    DataFileWriter writer(layout_, dir_, &namer_, target_file_size, 0, meta::FileSource::kAppend,
                          ctx_.format, ctx_.write_cols);
    auto records =
        ReadDataFile({datafile::WrittenFilePath(dir_, f), f.row_count}, layout_, 0, f.write_cols);
    Status st = records.status();
    for (size_t i = 0; st.ok() && i < records->size(); i++) {
      merge::KeyValue& kv = (*records)[i];
      kv.sequence += shift;
      max_seq = std::max(max_seq, kv.sequence);
      st = writer.Write(kv);
    }
    if (!st.ok()) {
      writer.Abort();
      drop_out();
      return st;
    }
    auto done = writer.Finish();
    if (!done.ok()) {
      drop_out();
      return done.status();
    }
    for (auto& m : *done) out.push_back(std::move(m));
  }
  for (const auto& f : new_files_) {
    std::string path = datafile::WrittenFilePath(dir_, f);
    io::FileCache::Instance().EraseFile(path);  // read above: let its mapping go with the file
    datafile::RemoveDataFile(dir_, f);
  }
  new_files_ = out;
  RaiseNextSeq(max_seq + 1);
  return out;
}

void BucketWriter::DeleteNewFiles() {
  for (const auto& f : new_files_) datafile::RemoveDataFile(dir_, f);
  for (const auto& f : new_changelog_files_) {
    datafile::RemoveDataFile(dir_, f);
  }
  new_files_.clear();
  new_changelog_files_.clear();
  runs_.clear();
  buffer_.clear();
  if (columns_) columns_->Clear();
  buffer_bytes_ = 0;
}

void BucketWriter::Prefetch(size_t i) const {
  constexpr size_t kRowDistance = 16, kStringDistance = 8;
  if (i + kRowDistance < buffer_.size()) {
    const Row& r = buffer_[i + kRowDistance].value;
    __builtin_prefetch(r.data());
    __builtin_prefetch(reinterpret_cast<const char*>(r.data()) + 64 * 1);
    __builtin_prefetch(reinterpret_cast<const char*>(r.data()) + 64 * 2);
    __builtin_prefetch(reinterpret_cast<const char*>(r.data()) + 64 * 3);
    __builtin_prefetch(reinterpret_cast<const char*>(r.data() + r.size()) - 1);
  }
  if (i + kStringDistance < buffer_.size()) {
    for (const Value& v : buffer_[i + kStringDistance].value) {
      if (v.is_string()) __builtin_prefetch(v.string_value().data());
    }
  }
}

std::optional<BucketWriter::FlushedColumns> BucketWriter::flushed_columns() const {
  if (!kept_merge_ || kept_first_file_ != 0) return std::nullopt;
  return FlushedColumns{&columns_->vectors(), kept_merge_.get()};
}

void BucketWriter::ReleaseFlushColumns() {
  if (!kept_merge_) return;
  kept_merge_.reset();
  flushed_.push_back(std::move(buffer_));
  buffer_.clear();
  columns_->Clear();
  buffer_bytes_ = 0;
}

Status BucketWriter::WriteColumns(DataFileWriter* w, bool keep) {
  if (!layout_.primary_key) {
    // An append table's records, in the order they were written.
    const size_t n = columns_->size();
    std::vector<uint32_t> order(n);
    std::vector<int64_t> sequences(n), kinds(n);
    for (size_t i = 0; i < n; i++) {
      order[i] = static_cast<uint32_t>(i);
      sequences[i] = columns_first_seq_ + static_cast<int64_t>(i);
      kinds[i] = static_cast<int64_t>(columns_->kind(i));
    }
    return w->WriteColumns(columns_->Columns(), order.data(), sequences.data(), kinds.data(), n);
  }
  TRIB_ASSIGN_OR_RETURN(auto plan, ColumnMergePlan::Make(*ctx_.merge_config, layout_.fields,
                                                         /*keep_retracts=*/true));
  if (!plan) return Status::Internal("a column write buffer for a merge that needs rows");
  ColumnMergeOutput merged;
  TRIB_ASSIGN_OR_RETURN(bool by_columns,
                        columns_->Merge(layout_.key_columns, columns_first_seq_, &*plan, &merged));
  if (!by_columns) {
    // A key the column merge does not take: the records as rows, through the merge function
    // (which reports what is wrong with them).
    buffer_.clear();
    for (size_t i = 0; i < columns_->size(); i++) {
      buffer_.push_back({columns_first_seq_ + static_cast<int64_t>(i), columns_->kind(i),
                         columns_->GetRow(i), 0, ctx_.write_mask});
    }
    return WriteMerged(w);
  }
  TRIB_RETURN_NOT_OK(w->WriteMerged(columns_->Columns(), merged));
  // Kept for the lookup producer: a deduplicate merge (each record one buffered row), columns
  // with the representation files are read back with.
  const auto has_value = [](const auto& c) { return c.has_value(); };
  const auto not_empty = [](const auto& c) { return !c.empty(); };
  bool plain = keep && plan->kind() == ColumnMergePlan::Kind::kDeduplicate &&
               std::none_of(merged.computed.begin(), merged.computed.end(), has_value) &&
               std::none_of(merged.column_rows.begin(), merged.column_rows.end(), not_empty);
  for (const ColumnVector& c : columns_->vectors()) {
    plain = plain && c.rep == ColumnVector::RepOf(c.type);
  }
  if (plain) kept_merge_ = std::make_unique<ColumnMergeOutput>(std::move(merged));
  return Status::OK();
}

Status BucketWriter::WriteAll(DataFileWriter* w) {
  for (auto& kv : buffer_) TRIB_RETURN_NOT_OK(w->Write(kv));
  return Status::OK();
}

Status BucketWriter::WriteMerged(DataFileWriter* w) {
  merge::KeyComparator cmp(layout_.key_columns);
  merge::SortWriteBuffer(&buffer_, cmp, merge::SequenceOrder(ctx_.merge_config));
  const merge::MergeConfig& c = *ctx_.merge_config;
  if (c.engine == "deduplicate" && !c.ignore_delete && !ctx_.write_mask) {
    // Deduplicate without partial columns: the last record of each key is the result.
    size_t i = 0;
    while (i < buffer_.size()) {
      size_t j = i + 1;
      while (j < buffer_.size() && cmp.Compare(buffer_[i].value, buffer_[j].value) == 0) j++;
      Prefetch(j);
      TRIB_RETURN_NOT_OK(w->Write(buffer_[j - 1]));
      i = j;
    }
    return Status::OK();
  }
  TRIB_ASSIGN_OR_RETURN(auto mf, merge::MakeEngineMergeFunction(ctx_.merge_config, schema_));
  size_t i = 0;
  while (i < buffer_.size()) {
    size_t j = i;
    mf->Reset();
    while (j < buffer_.size() && cmp.Compare(buffer_[i].value, buffer_[j].value) == 0) {
      TRIB_RETURN_NOT_OK(mf->Add(buffer_[j]));
      j++;
    }
    TRIB_RETURN_NOT_OK(mf->Complete());
    if (auto r = mf->TakeResult()) TRIB_RETURN_NOT_OK(w->Write(*r));
    i = j;
  }
  return Status::OK();
}

}  // namespace tributary::write
