#include "read/stream_scan.h"

#include <algorithm>
#include <map>
#include <thread>
#include <unordered_map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "common/predicate.h"
#include "datafile/data_file.h"
#include "format/binary_row.h"
#include "io/file_system.h"
#include "merge/key_value.h"
#include "merge/merge_config.h"
#include "meta/consumer.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "read/table_read.h"
#include "tributary/table_scan.h"

namespace tributary::read {

namespace {

using datafile::FileLayout;

// How often a waiting reader looks for the next snapshot.
constexpr std::chrono::milliseconds kPollInterval{50};

class FileStoreStreamScan : public StreamScan {
 public:
  FileStoreStreamScan(std::string path, std::shared_ptr<const TableSchema> schema,
                      StreamOptions options, options::CoreOptions core)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        core_(std::move(core)),
        layout_(FileLayout::Of(*schema_)) {
    if (options_.projection) {
      projection_ = *options_.projection;
    } else {
      for (size_t i = 0; i < schema_->fields.size(); i++)
        projection_.push_back(static_cast<int>(i));
    }
    for (int i : projection_) output_fields_.push_back(schema_->fields[i]);
    std::vector<int> sorted = projection_;
    std::sort(sorted.begin(), sorted.end());
    projection_distinct_ = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    if (options_.with_change_metadata) {
      const int32_t next_id = static_cast<int32_t>(schema_->fields.size());
      output_fields_.push_back(Field{next_id, "_log_offset", DataType::BigInt(), ""});
      output_fields_.push_back(
          Field{next_id + 1, "_commit_timestamp", DataType::TimestampLtz(3).NotNull(), ""});
      output_fields_.push_back(Field{next_id + 2, "_bucket", DataType::Int(), ""});
    }
    normalize_ = layout_.primary_key && !options_.upserts &&
                 core_.changelog_producer == options::ChangelogProducer::kNone;
    cross_partition_ = layout_.primary_key &&
                       schema_->TrimmedPrimaryKeys().size() + schema_->partition_keys.size() !=
                           schema_->primary_keys.size();
    columnar_ =
        !normalize_ && !cross_partition_ && !options_.with_change_metadata && projection_distinct_;
    trimmed_key_types_ = layout_.KeyTypes();
    if (options_.discovery_interval) {
      poll_interval_ = *options_.discovery_interval;
      interval_set_ = true;
    } else if (options::IsSet(*schema_, options::kContinuousDiscoveryInterval)) {
      // Checked at CREATE / ALTER; a value that no longer parses keeps the default.
      poll_interval_ = std::chrono::milliseconds(std::max<int64_t>(
          1, options::GetOrDefault(*schema_, options::kContinuousDiscoveryInterval)));
      interval_set_ = true;
    }
    plan_sort_partition_ = options::GetOrDefault(*schema_, options::kScanPlanSortPartition);
    for (const auto& k : schema_->partition_keys) {
      int i = schema_->FieldIndex(k);
      partition_fields_.push_back(schema_->fields[i]);
      partition_types_.push_back(schema_->fields[i].type);
    }
    for (const auto& k : schema_->primary_keys) {
      key_columns_.push_back(schema_->FieldIndex(k));
      key_types_.push_back(schema_->fields[key_columns_.back()].type);
    }
  }

  const std::vector<Field>& output_fields() const override { return output_fields_; }
  int64_t next_snapshot_id() const override { return next_; }
  std::optional<std::pair<int64_t, int64_t>> position() const override {
    if (full_) return std::nullopt;
    return std::make_pair(next_, skip_);
  }

