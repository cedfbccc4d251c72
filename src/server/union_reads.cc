#include "server/union_reads.h"

#include "server/hot_tier.h"

namespace tributary::server {

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
