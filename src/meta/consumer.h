// Consumers (Paimon's ConsumerManager): the position of a named streaming reader, stored with the
// table as `consumer/consumer-<id>` = {"nextSnapshot": n}, so the reader resumes where it stopped
// and snapshot expiration keeps snapshot n and everything after it.
// Thread-safety: stateless functions; a consumer file is replaced atomically.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/path_names.h"
#include "tributary/result.h"

namespace tributary::meta {

// Consumer ids become file names (common/path_names.h).
using ::tributary::CheckConsumerId;
Status WriteConsumer(const std::string& table_path, const std::string& id, int64_t next_snapshot);
// The consumer's next snapshot; nullopt when it has none.
Result<std::optional<int64_t>> ReadConsumer(const std::string& table_path, const std::string& id);
// A consumer's position inside a snapshot: the changes of every snapshot before `next_snapshot`
// and the first `offset` changes of `next_snapshot` (as the consumer's stream hands them out)
// have been delivered. Paimon's consumer file holds `next_snapshot` (what its readers and
// expiration read); the offset is Tributary's, in `consumer/offset-<id>` beside it, a name
// Paimon's readers do not list. The offset file is written first: a crash between the two
// writes leaves a position that is exact or earlier, never later.
struct ConsumerPosition {
  int64_t next_snapshot = 1;
  int64_t offset = 0;
};
Status WriteConsumerPosition(const std::string& table_path, const std::string& id,
                             const ConsumerPosition& position);
// nullopt when the consumer has no position. An offset file that does not agree with the
// consumer file (an older one, or one Paimon's writer left) counts only where it is ahead.
Result<std::optional<ConsumerPosition>> ReadConsumerPosition(const std::string& table_path,
                                                             const std::string& id);
// The table's consumers and their next snapshots, by id.
Result<std::vector<std::pair<std::string, int64_t>>> ListConsumers(const std::string& table_path);
// The smallest next snapshot of the table's consumers; nullopt when it has none.
Result<std::optional<int64_t>> MinConsumerNextSnapshot(const std::string& table_path);
// Removes the consumers last written before `older_than_millis` ('consumer.expiration-time':
// a reader gone that long no longer holds snapshots back). Returns how many went.
Result<int64_t> ExpireConsumers(const std::string& table_path, int64_t older_than_millis);

}  // namespace tributary::meta
