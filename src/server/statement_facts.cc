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

StatementFacts FactsOf(const std::string& text, bool union_reads) {
  StatementFacts f;
  f.words = LeadingWords(text, 2);
  f.catalog =
      !f.words.empty() && (f.words[0] == "SELECT" || f.words[0] == "WITH") && ReadsPgCatalog(text);
  const bool setting = PgSettings::IsSettingStatement(text);
  f.job[0] = setting || IsJobStatement(text, false);
  f.job[1] = setting || IsJobStatement(text, true);
  f.query = union_reads && text.size() <= kLongText && IsUnionQuery(text);
  return f;
}

StatementFacts StatementFactsMemo::Get(const std::string& text) const {
  if (auto it = memo_.find(text); it != memo_.end()) return it->second;
  return FactsOf(text, union_reads_);
}

void StatementFactsMemo::Remember(const std::string& text) {
  if (text.size() > kLongText || memo_.count(text)) return;
  if (memo_.size() >= kRemembered) memo_.clear();
  memo_.emplace(text, FactsOf(text, union_reads_));
}

}  // namespace tributary::server
