#include "server/union_reads.h"

#include "server/hot_tier.h"
#include "sql/parser/ast.h"
#include "sql/parser/lexer.h"
#include "sql/session/session.h"
#include "tributary/catalog.h"
#include "tributary/table.h"

namespace tributary::server {

namespace {

bool IsQuery(const std::vector<sql::Token>& t) {
  if (!t[0].Is("SELECT") && !t[0].Is("WITH") && !t[0].Is("VALUES")) return false;
  for (const sql::Token& token : t) {
    for (const char* w : {"INSERT", "UPDATE", "DELETE", "MERGE", "CALL", "INTO"}) {
      if (token.Is(w)) return false;
    }
  }
  return true;
}

// The table a whole-row write names (INSERT INTO t SELECT|WITH, UPDATE t SET, DELETE FROM t),
// and whether the write is an UPDATE or DELETE; nullopt for any other statement.
std::optional<std::pair<sql::QualifiedName, bool>> WriteTarget(const std::vector<sql::Token>& t) {
  for (const sql::Token& token : t) {
    if (token.type == sql::TokenType::kHintStart || token.Is("OVERWRITE")) return std::nullopt;
  }
  size_t i = 0;
  bool update_or_delete = false;
  if (t.size() > 2 && t[0].Is("INSERT") && t[1].Is("INTO")) {
    i = 2;
  } else if (t.size() > 1 && t[0].Is("UPDATE")) {
    i = 1;
    update_or_delete = true;
  } else if (t.size() > 2 && t[0].Is("DELETE") && t[1].Is("FROM")) {
    i = 2;
    update_or_delete = true;
  } else {
    return std::nullopt;
  }
  sql::QualifiedName name;
  while (i < t.size() &&
         (t[i].type == sql::TokenType::kWord || t[i].type == sql::TokenType::kQuotedIdentifier)) {
    name.parts.push_back(t[i].text);
    i++;
    if (i < t.size() && t[i].IsSymbol(".")) {
      i++;
    } else {
      break;
    }
  }
  if (name.parts.empty() || i >= t.size()) return std::nullopt;
  const sql::Token& next = t[i];
  const bool whole = t[0].Is("INSERT")   ? next.Is("SELECT") || next.Is("WITH")
                     : t[0].Is("UPDATE") ? next.Is("SET")
                                         : next.Is("WHERE") || next.type == sql::TokenType::kEnd ||
                                               next.IsSymbol(";");
  if (!whole) return std::nullopt;
  return std::make_pair(std::move(name), update_or_delete);
}

}  // namespace

bool ReadsUnion(const std::string& text, const sql::Session& session,
                const std::function<bool(const Table&)>& takes) {
  auto tokens = sql::Tokenize(text);
  if (!tokens.ok() || tokens->empty()) return false;
  if (IsQuery(*tokens)) return true;
  auto target = WriteTarget(*tokens);
  if (!target) return false;
  auto rn = session.ResolveTable(target->first);
  if (!rn.ok() || rn->catalog_name != sql::Session::kDefaultCatalog ||
      !rn->id.system_table.empty() || !rn->id.branch.empty()) {
    return false;
  }
  auto table = rn->catalog->GetTable(rn->id);
  if (!table.ok() || !takes(**table)) return false;
  return !target->second || (*table)->schema()->HasPrimaryKey();
}

bool IsUnionQuery(const std::string& text) {
  auto tokens = sql::Tokenize(text);
  return tokens.ok() && !tokens->empty() && IsQuery(*tokens);
}

std::string UnionReads::Key(const Identifier& id) {
  return id.database + std::string(1, '\0') + id.table;
}

uint64_t UnionReads::Version(const Identifier& id) {
  if (!active_ || tier_ == nullptr) return 0;
  auto it = views_.find(Key(id));
  if (it != views_.end()) return it->second ? it->second->version : 0;
  return tier_->PendingVersion(id);
}

Result<std::optional<read::PendingView>> UnionReads::Pending(const Identifier& id) {
  if (!active_ || tier_ == nullptr) return std::optional<read::PendingView>();
  auto it = views_.find(Key(id));
  if (it != views_.end()) return it->second;
  TRIB_ASSIGN_OR_RETURN(std::optional<read::PendingView> view, tier_->Pending(id));
  views_[Key(id)] = view;
  return view;
}

Status UnionReads::Settle(const Identifier& id) {
  if (!active_ || tier_ == nullptr) return Status::OK();
  return tier_->Settle(id);
}

}  // namespace tributary::server
