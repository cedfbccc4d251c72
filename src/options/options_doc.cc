#include "options/options_doc.h"

#include "tributary/options.h"

namespace tributary::options {
namespace {

// Escapes the characters that would break a Markdown table cell.
std::string Cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Code(const std::string& s) { return s.empty() ? "" : "`" + s + "`"; }

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? sep : "") + items[i];
  return out;
}

void AppendSection(OptionScope scope, const std::string& title, const std::string& intro,
                   std::string* out) {
  *out += "## " + title + "\n\n" + intro + "\n\n";
  *out += "| key | type | default | description |\n| --- | --- | --- | --- |\n";
  for (const OptionDef& def : AllOptions()) {
    if (def.scope != scope) continue;
    std::string type = OptionTypeName(def.type);
    if (def.type == OptionType::kEnum) {
      std::vector<std::string> values;
      for (const std::string& v : def.allowed) values.push_back(Code(v));
      type = (def.list ? "list of " : "one of ") + Join(values, ", ");
    }
    std::string desc = Cell(def.description);
    if (!def.aliases.empty()) {
      std::vector<std::string> aliases;
      for (const std::string& a : def.aliases) aliases.push_back(Code(a));
      desc += " Also spelled " + Join(aliases, ", ") + ".";
    }
    if (!def.supported) desc += " *Recognized; not implemented yet.*";
    if (def.hint_only) desc += " *A query hint only.*";
    *out += "| " + Code(def.key) + " | " + type + " | " + Code(def.default_value) + " | " + desc +
            " |\n";
  }
  *out += "\n";
}

}  // namespace

std::string GenerateOptionsDoc() {
  std::string out =
      "<!-- Generated from src/options/options_table.cc; do not edit. Regenerate with\n"
      "     TRIBUTARY_REGEN_DOCS=1 build/options_test --gtest_filter='OptionsDoc*' -->\n\n"
      "# Options\n\n"
      "Every option Tributary recognizes. Keys are case-sensitive; a misspelled key or an invalid "
      "value is an error that names the closest valid one. Durations are written like `30 s`, "
      "`100ms`, `10 min`, `1 h`, `2 d` (a bare number is milliseconds); memory sizes like "
      "`64 kb`, `128 mb`, `1 gb` (a bare number is bytes). Enum values are case-insensitive and "
      "`_` may be written for `-`. Options marked *not implemented yet* are refused wherever they "
      "are given (CREATE, ALTER, hints, SET) with \"recognised but not supported yet\", never "
      "accepted and ignored; options marked *a query hint only* are refused as table options. "
      "`src/table/option_markers_test.cc` keeps these marks true.\n\n";
  AppendSection(OptionScope::kTable, "Table options",
                "Set in `CREATE TABLE ... WITH ('key' = 'value')`, changed with `ALTER TABLE t "
                "SET ('key' = 'value')`, or given for one statement in a "
                "`/*+ OPTIONS('key' = 'value') */` hint. `<col>` stands for a column name.",
                &out);
  AppendSection(OptionScope::kSession, "Session options",
                "Set in the SQL shell with `SET 'key' = 'value'`; they last until the shell ends.",
                &out);
  AppendSection(OptionScope::kCatalog, "Catalog options",
                "Given in `CREATE CATALOG c WITH ('key' = 'value')`.", &out);
  return out;
}

}  // namespace tributary::options
