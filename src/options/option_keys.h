// The table options code outside options/ reads, each a typed key (table_option.h): its C++
// type is checked against the option table by options_test (TableOptionKeys.MatchTheTable), and
// its default comes from the option table alone.
#pragma once

#include <string>

#include "options/table_option.h"

namespace tributary::options {

// X(constant, C++ type, key)
#define TRIBUTARY_TABLE_OPTIONS(X)                                                               \
  X(kAggregationRemoveRecordOnDelete, bool, "aggregation.remove-record-on-delete")               \
  X(kBucket, int64_t, "bucket")                                                                  \
  X(kBucketKey, std::string, "bucket-key")                                                       \
  X(kChangelogProducer, ChangelogProducer, "changelog-producer")                                 \
  X(kChangelogRowDeduplicate, bool, "changelog-producer.row-deduplicate")                        \
  X(kChangelogRowDeduplicateIgnoreFields, std::string,                                           \
    "changelog-producer.row-deduplicate-ignore-fields")                                          \
  X(kChangelogTimeRetained, int64_t, "changelog.time-retained")                                  \
  X(kClientWriterDynamicCreatePartition, bool, "client.writer.dynamic-create-partition.enabled") \
  X(kCommitMaxRetries, int64_t, "commit.max-retries")                                            \
  X(kCompactionMaxFileNum, int64_t, "compaction.max.file-num")                                   \
  X(kCompactionMinFileNum, int64_t, "compaction.min.file-num")                                   \
  X(kConsumerExpirationTime, int64_t, "consumer.expiration-time")                                \
  X(kContinuousDiscoveryInterval, int64_t, "continuous.discovery-interval")                      \
  X(kDataEvolutionEnabled, bool, "data-evolution.enabled")                                       \
  X(kDeletionVectorsBitmap64, bool, "deletion-vectors.bitmap64")                                 \
  X(kDeletionVectorsEnabled, bool, "deletion-vectors.enabled")                                   \
  X(kDeletionVectorsMergeOnRead, bool, "deletion-vectors.merge-on-read")                         \
  X(kDeletionVectorsModifiable, bool, "deletion-vectors.modifiable")                             \
  X(kDynamicPartitionOverwrite, bool, "dynamic-partition-overwrite")                             \
  X(kFieldsDefaultAggregateFunction, std::string, "fields.default-aggregate-function")           \
  X(kFileIndexReadEnabled, bool, "file-index.read.enabled")                                      \
  X(kForceLookup, bool, "force-lookup")                                                          \
  X(kIndexFileInDataFileDir, bool, "index-file-in-data-file-dir")                                \
  X(kFullCompactionDeltaCommits, int64_t, "full-compaction.delta-commits")                       \
  X(kIgnoreDelete, bool, "ignore-delete")                                                        \
  X(kLookupCacheMaxMemorySize, int64_t, "lookup.cache-max-memory-size")                          \
  X(kLookupWait, bool, "lookup-wait")                                                            \
  X(kManifestCompression, std::string, "manifest.compression")                                   \
  X(kMaxBucketNum, int64_t, "max.bucket.num")                                                    \
  X(kMaxPartitionNum, int64_t, "max.partition.num")                                              \
  X(kMergeEngine, MergeEngine, "merge-engine")                                                   \
  X(kTableDatalakeEnabled, bool, "table.datalake.enabled")                                       \
  X(kTableDatalakeFreshness, int64_t, "table.datalake.freshness")                                \
  X(kTableLogFormat, std::string, "table.log.format")                                            \
  X(kTableLogArrowCompressionType, std::string, "table.log.arrow.compression.type")              \
  X(kTableLogArrowCompressionZstdLevel, int64_t, "table.log.arrow.compression.zstd.level")       \
  X(kPartialUpdateRemoveRecordOnSequenceGroup, std::string,                                      \
    "partial-update.remove-record-on-sequence-group")                                            \
  X(kPartialUpdateRemoveRecordOnDelete, bool, "partial-update.remove-record-on-delete")          \
  X(kPartitionDefaultName, std::string, "partition.default-name")                                \
  X(kRowTrackingEnabled, bool, "row-tracking.enabled")                                           \
  X(kScanFallbackBranch, std::string, "scan.fallback-branch")                                    \
  X(kScanPlanSortPartition, bool, "scan.plan-sort-partition")                                    \
  X(kScanSnapshotId, int64_t, "scan.snapshot-id")                                                \
  X(kScanTagName, std::string, "scan.tag-name")                                                  \
  X(kScanTimestamp, std::string, "scan.timestamp")                                               \
  X(kScanTimestampMillis, int64_t, "scan.timestamp-millis")                                      \
  X(kSequenceAutoPadding, std::string, "sequence.auto-padding")                                  \
  X(kSequenceField, std::string, "sequence.field")                                               \
  X(kSequenceFieldSortOrder, std::string, "sequence.field.sort-order")                           \
  X(kSnapshotTimeRetained, int64_t, "snapshot.time-retained")                                    \
  X(kTableAutoPartitionTimeZone, std::string, "table.auto-partition.time-zone")                  \
  X(kVersionedVerColumn, std::string, "table.merge-engine.versioned.ver-column")

#define TRIBUTARY_DECLARE_TABLE_OPTION(name, type, key) \
  inline constexpr TableOption<type> name{key};
TRIBUTARY_TABLE_OPTIONS(TRIBUTARY_DECLARE_TABLE_OPTION)
#undef TRIBUTARY_DECLARE_TABLE_OPTION

}  // namespace tributary::options
