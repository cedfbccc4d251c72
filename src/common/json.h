// JSON helpers over nlohmann::ordered_json: the pretty-printed form Paimon's Jackson writer
// produces ("key" : value, 2-space object indent, arrays inline), so our schema and snapshot files
// look like Java's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary {

using Json = nlohmann::ordered_json;

// Jackson DefaultPrettyPrinter layout.
std::string ToPaimonJson(const Json& j);
// Parses JSON text; errors name `what` (usually the file) and the position.
Result<Json> ParseJson(std::string_view text, const std::string& what);

}  // namespace tributary
