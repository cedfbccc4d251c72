#include "meta/consumer.h"

#include <algorithm>

#include "common/json.h"
#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {

namespace {

Result<int64_t> ParseConsumer(const std::string& text, const std::string& path) {
  auto j = ParseJson(text, "consumer file '" + path + "'");
  if (!j.ok()) return j.status();
  if (!j->is_object() || !j->contains("nextSnapshot") ||
      !(*j)["nextSnapshot"].is_number_integer()) {
    return Status::Corruption("consumer file '" + path + "' has no integer nextSnapshot");
  }
  return (*j)["nextSnapshot"].get<int64_t>();
}

}  // namespace

Status WriteConsumer(const std::string& table_path, const std::string& id, int64_t next_snapshot) {
  TRIB_RETURN_NOT_OK(CheckConsumerId(id));
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(ConsumerDir(table_path)));
  return io::LocalFs().WriteFile(
      ConsumerPath(table_path, id),
      "{\n  \"nextSnapshot\" : " + std::to_string(next_snapshot) + "\n}");
}

Result<std::optional<int64_t>> ReadConsumer(const std::string& table_path, const std::string& id) {
  TRIB_RETURN_NOT_OK(CheckConsumerId(id));
  const std::string path = ConsumerPath(table_path, id);
  auto text = io::LocalFs().ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return std::optional<int64_t>();
    return text.status();
  }
  TRIB_ASSIGN_OR_RETURN(int64_t next, ParseConsumer(*text, path));
  return std::optional<int64_t>(next);
}

namespace {
std::string OffsetPath(const std::string& table_path, const std::string& id) {
  return io::JoinPath(ConsumerDir(table_path), "offset-" + id);
}
}  // namespace

Status WriteConsumerPosition(const std::string& table_path, const std::string& id,
                             const ConsumerPosition& position) {
  TRIB_RETURN_NOT_OK(CheckConsumerId(id));
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(ConsumerDir(table_path)));
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(
      OffsetPath(table_path, id), "{\n  \"snapshot\" : " + std::to_string(position.next_snapshot) +
                                      ",\n  \"offset\" : " + std::to_string(position.offset) +
                                      "\n}"));
  return WriteConsumer(table_path, id, position.next_snapshot);
}

Result<std::optional<ConsumerPosition>> ReadConsumerPosition(const std::string& table_path,
                                                             const std::string& id) {
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> next, ReadConsumer(table_path, id));
  if (!next) return std::optional<ConsumerPosition>();
  ConsumerPosition p;
  p.next_snapshot = *next;
  const std::string path = OffsetPath(table_path, id);
  auto text = io::LocalFs().ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) return std::optional<ConsumerPosition>(p);
    return text.status();
  }
  TRIB_ASSIGN_OR_RETURN(Json j, ParseJson(*text, "consumer offset file '" + path + "'"));
  if (!j.is_object() || !j.contains("snapshot") || !j["snapshot"].is_number_integer() ||
      !j.contains("offset") || !j["offset"].is_number_integer() || j["offset"].get<int64_t>() < 0) {
    return Status::Corruption("consumer offset file '" + path +
                              "' has no integer snapshot and "
                              "offset");
  }
  const int64_t snapshot = j["snapshot"].get<int64_t>();
  // Written before the consumer file: ahead of it after a crash between the two (the consumer
  // file still protects `next` on, so that snapshot is there), behind it when stale.
  if (snapshot >= *next) {
    p.next_snapshot = snapshot;
    p.offset = j["offset"].get<int64_t>();
  }
  return std::optional<ConsumerPosition>(p);
}

Result<std::vector<std::pair<std::string, int64_t>>> ListConsumers(const std::string& table_path) {
  const std::string dir = ConsumerDir(table_path);
  std::vector<std::pair<std::string, int64_t>> out;
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().Exists(dir));
  if (!exists) return out;
  TRIB_ASSIGN_OR_RETURN(auto entries, io::LocalFs().ListDir(dir));
  for (const auto& e : entries) {
    if (e.is_dir || e.name.rfind(kConsumerPrefix, 0) != 0) continue;
    const std::string path = io::JoinPath(dir, e.name);
    auto text = io::LocalFs().ReadFile(path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) continue;  // removed meanwhile
      return text.status();
    }
    TRIB_ASSIGN_OR_RETURN(int64_t next, ParseConsumer(*text, path));
    out.emplace_back(e.name.substr(std::string(kConsumerPrefix).size()), next);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::optional<int64_t>> MinConsumerNextSnapshot(const std::string& table_path) {
  TRIB_ASSIGN_OR_RETURN(auto consumers, ListConsumers(table_path));
  std::optional<int64_t> min;
  for (const auto& [id, next] : consumers) min = min ? std::min(*min, next) : next;
  return min;
}

Result<int64_t> ExpireConsumers(const std::string& table_path, int64_t older_than_millis) {
  const std::string dir = ConsumerDir(table_path);
  auto entries = io::LocalFs().ListDir(dir);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return 0;
    return entries.status();
  }
  int64_t removed = 0;
  for (const auto& e : *entries) {
    if (e.is_dir || e.name.rfind(kConsumerPrefix, 0) != 0) continue;
    if (e.mtime_millis >= older_than_millis) continue;
    TRIB_RETURN_NOT_OK(io::LocalFs().Remove(
        io::JoinPath(dir, "offset-" + e.name.substr(std::string(kConsumerPrefix).size()))));
    TRIB_RETURN_NOT_OK(io::LocalFs().Remove(io::JoinPath(dir, e.name)));
    removed++;
  }
  return removed;
}

}  // namespace tributary::meta