  Status Start() {
    remote_ = io::IsObjectStoreUri(path_);
    TRIB_ASSIGN_OR_RETURN(incarnation_, meta::TableIncarnation(path_));
    meta::SnapshotManager snapshots(path_);
    if (!options_.consumer_id.empty() && !options_.consumer_ignore_progress) {
      // A consumer that has read before resumes where it stopped.
      TRIB_ASSIGN_OR_RETURN(std::optional<meta::ConsumerPosition> at,
                            meta::ReadConsumerPosition(path_, options_.consumer_id));
      if (at) {
        next_ = at->next_snapshot;
        skip_ = at->offset;  // delivered already: handed out by the read, then dropped
        written_position_ = std::make_pair(at->next_snapshot, at->offset);
        return SeedNormalizer();
      }
    }
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
    const std::string& mode = options_.startup_mode;
    if (mode == "full") {
      next_ = latest ? *latest + 1 : 1;
      if (latest) TRIB_RETURN_NOT_OK(StartFull(*latest));
    } else if (mode == "from-snapshot-full") {
      // Paimon's: snapshot n as it is, then every change after it.
      if (!options_.startup_snapshot_id) {
        return Status::Invalid("'scan.mode' = 'from-snapshot-full' needs 'scan.snapshot-id'");
      }
      const int64_t id = *options_.startup_snapshot_id;
      TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().FileExists(meta::SnapshotPath(path_, id)));
      if (!exists) {
        return Status::NotFound("'scan.snapshot-id' = " + std::to_string(id) + ": snapshot " +
                                std::to_string(id) +
                                " does not exist (expired or not yet "
                                "written)");
      }
      next_ = id + 1;
      TRIB_RETURN_NOT_OK(StartFull(id));
    } else if (mode == "compacted-full") {
      // Paimon's: the latest snapshot a compaction committed, as it is, then every change after.
      TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
      std::optional<int64_t> compacted;
      for (auto it = ids.rbegin(); it != ids.rend() && !compacted; ++it) {
        TRIB_ASSIGN_OR_RETURN(auto s, meta::ReadSnapshotCached(path_, *it));
        if (s->commit_kind == meta::CommitKind::kCompact) compacted = *it;
      }
      if (!compacted) {
        return Status::NotFound(
            "'scan.mode' = 'compacted-full': the table has no compacted "
            "snapshot yet (CALL sys.compact makes one)");
      }
      next_ = *compacted + 1;
      TRIB_RETURN_NOT_OK(StartFull(*compacted));
    } else if (mode == "latest") {
      next_ = latest ? *latest + 1 : 1;
    } else if (mode == "earliest") {
      TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, EarliestChanges());
      next_ = earliest ? *earliest : 1;
    } else if (mode == "from-snapshot") {
      if (!options_.startup_snapshot_id) {
        return Status::Invalid("'scan.startup.mode' = 'from-snapshot' needs 'scan.snapshot-id'");
      }
      next_ = *options_.startup_snapshot_id;
      if (next_ < 1) {
        return Status::Invalid("'scan.snapshot-id' must be positive, not " + std::to_string(next_));
      }
    } else if (mode == "timestamp") {
      if (!options_.startup_timestamp_millis) {
        return Status::Invalid("'scan.startup.mode' = 'timestamp' needs 'scan.startup.timestamp'");
      }
      // The first snapshot committed at or after the time; none yet: whatever comes next.
      next_ = latest ? *latest + 1 : 1;
      TRIB_ASSIGN_OR_RETURN(auto ids, meta::ListLongLivedChangelogIds(path_));
      TRIB_ASSIGN_OR_RETURN(auto snapshot_ids, snapshots.ListIds());
      ids.insert(ids.end(), snapshot_ids.begin(), snapshot_ids.end());
      for (int64_t id : ids) {
        TRIB_ASSIGN_OR_RETURN(auto s, meta::ReadSnapshotOrChangelog(path_, id));
        if (s->time_millis >= *options_.startup_timestamp_millis) {
          next_ = id;
          break;
        }
      }
    } else {
      return Status::Invalid("unknown 'scan.startup.mode' '" + mode +
                             "' (full, latest, earliest, from-snapshot or timestamp)");
    }
    // A consumer's position is registered as the reader starts (also on an empty table), so
    // expiration keeps what it will read from the first moment. A start-up that reads a
    // snapshot whole registers once that read has been delivered (Checkpoint): a position
    // before that would resume with the changes after the snapshot, without the snapshot's rows
    // not yet delivered.
    if (!options_.consumer_id.empty() && !full_) TRIB_RETURN_NOT_OK(WritePosition());
    return SeedNormalizer();
  }

  Status Checkpoint() override {
    if (options_.consumer_id.empty() || full_) return Status::OK();
    return WritePosition();
  }

  Status CheckpointPartial(size_t delivered) override {
    if (options_.consumer_id.empty() || full_ || !last_snapshot_) return Status::OK();
    if (delivered >= last_rows_) return WritePosition();
    return WritePosition(*last_snapshot_, last_base_ + static_cast<int64_t>(delivered));
  }

