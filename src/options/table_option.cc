#include "options/table_option.h"

#include <cstring>
#include <string_view>

#include "options/option_values.h"
#include "tributary/options.h"
#include "tributary/schema.h"

namespace tributary::options {

namespace {

constexpr std::pair<MergeEngine, const char*> kMergeEngines[] = {
    {MergeEngine::kDeduplicate, "deduplicate"}, {MergeEngine::kPartialUpdate, "partial-update"},
    {MergeEngine::kAggregation, "aggregation"}, {MergeEngine::kFirstRow, "first-row"},
    {MergeEngine::kVersioned, "versioned"},
};
constexpr std::pair<ChangelogProducer, const char*> kProducers[] = {
    {ChangelogProducer::kNone, "none"},
    {ChangelogProducer::kInput, "input"},
    {ChangelogProducer::kLookup, "lookup"},
    {ChangelogProducer::kFullCompaction, "full-compaction"},
};

const OptionDef& DefOf(const char* key) {
  const OptionDef* def = FindOption(OptionScope::kTable, key);
  if (def == nullptr) {
    // A key in option_keys.h missing from the option table: options_test fails first.
    static const OptionDef none;
    return none;
  }
  return *def;
}

Status Bad(const char* key, std::string_view value, const std::string& why) {
  return Status::Invalid("option '" + std::string(key) + "' = '" + std::string(value) +
                         "': " + why);
}

Result<int64_t> ParseAs(const OptionDef& def, const char* key, std::string_view v) {
  Result<int64_t> r = def.type == OptionType::kMemorySize ? ParseMemorySize(v)
                      : def.type == OptionType::kDuration ? ParseDurationMillis(v)
                                                          : ParseInt64(v);
  if (!r.ok()) return Bad(key, v, r.status().message());
  return r;
}

// The stored value, or the table's default; nullopt when neither (an option without default).
std::optional<std::string> ValueOf(const std::map<std::string, std::string>& options,
                                   const char* key) {
  if (auto v = SetValue(options, key)) return v;
  const OptionDef& def = DefOf(key);
  if (def.default_value.empty() && def.type != OptionType::kString) return std::nullopt;
  return def.default_value;
}

template <class E, size_t N>
Result<E> EnumOf(const std::pair<E, const char*> (&names)[N], const char* key, std::string_view v) {
  for (const auto& [e, name] : names) {
    if (v == name) return e;
  }
  // Fluss's spelling of merge engines ('first_row').
  std::string dashed(v);
  for (char& c : dashed) c = c == '_' ? '-' : c;
  for (const auto& [e, name] : names) {
    if (dashed == name) return e;
  }
  return Bad(key, v, "not one of the allowed values");
}

Status NoValue(const char* key) {
  return Status::Invalid("option '" + std::string(key) + "' is not set and has no default");
}

}  // namespace

std::optional<std::string> SetValue(const std::map<std::string, std::string>& options,
                                    const char* key) {
  auto it = options.find(key);
  if (it != options.end()) return it->second;
  for (const std::string& alias : DefOf(key).aliases) {
    it = options.find(alias);
    if (it != options.end()) return it->second;
  }
  return std::nullopt;
}

const char* MergeEngineName(MergeEngine e) {
  for (const auto& [v, name] : kMergeEngines) {
    if (v == e) return name;
  }
  return "?";
}

const char* ChangelogProducerName(ChangelogProducer p) {
  for (const auto& [v, name] : kProducers) {
    if (v == p) return name;
  }
  return "?";
}

const std::map<std::string, std::string>& SchemaOptions(const TableSchema& schema) {
  return schema.options;
}

Result<std::string> Get(const std::map<std::string, std::string>& options,
                        TableOption<std::string> option) {
  std::string v = ValueOf(options, option.key).value_or("");
  const OptionDef& def = DefOf(option.key);
  if (def.type != OptionType::kEnum || v.empty()) return v;
  std::optional<std::string> canonical = CanonicalEnum(v, def.allowed, def.list);
  if (!canonical) return Bad(option.key, v, "not one of the allowed values");
  return *canonical;
}

Result<int64_t> Get(const std::map<std::string, std::string>& options,
                    TableOption<int64_t> option) {
  auto v = ValueOf(options, option.key);
  if (!v) return NoValue(option.key);
  return ParseAs(DefOf(option.key), option.key, *v);
}

Result<bool> Get(const std::map<std::string, std::string>& options, TableOption<bool> option) {
  auto v = ValueOf(options, option.key);
  if (!v) return NoValue(option.key);
  bool b = false;
  if (!ParseBool(*v, &b)) return Bad(option.key, *v, "not true or false");
  return b;
}

Result<MergeEngine> Get(const std::map<std::string, std::string>& options,
                        TableOption<MergeEngine> option) {
  auto v = ValueOf(options, option.key);
  if (!v) return NoValue(option.key);
  return EnumOf(kMergeEngines, option.key, *v);
}

Result<ChangelogProducer> Get(const std::map<std::string, std::string>& options,
                              TableOption<ChangelogProducer> option) {
  auto v = ValueOf(options, option.key);
  if (!v) return NoValue(option.key);
  return EnumOf(kProducers, option.key, *v);
}

Status CheckTableOption(const char* key, const char* cpp_type) {
  const OptionDef* def = FindOption(OptionScope::kTable, key);
  if (def == nullptr)
    return Status::Invalid("'" + std::string(key) + "' is not in the option table");
  if (def->key != key) {
    return Status::Invalid("'" + std::string(key) + "' is an alias of '" + def->key + "'");
  }
  const std::string_view t = cpp_type;
  bool ok = false;
  switch (def->type) {
    case OptionType::kString:
      ok = t == "string";
      break;
    case OptionType::kEnum:
      ok = t == "string" || t == "MergeEngine" || t == "ChangelogProducer";
      break;
    case OptionType::kInt:
    case OptionType::kLong:
    case OptionType::kMemorySize:
    case OptionType::kDuration:
      ok = t == "int64_t";
      break;
    case OptionType::kBool:
      ok = t == "bool";
      break;
    case OptionType::kDouble:
      ok = t == "double";
      break;
  }
  if (!ok) {
    return Status::Invalid("'" + std::string(key) + "' is a " + OptionTypeName(def->type) +
                           " option, read as " + std::string(cpp_type));
  }
  if (t == "MergeEngine" || t == "ChangelogProducer") {
    for (const auto& allowed : def->allowed) {
      std::map<std::string, std::string> one{{key, allowed}};
      Status st = t == "MergeEngine" ? Get(one, TableOption<MergeEngine>{key}).status()
                                     : Get(one, TableOption<ChangelogProducer>{key}).status();
      if (!st.ok()) return st;
    }
  }
  if (!def->default_value.empty()) {
    std::map<std::string, std::string> none;
    Status st = t == "int64_t"             ? Get(none, TableOption<int64_t>{key}).status()
                : t == "bool"              ? Get(none, TableOption<bool>{key}).status()
                : t == "MergeEngine"       ? Get(none, TableOption<MergeEngine>{key}).status()
                : t == "ChangelogProducer" ? Get(none, TableOption<ChangelogProducer>{key}).status()
                                           : Status::OK();
    if (!st.ok()) return st.WithContext("the default");
  }
  return Status::OK();
}

}  // namespace tributary::options
