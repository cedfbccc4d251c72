// MergeFunction: how the records of one key combine (the table's merge engine). The same object
// runs in the write buffer, the read path and compaction, so a key reads the same however it was
// merged. Records arrive in merge order (ascending sequence). Not thread-safe: one per reader.
#pragma once

#include <memory>
#include <optional>

#include "merge/key_value.h"
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
};

// Creates the merge function the table's options ask for.
// REQUIRES: schema has a primary key.
Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const TableSchema& schema);

}  // namespace tributary::merge
