// MergeFunction: how the records of one key combine (the table's merge engine). The same object
// runs in the write buffer, the read path and compaction, so a key reads the same however it was
// merged. Records arrive in merge order (SequenceOrder: oldest first). Each engine's merge
// function lives in its own file beside its column face (merge/deduplicate, first_row,
// aggregate, partial_update); this file makes them and wraps them for lookup tables.
// Not thread-safe: one per reader or writer.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "merge/key_value.h"
#include "merge/merge_config.h"
#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::merge {

class MergeFunction {
 public:
  virtual ~MergeFunction() = default;
  virtual void Reset() = 0;
  // Adds the next record of the current key. Errors for input the engine refuses.
  virtual Status Add(const KeyValue& kv) = 0;
  // The merged record (its kind may be a retraction, meaning the key is gone), or nullopt when
  // the engine keeps nothing.
  virtual std::optional<KeyValue> Result() = 0;
  // Add, taking the record: engines that keep whole records move it instead of copying it.
  virtual Status AddOwned(KeyValue&& kv) { return Add(kv); }
  // Called once after the key's last Add and before Result / TakeResult: a merge that needs
  // more than its records (a lookup below the merged levels) fetches it here, and a merge that
  // defers its work reports its errors here. Every caller calls it.
  virtual Status Complete() { return Status::OK(); }
  // Result for the last time before the next Reset: engines may move the merged record out.
  virtual std::optional<KeyValue> TakeResult() { return Result(); }
  // Turns a record a user wrote into the engine's stored form, once, before it is buffered
  // (e.g. 'count' columns become 1/0 indicators so counts merge as sums).
  virtual void PrepareInput(KeyValue* kv) const {}
};

// The newest record of a key in the levels below those a compaction merges, or nullopt.
// `value`: a record of the key (its key columns are read).
using BelowLookup = std::function<Result<std::optional<KeyValue>>(const Row& value)>;

// Creates the merge function of `config` for `schema`'s columns, for records from any level.
// With `config->lookup_levels` it takes a key's level-0 records and only its newest record above
// level 0 (LookupLevelsMerge, Paimon's LookupMergeFunction); `below` is then asked, in
// Complete, for a key that has level-0 records and no record above level 0 among those merged.
Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(std::shared_ptr<const MergeConfig> config,
                                                         const TableSchema& schema,
                                                         BelowLookup below = nullptr);
// The engine's merge function alone, for records that all come from one write (a write
// buffer), where levels do not apply.
Result<std::unique_ptr<MergeFunction>> MakeEngineMergeFunction(
    std::shared_ptr<const MergeConfig> config, const TableSchema& schema);
// Convenience: parses the schema's options first. REQUIRES: schema has a primary key.
Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const TableSchema& schema);

}  // namespace tributary::merge
