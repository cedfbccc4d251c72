// Automatic partitions, as Fluss's ('table.auto-partition.*'): a table partitioned by a time
// value (a STRING column in yyyyMMddHH / yyyyMMdd / yyyyMM / yyyyQ / yyyy form) gets the current
// and the next partitions created ahead (ADD PARTITION markers, meta/partition_marker.h) and its
// partitions older than the retention dropped (one OVERWRITE commit each, as DROP PARTITION),
// at CREATE TABLE, after every SQL write and ingest commit, and by CALL sys.maintain_partitions.
// Thread-safety: stateless functions; a table object is used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tributary/result.h"

namespace tributary {
class Table;
struct TableSchema;
}  // namespace tributary

namespace tributary::table {

struct AutoPartitionRule {
  std::string unit;       // HOUR, DAY, MONTH, QUARTER, YEAR
  int64_t precreate = 2;  // partitions created ahead, the current one included
  int64_t retention = 7;  // older partitions kept (negative: all)
  std::string time_zone;  // "" : the machine's
  std::string key;        // the time partition column
};

// The machine's time zone by name (TZ, else /etc/timezone, else UTC): what CREATE TABLE records
// when 'table.auto-partition.time-zone' is not given, so every client computes the same units.
std::string MachineTimeZone();

// The table's rule, checked against its partitioning (an error says what is wrong), or nullopt
// when 'table.auto-partition.enabled' is not true.
Result<std::optional<AutoPartitionRule>> AutoPartitionRuleOf(const TableSchema& schema);

// The partition value of the unit `offset` units after the one holding `utc_millis` (in the
// rule's time zone): "2026120213" (HOUR), "20261202" (DAY), "202612" (MONTH), "20264" (QUARTER),
// "2026" (YEAR).
Result<std::string> AutoPartitionValue(const AutoPartitionRule& rule, int64_t utc_millis,
                                       int64_t offset);

// Whether the partition at `partition_path` ("dt=20261204") is past the rule's retention as of
// `now_millis`, which MaintainAutoPartitions drops: an error saying so (a writer refuses its
// rows), else OK.
Status CheckPartitionRetained(const AutoPartitionRule& rule, const std::string& partition_path,
                              int64_t now_millis);

// Creates the partitions ahead and drops the expired ones of `table` as of `now_millis`; says
// what it did ("" when nothing). Nothing happens for a table without the rule.
Result<std::string> MaintainAutoPartitions(Table& table, int64_t now_millis);

}  // namespace tributary::table