  // A normalising reader that starts after the first snapshot learns the rows as they were
  // before its first change (emitting nothing), so a later delete or update of them comes out
  // right. A snapshot already expired cannot be read: then the reader starts empty.
  Status SeedNormalizer() {
    if (!normalize_ || full_ || next_ <= 1) return Status::OK();
    TRIB_ASSIGN_OR_RETURN(bool exists,
                          io::LocalFs().FileExists(meta::SnapshotPath(path_, next_ - 1)));
    if (!exists) return Status::OK();
    ScanOptions o;
    o.snapshot_id = next_ - 1;
    o.time_zone = options_.time_zone;
    o.max_batch_rows = 65536;
    TRIB_ASSIGN_OR_RETURN(auto scan, NewFileStoreScan(path_, schema_, o));
    RowBatch rows;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&rows));
      if (!more) break;
      for (auto& r : rows.rows) {
        Row key;
        for (int c : key_columns_) key.push_back(r[c]);
        state_[format::SerializeBinaryRow(key_types_, key)] = std::move(r);
      }
    }
    return Status::OK();
  }

  Result<bool> Next(RowBatch* batch, std::chrono::milliseconds timeout) override {
    return NextChanges(batch, timeout);
  }

  Result<bool> NextColumns(ChangeColumns* batch, std::chrono::milliseconds timeout) override {
    if (!columnar_) return StreamScan::NextColumns(batch, timeout);
    return NextChanges(batch, timeout);
  }

 private:
  // Next() and NextColumns(): `Batch` is RowBatch or ChangeColumns (then columnar_).
  template <typename Batch>
  Result<bool> NextChanges(Batch* batch, std::chrono::milliseconds timeout) {
    batch->Clear();
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (full_) {
        TRIB_ASSIGN_OR_RETURN(bool more, NextOfFull(batch));
        if (!more) {
          full_.reset();
          continue;
        }
        if (!batch->kinds.empty()) return true;
        continue;
      }
      if (next_discovery_) {
        // 'continuous.discovery-interval': after a look that found nothing, the next one waits
        // for the interval, however often Next() is called (a caller polls with short
        // timeouts to watch for Ctrl-C).
        const auto now = std::chrono::steady_clock::now();
        if (now < *next_discovery_) {
          if (now >= deadline) return false;
          std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
              *next_discovery_ - now, deadline - now));
          continue;
        }
      }
      // A look that finds nothing costs one request on object storage (a HEAD of the next
      // snapshot); the checks that the reader did not fall behind expiration and that the table
      // was not dropped cost a few, so there they run once a second
      // (docs/format/object-storage.md).
      const auto look = std::chrono::steady_clock::now();
      const bool checks_due = !remote_ || look >= next_checks_;
      // (Taken before the look: a snapshot this process publishes after it ends the wait below.)
      const uint64_t published = meta::PublishedGeneration(path_);
      bool exists = false;
      if (in_changelogs_) {
        // Catching up through long-lived changelogs (decoupled retention): the next is one too.
        TRIB_ASSIGN_OR_RETURN(exists,
                              io::LocalFs().FileExists(meta::LongLivedChangelogPath(path_, next_)));
      }
      if (!exists) {
        TRIB_ASSIGN_OR_RETURN(exists, io::LocalFs().FileExists(meta::SnapshotPath(path_, next_)));
        in_changelogs_ = false;
      }
      if (!exists && checks_due) {
        // Expired, its changes kept as a long-lived changelog?
        TRIB_ASSIGN_OR_RETURN(exists,
                              io::LocalFs().FileExists(meta::LongLivedChangelogPath(path_, next_)));
        in_changelogs_ = exists;
      }
      if (exists) {
        next_discovery_.reset();  // catching up: the next snapshot is looked for at once
        TRIB_RETURN_NOT_OK(ReadSnapshotChanges(next_, batch));
        int64_t base = 0;
        if (skip_ > 0) {
          // A consumer resumed inside this snapshot: its first changes were delivered before
          // (the read still went through them, so a normaliser's state is right).
          DropFirst(std::min(batch->kinds.size(), static_cast<size_t>(skip_)), batch);
          base = skip_;
          skip_ = 0;
        }
        // Handed out, not yet delivered: the consumer's position moves on Checkpoint().
        next_++;
        if (!batch->kinds.empty()) {
          last_snapshot_ = next_ - 1;
          last_base_ = base;
          last_rows_ = batch->kinds.size();
          return true;
        }
        continue;
      }
      if (checks_due) {
        TRIB_RETURN_NOT_OK(CheckNotExpired());
        TRIB_RETURN_NOT_OK(CheckNotDropped());
        next_checks_ = look + kRemoteChecksInterval;
      }
      const auto now = std::chrono::steady_clock::now();
      if (interval_set_) {
        next_discovery_ = now + poll_interval_;
      } else {
        // The default: every call looks at once, and a wait within one looks every 50 ms, or
        // as soon as this process publishes a snapshot of the table (a writer or the server's
        // tiering in the same process: its subscribers follow without a poll's delay).
        if (now >= deadline) return false;
        meta::WaitForPublished(path_, published, std::min(now + poll_interval_, deadline));
      }
    }
  }

  // The next rows of a `full` start-up's snapshot, as +I changes; false at its end.
  Result<bool> NextOfFull(RowBatch* batch) {
    RowBatch rows;
    TRIB_ASSIGN_OR_RETURN(bool more, full_->Next(&rows));
    if (!more) return false;
    for (auto& r : rows.rows) {
      if (normalize_) {
        Normalize(RowKind::kInsert, std::move(r), batch);
      } else {
        AddMetadata(&r);
        batch->rows.push_back(std::move(r));  // projected and filtered by the scan
        batch->kinds.push_back(RowKind::kInsert);
      }
    }
    return true;
  }
  Result<bool> NextOfFull(ChangeColumns* batch) {
    TRIB_ASSIGN_OR_RETURN(bool more, full_->NextColumns(&batch->columns));
    if (!more) return false;
    // Projected and filtered by the scan.
    batch->kinds.assign(batch->columns.num_rows, RowKind::kInsert);
    return true;
  }

  static void DropFirst(size_t n, RowBatch* batch) {
    batch->rows.erase(batch->rows.begin(), batch->rows.begin() + static_cast<ptrdiff_t>(n));
    batch->kinds.erase(batch->kinds.begin(), batch->kinds.begin() + static_cast<ptrdiff_t>(n));
  }
  static void DropFirst(size_t n, ChangeColumns* batch) {
    if (n == 0) return;
    std::vector<uint32_t> rest;
    for (size_t r = n; r < batch->kinds.size(); r++) rest.push_back(static_cast<uint32_t>(r));
    for (ColumnVector& c : batch->columns.columns) c.KeepRows(rest);
    batch->columns.num_rows = rest.size();
    batch->kinds.erase(batch->kinds.begin(), batch->kinds.begin() + static_cast<ptrdiff_t>(n));
  }

  // Stores the consumer's position: the snapshot whose changes come next (and how many of its
  // changes were delivered already).
  Status WritePosition() { return WritePosition(next_, 0); }
  Status WritePosition(int64_t snapshot, int64_t offset) {
    const auto position = std::make_pair(snapshot, offset);
    if (written_position_ == position) return Status::OK();
    TRIB_RETURN_NOT_OK(meta::WriteConsumerPosition(path_, options_.consumer_id,
                                                   meta::ConsumerPosition{snapshot, offset}));
    written_position_ = position;
    return Status::OK();
  }

  // Reads snapshot `id` whole first (as +I rows), then the changes after it. The normaliser
  // needs whole rows (and every key) to know what each later change replaces.
  Status StartFull(int64_t id) {
    ScanOptions o;
    if (!normalize_) {
      o.projection = projection_;
      o.filters = options_.filters;
    }
    o.snapshot_id = id;
    o.time_zone = options_.time_zone;
    TRIB_ASSIGN_OR_RETURN(auto snap, meta::ReadSnapshotCached(path_, id));
    change_.commit_millis = snap->time_millis;
    change_.offset_base = -1;  // rows of the snapshot itself: no log offset
    o.max_batch_rows = 65536;
    // With the 'full-compaction' producer the changes that follow are those of compactions into
    // the top level (that level before against after): the start is the top level as the last
    // of them left it, so no change is read twice at the seam (nor lost).
    const bool top_level_only =
        core_.changelog_producer == options::ChangelogProducer::kFullCompaction;
    // A deletion-vector table's level-0 files hold committed changes that batch reads leave
    // out until compacted; the changes that follow start after this snapshot, so its rows are
    // read with level 0 merged in (Paimon's streaming first plan does the same).
    if (options::GetOrDefault(*schema_, options::kDeletionVectorsEnabled)) {
      o.dynamic_options["deletion-vectors.merge-on-read"] = "true";
    }
    TRIB_ASSIGN_OR_RETURN(full_, NewFileStoreScan(path_, schema_, o, "", top_level_only));
    return Status::OK();
  }

  // A reader of a table that was dropped (or dropped and created again) would wait for changes
  // that never come, or read another table's.
  Status CheckNotDropped() const {
    TRIB_ASSIGN_OR_RETURN(bool same, meta::IsTableIncarnation(path_, incarnation_));
    if (same) return Status::OK();
    auto now = meta::TableIncarnation(path_);
    if (!now.ok() && !now.status().IsNotFound()) return now.status();
    return Status::NotFound("the table at '" + path_ + "' was dropped" +
                            (now.ok() ? std::string(" and created again") : std::string()) +
                            " while this streaming reader read it");
  }

  // A reader that fell behind the oldest retained snapshot would silently skip changes.
  Status CheckNotExpired() {
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, EarliestChanges());
    if (earliest && *earliest > next_) {
      return Status::NotFound("snapshot " + std::to_string(next_) + " of '" + path_ +
                              "' expired before this streaming reader read it (the oldest is " +
                              std::to_string(*earliest) + ")");
    }
    return Status::OK();
  }

  // The oldest snapshot whose changes can still be read: the oldest long-lived changelog, else
  // the oldest snapshot.
  Result<std::optional<int64_t>> EarliestChanges() const {
    TRIB_ASSIGN_OR_RETURN(auto changelogs, meta::ListLongLivedChangelogIds(path_));
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> earliest,
                          meta::SnapshotManager(path_).EarliestId());
    if (!changelogs.empty() && (!earliest || changelogs.front() < *earliest)) {
      return std::optional<int64_t>(changelogs.front());
    }
    return earliest;
  }

  // The files holding snapshot `id`'s changes, in the order their changes are read (and
  // change_.commit_millis set to its time).
  Result<std::vector<meta::ManifestEntry>> SnapshotChangeFiles(int64_t id) {
    auto cached = meta::ReadSnapshotCached(path_, id);
    std::shared_ptr<const meta::Snapshot> snap;
    if (cached.ok()) {
      snap = *cached;
    } else if (cached.status().IsNotFound()) {
      TRIB_ASSIGN_OR_RETURN(snap, meta::ReadLongLivedChangelog(path_, id));
    } else {
      return cached.status();
    }
    std::vector<meta::ManifestEntry> entries;
    if (layout_.primary_key && core_.changelog_producer != options::ChangelogProducer::kNone) {
      // ChangelogFollowUpScanner: the changelog files a snapshot lists, whatever its kind.
      if (!snap->changelog_manifest_list) return entries;
      TRIB_ASSIGN_OR_RETURN(auto manifests,
                            meta::ReadManifestList(path_, *snap->changelog_manifest_list));
      for (const auto& m : manifests) {
        TRIB_ASSIGN_OR_RETURN(auto part, meta::ReadManifest(path_, m.file_name));
        for (auto& e : part) entries.push_back(std::move(e));
      }
    } else {
      // DeltaFollowUpScanner: the files APPEND snapshots add (compactions and overwrites add no
      // change a reader has not seen).
      if (snap->commit_kind != meta::CommitKind::kAppend) return entries;
      TRIB_ASSIGN_OR_RETURN(entries, meta::ReadDeltaEntries(path_, *snap));
    }
    // Partition by partition: in the order the snapshot lists them (creation order), or by
    // partition value with 'scan.plan-sort-partition'; then bucket by bucket, each bucket's
    // files in the order they were written (a queue table's write order).
    std::map<std::string, size_t> partition_rank;
    for (const auto& e : entries) partition_rank.emplace(e.partition, partition_rank.size());
    if (plan_sort_partition_ && partition_rank.size() > 1) {
      std::vector<std::pair<Row, std::string>> values;
      for (const auto& [bytes, rank] : partition_rank) {
        TRIB_ASSIGN_OR_RETURN(Row row, format::DeserializeBinaryRow(bytes, partition_types_));
        values.emplace_back(std::move(row), bytes);
      }
      std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
        for (size_t i = 0; i < a.first.size() && i < b.first.size(); i++) {
          const int c = CompareValues(a.first[i], b.first[i]);
          if (c != 0) return c < 0;
        }
        return false;
      });
      for (size_t i = 0; i < values.size(); i++) partition_rank[values[i].second] = i;
    }
    // Changelog files keep the order they were written in (their manifest's): a -U/+U pair
    // split over two files, or two compactions' changelogs of one commit, must read in order.
    const bool changelog_files =
        layout_.primary_key && core_.changelog_producer != options::ChangelogProducer::kNone;
    std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
      if (a.partition != b.partition) {
        return partition_rank.at(a.partition) < partition_rank.at(b.partition);
      }
      if (a.bucket != b.bucket) return a.bucket < b.bucket;
      return !changelog_files && a.file.min_sequence_number < b.file.min_sequence_number;
    });
    change_.commit_millis = snap->time_millis;
    return entries;
  }

  Status ReadSnapshotChanges(int64_t id, RowBatch* batch) {
    TRIB_ASSIGN_OR_RETURN(std::vector<meta::ManifestEntry> entries, SnapshotChangeFiles(id));
    const std::string* partition = nullptr;
    int32_t bucket = -1;
    // A table with cross-partition updates: the snapshot's changes are gathered first (below).
    std::vector<Change> gathered;
    for (const auto& e : entries) {
      if (e.kind != meta::FileKind::kAdd) continue;
      if (!partition || *partition != e.partition || bucket != e.bucket) {
        partition = &e.partition;
        bucket = e.bucket;
        change_.bucket = e.bucket;
        change_.offset_base = id << 32;
        change_.position = 0;
      }
      TRIB_ASSIGN_OR_RETURN(std::string file, FilePath(e));
      TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(e.file));
      TRIB_ASSIGN_OR_RETURN(auto records,
                            datafile::ReadDataFile({file, e.file.row_count}, layout_, e.file.level,
                                                   e.file.write_cols, file_fields));
      for (auto& kv : records) {
        const RowKind kind = layout_.primary_key ? kv.kind : RowKind::kInsert;
        if (cross_partition_) {
          gathered.push_back({partition, e.bucket, kind, std::move(kv.value)});
        } else if (normalize_) {
          Normalize(kind, std::move(kv.value), batch);
        } else {
          Emit(kind, std::move(kv.value), batch);
        }
      }
    }
    if (cross_partition_) EmitCrossPartition(std::move(gathered), batch);
    return Status::OK();
  }

  // The same, column by column (columnar_: no normalisation, no key moving between partitions,
  // no change metadata). Parquet files written with the read schema are read as columns
  // (projected, filtered, kinds kept); any other file's rows are read and appended.
  Status ReadSnapshotChanges(int64_t id, ChangeColumns* batch) {
    TRIB_ASSIGN_OR_RETURN(std::vector<meta::ManifestEntry> entries, SnapshotChangeFiles(id));
    ColumnBatch& out = batch->columns;
    out.columns.assign(projection_.size(), ColumnVector());
    for (size_t c = 0; c < projection_.size(); c++) {
      out.columns[c].type = output_fields_[c].type;
      out.columns[c].rep = ColumnVector::RepOf(output_fields_[c].type);
    }
    auto append = [&](std::vector<ColumnVector>&& columns) {
      for (size_t c = 0; c < projection_.size(); c++) {
        ColumnVector& to = out.columns[c];
        if (to.size() == 0) {
          to = std::move(columns[c]);
          to.type = output_fields_[c].type;
        } else {
          to.AppendAll(std::move(columns[c]));
        }
      }
    };
    for (const auto& e : entries) {
      if (e.kind != meta::FileKind::kAdd) continue;
      TRIB_ASSIGN_OR_RETURN(std::string file, FilePath(e));
      TRIB_ASSIGN_OR_RETURN(const std::vector<Field>* file_fields, FileFields(e.file));
      const datafile::DataFileRef ref{file, e.file.row_count};
      std::unique_ptr<datafile::ColumnFileReader> reader;
      if (!file_fields && !e.file.write_cols) {
        TRIB_ASSIGN_OR_RETURN(reader, datafile::ColumnFileReader::Open(
                                          ref, layout_, projection_, nullptr, &options_.filters,
                                          nullptr, /*with_kinds=*/true));
      }
      if (!reader) {
        // Rows, appended column by column.
        TRIB_ASSIGN_OR_RETURN(auto records, datafile::ReadDataFile(ref, layout_, e.file.level,
                                                                   e.file.write_cols, file_fields));
        RowBatch rows;
        for (auto& kv : records) {
          Emit(layout_.primary_key ? kv.kind : RowKind::kInsert, std::move(kv.value), &rows);
        }
        std::vector<ColumnVector> columns(projection_.size());
        for (size_t c = 0; c < projection_.size(); c++) {
          columns[c].type = output_fields_[c].type;
          columns[c].rep = ColumnVector::RepOf(output_fields_[c].type);
          columns[c].Reserve(rows.rows.size());
          for (const Row& r : rows.rows) columns[c].Append(r[c]);
        }
        append(std::move(columns));
        batch->kinds.insert(batch->kinds.end(), rows.kinds.begin(), rows.kinds.end());
        continue;
      }
      ColumnBatch part;
      while (true) {
        TRIB_ASSIGN_OR_RETURN(bool more, reader->Next(0, &part));
        if (!more) break;
        if (layout_.primary_key) {
          const ColumnVector& kinds = part.columns.back();
          for (size_t r = 0; r < part.num_rows; r++) {
            batch->kinds.push_back(static_cast<RowKind>(kinds.ints[r]));
          }
          part.columns.pop_back();
        } else {
          batch->kinds.insert(batch->kinds.end(), part.num_rows, RowKind::kInsert);
        }
        append(std::move(part.columns));
      }
    }
    out.num_rows = batch->kinds.size();
    return Status::OK();
  }

  // A change of a snapshot of a table with cross-partition updates, gathered before it is emitted.
  struct Change {
    const std::string* partition;
    int32_t bucket;
    RowKind kind;
    Row row;
  };

  // A key that moved to another partition within one snapshot has changes in both, and the
  // snapshot's buckets are read one after the other, so its new row could come before the
  // retraction in its old partition. The changes of a key in a partition it left (its last
  // change there a retraction, and the key changed in another partition too) go first, so each
  // key's changes arrive in the order they happened; all else keeps its order.
  void EmitCrossPartition(std::vector<Change> changes, RowBatch* batch) {
    struct Where {
      const std::string* partition = nullptr;
      bool several = false;
    };
    std::unordered_map<std::string, Where> partitions_of;
    std::map<std::pair<std::string, const std::string*>, RowKind> last;  // (key, partition)
    std::vector<std::string> keys(changes.size());
    for (size_t i = 0; i < changes.size(); i++) {
      // The key across partitions: the trimmed primary key (no partition column).
      Row key;
      for (int c : layout_.key_columns) key.push_back(changes[i].row[c]);
      keys[i] = format::SerializeBinaryRow(trimmed_key_types_, key);
      Where& w = partitions_of[keys[i]];
      if (w.partition && *w.partition != *changes[i].partition) w.several = true;
      w.partition = changes[i].partition;
      last[{keys[i], changes[i].partition}] = changes[i].kind;
    }
    std::vector<size_t> order(changes.size());
    std::vector<int> rank(changes.size(), 1);
    for (size_t i = 0; i < changes.size(); i++) {
      order[i] = i;
      if (partitions_of[keys[i]].several && IsRetract(last[{keys[i], changes[i].partition}])) {
        rank[i] = 0;
      }
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return rank[a] < rank[b]; });
    // Each bucket's log positions count the rows emitted for it, in the order they go out.
    std::map<std::pair<const std::string*, int32_t>, int64_t> next_position;
    for (size_t i : order) {
      Change& c = changes[i];
      int64_t& position = next_position[{c.partition, c.bucket}];
      change_.bucket = c.bucket;
      change_.position = position;
      if (normalize_) {
        Normalize(c.kind, std::move(c.row), batch);
      } else {
        Emit(c.kind, std::move(c.row), batch);
      }
      position = change_.position;
    }
  }

  Result<std::string> FilePath(const meta::ManifestEntry& e) {
    if (e.file.external_path) return meta::ResolveExternalPath(path_, *e.file.external_path);
    auto part = format::DeserializeBinaryRow(e.partition, partition_types_);
    if (!part.ok()) return part.status().WithContext("partition of file " + e.file.file_name);
    return io::JoinPath(
        meta::BucketDir(path_,
                        meta::PartitionPath(partition_fields_, *part, core_.partition_default_name),
                        e.bucket),
        e.file.file_name);
  }

  // The columns of the schema `f` was written with, when it differs from the read schema.
  Result<const std::vector<Field>*> FileFields(const meta::DataFileMeta& f) {
    return file_schemas_.FieldsOf(f.schema_id);
  }

  // Flink's ChangelogNormalize over the last row of each key: +I/+U of a new key is +I, of a known
  // key -U(before) +U(after) unless the row is unchanged; -U/-D of a known key is -D(before).
  void Normalize(RowKind kind, Row row, RowBatch* batch) {
    Row key;
    key.reserve(key_columns_.size());
    for (int c : key_columns_) key.push_back(row[c]);
    std::string k = format::SerializeBinaryRow(key_types_, key);
    auto it = state_.find(k);
    if (kind == RowKind::kInsert || kind == RowKind::kUpdateAfter) {
      if (it == state_.end()) {
        Emit(RowKind::kInsert, row, batch);
        state_.emplace(std::move(k), std::move(row));
        return;
      }
      if (it->second == row) return;  // nothing changed
      Emit(RowKind::kUpdateBefore, std::move(it->second), batch);
      Emit(RowKind::kUpdateAfter, row, batch);
      it->second = std::move(row);
      return;
    }
    if (it == state_.end()) return;  // a retraction of a row never seen
    Emit(RowKind::kDelete, std::move(it->second), batch);
    state_.erase(it);
  }

  void Emit(RowKind kind, Row row, RowBatch* batch) {
    // Every change takes a place in its bucket's log, whether or not the filters keep it.
    const int64_t position = change_.position++;
    for (const auto& p : options_.filters) {
      if (!EvalPredicate(p, row[p.column])) return;
    }
    Row out;
    out.reserve(projection_.size() + 3);
    // `row` is this change's own: its values move into the output unless one is projected twice.
    if (projection_distinct_) {
      for (int i : projection_) out.push_back(std::move(row[i]));
    } else {
      for (int i : projection_) out.push_back(row[i]);
    }
    AddMetadata(&out, position);
    batch->rows.push_back(std::move(out));
    batch->kinds.push_back(kind);
  }

  // Appends the change metadata columns (StreamOptions::with_change_metadata).
  void AddMetadata(Row* row, int64_t position = 0) const {
    if (!options_.with_change_metadata) return;
    row->push_back(change_.offset_base < 0 ? Value::Null()
                                           : Value::Int(change_.offset_base + position));
    row->push_back(Value::Ts(Timestamp{change_.commit_millis, 0}));
    row->push_back(change_.offset_base < 0 ? Value::Null() : Value::Int(change_.bucket));
  }

  std::string path_;
  meta::FollowingTable following_{path_};  // (declared after path_: made from it)
  std::shared_ptr<const TableSchema> schema_;
  StreamOptions options_;
  options::CoreOptions core_;
  std::chrono::milliseconds poll_interval_ = kPollInterval;
  std::string incarnation_;  // the table this reader opened (meta::TableIncarnation)
  // On object storage, where every look is a request: when the expiration and drop checks of an
  // empty look run next.
  bool remote_ = false;
  std::chrono::steady_clock::time_point next_checks_{};
  static constexpr std::chrono::seconds kRemoteChecksInterval{1};
  bool in_changelogs_ = false;  // the last change read came from a long-lived changelog
  std::optional<std::pair<int64_t, int64_t>> written_position_;  // the position last stored
  int64_t skip_ = 0;  // changes of snapshot next_ a resumed consumer delivered before
  // The last batch Next() returned from a snapshot: that snapshot, the offset of its first row
  // among the snapshot's changes, and its size (CheckpointPartial).
  std::optional<int64_t> last_snapshot_;
  int64_t last_base_ = 0;
  size_t last_rows_ = 0;
  // 'continuous.discovery-interval' was set: looks are spaced by it across calls.
  bool interval_set_ = false;
  // When the next look for a new snapshot is due, after one that found none.
  std::optional<std::chrono::steady_clock::time_point> next_discovery_;
  FileLayout layout_;
  std::vector<int> projection_;
  bool projection_distinct_ = true;  // no column projected twice
  std::vector<Field> output_fields_;
  bool normalize_ = false;
  // NextColumns reads columns itself (ReadSnapshotChanges(ChangeColumns*)).
  bool columnar_ = false;
  // A primary key without every partition key (keys move between partitions).
  bool cross_partition_ = false;
  std::vector<DataType> trimmed_key_types_;
  bool plan_sort_partition_ = false;  // 'scan.plan-sort-partition
  std::vector<Field> partition_fields_;
  std::vector<DataType> partition_types_;
  // A row's identity for the normaliser: its primary key (partition columns included).
  std::vector<int> key_columns_;
  std::vector<DataType> key_types_;
  // One row per key (hundreds of thousands): a flat table, not a node per key.
  absl::flat_hash_map<std::string, Row> state_;
  meta::FileSchemas file_schemas_{path_, schema_->id};
  std::unique_ptr<TableScan> full_;  // `full` start-up: the snapshot being read first
  // Where the changes being emitted sit in the log (with_change_metadata).
  struct {
    int64_t commit_millis = 0;
    int64_t offset_base = -1;  // snapshot id << 32; -1: rows of a full start-up
    int64_t position = 0;      // next change's position in the snapshot's bucket
    int32_t bucket = 0;
  } change_;
  int64_t next_ = 1;
};

}  // namespace

