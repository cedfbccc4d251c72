// Paimon's own partition expiration ('partition.expiration-time', PartitionExpire): a partition
// whose time is older than the expiration time is dropped (one OVERWRITE commit that writes
// nothing, as DROP PARTITION). Its time is read from its values ('values-time', the default:
// 'partition.timestamp-pattern' puts the values together, '$dt $hour:00:00', else the first
// value is taken; 'partition.timestamp-formatter' reads it, a Java DateTimeFormatter pattern,
// else 'yyyy-MM-dd[ HH:mm:ss]') or is the creation time of its newest file ('update-time').
// Times are local date-times compared with the machine's local time, as Paimon's
// LocalDateTime.now(). A value that does not parse, and the NULL partition, never expire.
// At most 'partition.expiration-max-num' partitions go at a time, in name order.
// Thread-safety: stateless functions; a table object is used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {
class Table;
struct TableSchema;
}  // namespace tributary

namespace tributary::table {

struct PartitionExpireRule {
  int64_t expiration_ms = 0;
  int64_t check_interval_ms = 3600 * 1000;  // 'partition.expiration-check-interval'
  std::string pattern;                      // "" : the first partition value
  std::string formatter;                    // "" : yyyy-MM-dd[ HH:mm:ss]
  bool update_time = false;                 // 'partition.expiration-strategy' = 'update-time'
  int64_t max_num = 100;                    // 'partition.expiration-max-num'
  bool end_input_check = false;             // 'end-input.check-partition-expire'
};

// The table's rule, checked (an error names the option and what is wrong with it), or nullopt
// when 'partition.expiration-time' is not set.
Result<std::optional<PartitionExpireRule>> PartitionExpireRuleOf(const TableSchema& schema);

// Checks a 'partition.timestamp-formatter' pattern: letters y/u M d H m s S, quoted text and
// other characters as literals (another letter is not supported yet).
Status CheckTimestampFormatter(const std::string& formatter);

// The local date-time (milliseconds from 1970-01-01T00:00 as a wall-clock time, no zone) `text`
// reads as with `formatter` ("" : the default), or nullopt when it does not parse.
std::optional<int64_t> ParsePartitionTime(const std::string& text, const std::string& formatter);

// A partition to drop: its name ('k=v/k2=v2'), its values, whether it holds data files.
struct PartitionToDrop {
  std::string name;
  std::map<std::string, std::string> spec;
  bool has_files = false;
};
// Drops `partitions` of `table` in one OVERWRITE commit that writes nothing (of those holding
// files; as Paimon's dropPartitions, all or none), then removes their ADD PARTITION markers.
Status DropPartitions(Table& table, const std::vector<PartitionToDrop>& partitions);

// Drops the partitions of `table` expired as of `now_utc_millis` (the rule's strategy against
// the machine's local time) and returns their names ('k=v/k2=v2'), oldest name first.
Result<std::vector<std::string>> ExpirePartitions(Table& table, const PartitionExpireRule& rule,
                                                  int64_t now_utc_millis);

}  // namespace tributary::table
