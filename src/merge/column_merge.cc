#include "merge/column_merge.h"

#include "merge/merge_config.h"

namespace tributary::merge {

Result<std::optional<ColumnMergePlan>> ColumnMergePlan::Make(const merge::MergeConfig& config,
                                                             const std::vector<Field>& fields,
                                                             bool keep_retracts) {
  ColumnMergePlan plan;
  if (config.IsPlainDeduplicate()) {
    plan.kind_ = Kind::kDeduplicate;
  } else if (config.IsPlainPartialUpdate()) {
    plan.kind_ = Kind::kPartialUpdate;
  } else if (config.IsPlainFirstRow()) {
    plan.kind_ = Kind::kFirstRow;
  } else if (config.IsPlainAggregation()) {
    plan.kind_ = Kind::kAggregate;
  } else {
    return std::optional<ColumnMergePlan>();
  }
  plan.keep_retracts_ = keep_retracts;
  plan.ignore_delete_ = config.ignore_delete;
  plan.fields_ = fields;
  plan.is_key_.assign(fields.size(), false);
  for (int k : config.primary_key) {
    if (k >= 0 && static_cast<size_t>(k) < fields.size()) plan.is_key_[k] = true;
  }
  if (plan.kind_ == Kind::kAggregate) {
    TRIB_ASSIGN_OR_RETURN(AggregateColumns a, AggregateColumns::Make(config, fields));
    plan.aggregate_ = std::move(a);
  }
  return std::optional<ColumnMergePlan>(std::move(plan));
}

void ColumnMergePlan::Start(size_t num_columns, ColumnMergeOutput* out) const {
  *out = ColumnMergeOutput();
  if (kind_ == Kind::kPartialUpdate) out->column_rows.assign(num_columns, {});
  if (kind_ == Kind::kAggregate) {
    out->computed.resize(num_columns);
    for (size_t c = 0; c < num_columns; c++) {
      if (!aggregate_->aggregated(c)) continue;
      ColumnVector v;
      v.type = fields_[c].type;
      v.rep = ColumnVector::RepOf(v.type);
      out->computed[c] = std::move(v);
    }
  }
}

}  // namespace tributary::merge