Result<std::unique_ptr<StreamScan>> NewFileStoreStreamScan(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const StreamOptions& options) {
  TRIB_ASSIGN_OR_RETURN(auto core, options::CoreOptions::From(*schema));
  const int n = static_cast<int>(schema->fields.size());
  if (options.projection) {
    for (int i : *options.projection) {
      if (i < 0 || i >= n)
        return Status::Invalid("projection index " + std::to_string(i) + " out of range");
    }
  }
  for (const auto& p : options.filters) {
    if (p.column < 0 || p.column >= n) {
      return Status::Invalid("filter column " + std::to_string(p.column) + " out of range");
    }
  }
  if (!options.consumer_id.empty()) TRIB_RETURN_NOT_OK(meta::CheckConsumerId(options.consumer_id));
  if (schema->HasPrimaryKey() && core.changelog_producer == options::ChangelogProducer::kNone) {
    // The normaliser takes each new record as the key's whole row: right for deduplicate, not
    // for merges that combine records or keep the first one.
    TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(*schema));
    if (!config->IsPlainDeduplicate() || config->ignore_delete) {
      return Status::NotSupported(
          "a streaming read of a table with merge engine '" + config->engine + "'" +
          (config->engine == "deduplicate" ? " (with 'sequence.field' or 'ignore-delete')" : "") +
          " and 'changelog-producer' = 'none' is not supported yet: set 'changelog-producer' to "
          "'lookup', 'full-compaction' or 'input'");
    }
  }
  auto scan =
      std::make_unique<FileStoreStreamScan>(path, std::move(schema), options, std::move(core));
  TRIB_RETURN_NOT_OK(scan->Start());
  return std::unique_ptr<StreamScan>(std::move(scan));
}

}  // namespace tributary::read

namespace tributary {

Result<bool> StreamScan::NextColumns(ChangeColumns* batch, std::chrono::milliseconds timeout) {
  batch->Clear();
  RowBatch rows;
  TRIB_ASSIGN_OR_RETURN(bool more, Next(&rows, timeout));
  if (!more) return false;
  const std::vector<Field>& fields = output_fields();
  batch->columns.columns.resize(fields.size());
  for (size_t c = 0; c < fields.size(); c++) {
    ColumnVector& col = batch->columns.columns[c];
    col.type = fields[c].type;
    col.rep = ColumnVector::RepOf(fields[c].type);
    col.Reserve(rows.rows.size());
    for (const Row& r : rows.rows) col.Append(r[c]);
  }
  batch->columns.num_rows = rows.rows.size();
  batch->kinds = std::move(rows.kinds);
  return true;
}

}  // namespace tributary
