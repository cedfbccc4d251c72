#include "common/json.h"

#include <utility>
#include <vector>

namespace tributary {
namespace {

void Write(const Json& j, int nesting, std::string* out) {
  if (j.is_object()) {
    if (j.empty()) {
      *out += "{ }";
      return;
    }
    *out += "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) *out += ",";
      first = false;
      *out += "\n" + std::string(2 * (nesting + 1), ' ');
      *out += Json(it.key()).dump();
      *out += " : ";
      Write(it.value(), nesting + 1, out);
    }
    *out += "\n" + std::string(2 * nesting, ' ') + "}";
  } else if (j.is_array()) {
    if (j.empty()) {
      *out += "[ ]";
      return;
    }
    *out += "[ ";
    bool first = true;
    for (const auto& e : j) {
      if (!first) *out += ", ";
      first = false;
      Write(e, nesting, out);  // arrays do not indent (Jackson's inline array indenter)
    }
    *out += " ]";
  } else {
    *out += j.dump();
  }
}

}  // namespace

std::string ToPaimonJson(const Json& j) {
  std::string out;
  Write(j, 0, &out);
  return out;
}

Result<Json> ParseJson(std::string_view text, const std::string& what) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // Re-parse with exceptions only to get the position of the error.
    try {
      Json ignored = Json::parse(text);
      (void)ignored;
    } catch (const std::exception& e) {
      return Status::Corruption(what + " is not valid JSON: " + e.what());
    }
    return Status::Corruption(what + " is not valid JSON");
  }
  Status depth = CheckJsonDepth(j, kMaxJsonDepth);
  if (!depth.ok()) return Status::Corruption(what + ": " + depth.message());
  return j;
}

Status CheckJsonDepth(const Json& root, int max_depth) {
  std::vector<std::pair<const Json*, int>> stack{{&root, 1}};
  while (!stack.empty()) {
    auto [j, depth] = stack.back();
    stack.pop_back();
    if (!j->is_structured()) continue;
    if (depth > max_depth) {
      return Status::Invalid("JSON nested more than " + std::to_string(max_depth) + " levels deep");
    }
    for (const Json& child : *j) stack.push_back({&child, depth + 1});
  }
  return Status::OK();
}

}  // namespace tributary
