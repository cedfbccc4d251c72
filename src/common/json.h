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
// Also refuses documents nested deeper than kMaxJsonDepth (our readers walk them recursively).
Result<Json> ParseJson(std::string_view text, const std::string& what);

// Metadata JSON (schemas, snapshots) is never nested this deep.
inline constexpr int kMaxJsonDepth = 128;
// Invalid when `j` has arrays or objects nested more than `max_depth` levels (a scalar or an
// empty-free top level is depth 1). Iterative: safe on any document nlohmann parsed.
Status CheckJsonDepth(const Json& j, int max_depth);

}  // namespace tributary
