#include "table/auto_partition.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <vector>

#include "common/datetime.h"
#include "common/timezone.h"
#include "io/file_system.h"
#include "meta/partition_marker.h"
#include "meta/paths.h"
#include "options/option_keys.h"
#include "table/partition_expire.h"
#include "table/system_tables.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::table {

namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  while (static_cast<int>(s.size()) < width) s = "0" + s;
  return s;
}

// A time value before the oldest one kept (of the same width: a value of another form is not
// the rule's and stays).
bool IsExpired(const std::string& v, const std::string& oldest) {
  const bool digits = std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
  return v.size() == oldest.size() && digits && v < oldest;
}

}  // namespace

std::string MachineTimeZone() {
  if (const char* tz = std::getenv("TZ"); tz && *tz && *tz != ':') return tz;
  if (auto text = io::LocalFs().ReadFile("/etc/timezone"); text.ok()) {
    std::string name = *text;
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    if (!name.empty() && TimeZone::Load(name).ok()) return name;
  }
  return "UTC";
}

Result<std::optional<AutoPartitionRule>> AutoPartitionRuleOf(const TableSchema& schema) {
  using Out = std::optional<AutoPartitionRule>;
  auto opt = [&](const char* key) { return schema.Option(key); };
  if (opt("table.auto-partition.enabled").value_or("false") != "true") return Out();
  AutoPartitionRule r;
  r.unit = opt("table.auto-partition.time-unit").value_or("DAY");
  r.time_zone = opt("table.auto-partition.time-zone").value_or("");
  if (schema.partition_keys.empty()) {
    return Status::Invalid("'table.auto-partition.enabled' needs a partitioned table");
  }
  if (schema.partition_keys.size() == 1) {
    r.key = schema.partition_keys[0];
    if (auto k = opt("table.auto-partition.key"); k && !k->empty() && *k != r.key) {
      return Status::Invalid("'table.auto-partition.key' = '" + *k +
                             "' is not the partition "
                             "column '" +
                             r.key + "'");
    }
  } else {
    auto k = opt("table.auto-partition.key");
    if (!k || k->empty()) {
      return Status::Invalid(
          "a table partitioned by several columns needs "
          "'table.auto-partition.key': the time partition column");
    }
    if (std::find(schema.partition_keys.begin(), schema.partition_keys.end(), *k) ==
        schema.partition_keys.end()) {
      return Status::Invalid("'table.auto-partition.key' = '" + *k + "' is not a partition column");
    }
    r.key = *k;
  }
  const int idx = schema.FieldIndex(r.key);
  const TypeId t = schema.fields[idx].type.id;
  if (t != TypeId::kVarChar && t != TypeId::kChar) {
    return Status::Invalid("automatic partition column '" + r.key +
                           "' must be a STRING (its "
                           "values are " +
                           (r.unit == "HOUR"      ? "yyyyMMddHH"
                            : r.unit == "DAY"     ? "yyyyMMdd"
                            : r.unit == "MONTH"   ? "yyyyMM"
                            : r.unit == "QUARTER" ? "yyyyQ"
                                                  : "yyyy") +
                           ")");
  }
  r.precreate = std::stoll(opt("table.auto-partition.num-precreate").value_or("2"));
  if (schema.partition_keys.size() > 1) {
    if (opt("table.auto-partition.num-precreate") && r.precreate != 0) {
      return Status::Invalid(
          "'table.auto-partition.num-precreate' must be 0 for a table "
          "partitioned by several columns (the other values are not known)");
    }
    r.precreate = 0;
  }
  r.retention = std::stoll(opt("table.auto-partition.num-retention").value_or("7"));
  TRIB_ASSIGN_OR_RETURN(TimeZone zone, TimeZone::Load(r.time_zone));
  (void)zone;
  return Out(std::move(r));
}

Result<std::string> AutoPartitionValue(const AutoPartitionRule& rule, int64_t utc_millis,
                                       int64_t offset) {
  TRIB_ASSIGN_OR_RETURN(TimeZone zone, TimeZone::Load(rule.time_zone));
  int64_t utc = FloorDiv(utc_millis, 1000);
  if (rule.unit == "HOUR") utc += offset * 3600;
  const int64_t local = utc + zone.OffsetAtUtc(utc);
  int64_t days = FloorDiv(local, 86400);
  const int64_t hour = (local - days * 86400) / 3600;
  if (rule.unit == "DAY") days += offset;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  if (rule.unit == "HOUR") return Pad(y, 4) + Pad(m, 2) + Pad(d, 2) + Pad(hour, 2);
  if (rule.unit == "DAY") return Pad(y, 4) + Pad(m, 2) + Pad(d, 2);
  int64_t months = y * 12 + (m - 1);
  if (rule.unit == "MONTH") {
    months += offset;
    return Pad(FloorDiv(months, 12), 4) + Pad(months - FloorDiv(months, 12) * 12 + 1, 2);
  }
  if (rule.unit == "QUARTER") {
    int64_t quarters = FloorDiv(months, 3) + offset;
    return Pad(FloorDiv(quarters, 4), 4) + std::to_string(quarters - FloorDiv(quarters, 4) * 4 + 1);
  }
  if (rule.unit == "YEAR") return Pad(y + offset, 4);
  return Status::Invalid("unknown 'table.auto-partition.time-unit' '" + rule.unit + "'");
}

