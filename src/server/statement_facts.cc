#include "server/statement_facts.h"

#include "server/jobs.h"
#include "server/pg_catalog.h"
#include "server/pg_settings.h"
#include "server/tags.h"
#include "server/union_reads.h"

namespace tributary::server {

namespace {
constexpr size_t kLongText = 4096;
constexpr size_t kRemembered = 256;
}  // namespace

StatementFacts FactsOf(const std::string& text) {
  StatementFacts f;
  f.words = LeadingWords(text, 2);
  f.catalog =
      !f.words.empty() && (f.words[0] == "SELECT" || f.words[0] == "WITH") && ReadsPgCatalog(text);
  const bool setting = PgSettings::IsSettingStatement(text);
  f.job[0] = setting || IsJobStatement(text, false);
  f.job[1] = setting || IsJobStatement(text, true);
  f.query = text.size() <= kLongText && IsUnionQuery(text);
  return f;
}

StatementFacts StatementFactsMemo::Get(const std::string& text) {
  if (auto it = memo_.find(text); it != memo_.end()) return it->second;
  StatementFacts f = FactsOf(text);
  if (text.size() > kLongText) return f;
  if (memo_.size() >= kRemembered) memo_.clear();
  memo_.emplace(text, f);
  return f;
}

}  // namespace tributary::server
