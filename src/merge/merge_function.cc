#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

// deduplicate: the last record wins; a retraction as the last record removes the key.
class DeduplicateMergeFunction : public MergeFunction {
 public:
  explicit DeduplicateMergeFunction(bool ignore_delete) : ignore_delete_(ignore_delete) {}
  void Reset() override { latest_.reset(); }
  Status Add(const KeyValue& kv) override {
    if (ignore_delete_ && IsRetract(kv.kind)) return Status::OK();
    latest_ = kv;
    return Status::OK();
  }
  std::optional<KeyValue> Result() override { return latest_; }

 private:
  bool ignore_delete_;
  std::optional<KeyValue> latest_;
};

bool OptionTrue(const TableSchema& s, const char* key) {
  auto v = s.Option(key);
  return v && (*v == "true" || *v == "TRUE" || *v == "True");
}

}  // namespace

Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const TableSchema& schema) {
  std::string engine = schema.Option("merge-engine").value_or("deduplicate");
  if (engine == "deduplicate") {
    bool ignore = OptionTrue(schema, "ignore-delete") ||
                  OptionTrue(schema, "deduplicate.ignore-delete");
    return std::unique_ptr<MergeFunction>(new DeduplicateMergeFunction(ignore));
  }
  return Status::NotSupported("merge engine '" + engine +
                              "' is not implemented yet (only 'deduplicate' is)");
}

}  // namespace tributary::merge