Status CheckPartitionRetained(const AutoPartitionRule& rule, const std::string& partition_path,
                              int64_t now_millis) {
  if (rule.retention < 0) return Status::OK();
  TRIB_ASSIGN_OR_RETURN(std::string oldest, AutoPartitionValue(rule, now_millis, -rule.retention));
  for (const auto& [k, v] : meta::SplitPartitionPath(partition_path)) {
    if (k != rule.key || !IsExpired(v, oldest)) continue;
    return Status::Invalid("partition " + partition_path +
                           " is past the table's retention "
                           "('table.auto-partition.num-retention' = " +
                           std::to_string(rule.retention) + " of unit " + rule.unit +
                           ": partitions before " + rule.key + "=" + oldest +
                           " are dropped), so "
                           "its rows are refused rather than written and dropped");
  }
  return Status::OK();
}

Result<std::string> MaintainAutoPartitions(Table& table, int64_t now_millis) {
  const auto schema = table.schema();
  TRIB_ASSIGN_OR_RETURN(auto rule, AutoPartitionRuleOf(*schema));
  if (!rule) return std::string();
  TRIB_ASSIGN_OR_RETURN(SystemTableData parts, ReadSystemTable(table.path(), "partitions"));
  std::vector<std::string> existing;
  std::map<std::string, bool> has_files;
  for (const Row& r : parts.rows) {
    existing.push_back(r[0].string_value());
    has_files[r[0].string_value()] = r[3].is_null() || r[3].int_value() > 0;
  }
  std::string done;
  // Expired: the time value before the oldest one kept (same width: a value of another form is
  // not this rule's and stays; IsExpired).
  if (rule->retention >= 0) {
    TRIB_ASSIGN_OR_RETURN(std::string oldest,
                          AutoPartitionValue(*rule, now_millis, -rule->retention));
    std::vector<std::string> kept;
    std::vector<PartitionToDrop> drops;
    for (const std::string& name : existing) {
      std::map<std::string, std::string> spec;
      bool default_value = false;
      for (const auto& [k, v] : meta::SplitPartitionPath(name)) {
        spec[k] = v;
        // A NULL or blank value of another key cannot be named by an overwrite yet: kept.
        default_value = default_value || v == "__DEFAULT_PARTITION__" ||
                        v == options::IsSet(*schema, options::kPartitionDefaultName).value_or("");
      }
      const std::string& v = spec[rule->key];
      kept.push_back(name);
      if (default_value || !IsExpired(v, oldest)) continue;
      drops.push_back(PartitionToDrop{name, spec, has_files[name]});
      kept.pop_back();
      done += (done.empty() ? "dropped " : ", ") + name;
    }
    // The partitions past retention go in one commit.
    TRIB_RETURN_NOT_OK(DropPartitions(table, drops));
    existing = std::move(kept);
  }
  // Ahead: the current unit's partition and the next ones.
  std::string created;
  for (int64_t i = 0; i < rule->precreate; i++) {
    TRIB_ASSIGN_OR_RETURN(std::string value, AutoPartitionValue(*rule, now_millis, i));
    const std::string name = rule->key + "=" + meta::EscapePathName(value);
    if (std::find(existing.begin(), existing.end(), name) != existing.end()) continue;
    TRIB_ASSIGN_OR_RETURN(const int64_t max, options::Get(*schema, options::kMaxPartitionNum));
    if (static_cast<int64_t>(existing.size()) + 1 > max) {
      return Status::Invalid("creating automatic partition " + name +
                             " would give the table more "
                             "than 'max.partition.num' = " +
                             std::to_string(max) + " partitions");
    }
    TRIB_RETURN_NOT_OK(meta::MarkPartition(table.path(), name));
    existing.push_back(name);
    created += (created.empty() ? "created " : ", ") + name;
  }
  if (!created.empty()) done += (done.empty() ? "" : "; ") + created;
  return done;
}

}  // namespace tributary::table
