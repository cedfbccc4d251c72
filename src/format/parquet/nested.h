// Nested columns (struct, list, map): the tree of a top-level group column with the definition
// and repetition levels of each node, record assembly (leaf levels -> Values) for reading and
// striping (Values -> leaf levels) for writing. Understands the LIST encodings of the Parquet
// spec's backward-compatibility rules (three-level `list`/`element` as parquet-mr and Paimon
// write it, two-level `array`/`<name>_tuple`/repeated primitives) and MAP / MAP_KEY_VALUE.
// Thread-safety: a NestedNode is immutable after it is built; the functions are stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/parquet/column_reader.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/parquet_schema.h"
#include "format/parquet/parquet_values.h"
#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::format::parquet {

struct NestedNode {
  enum class Kind { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  std::string name;
  std::optional<int32_t> field_id;
  bool optional = false;  // the node itself may be null
  int16_t def = 0;        // definition level of a present (non-null) node
  int16_t entry_def = 0;  // kList/kMap: definition level when it holds at least one entry
  int16_t rep = 0;        // kList/kMap: repetition level of its entries
  int leaf = -1;          // kLeaf: index into FileSchema::leaves()
  int first_leaf = 0;     // the leaves under the node: [first_leaf, end_leaf)
  int end_leaf = 0;
  std::vector<NestedNode> children;  // kStruct: fields; kList: element; kMap: key, value
  DataType type;                     // its Tributary type (nullable = optional)
};

// The tree of top-level column `column` of `schema` (built from the footer's `elements`).
// Unsupported shapes (a LIST group whose child is not repeated, a MAP without key) and leaves
// without a Tributary type are NotSupported.
Result<NestedNode> BuildNestedNode(const std::vector<SchemaElement>& elements,
                                   const FileSchema& schema, int column);

// Gives every node the type of `type` (the table's type of the column: same shape), so the
// writer converts leaf values with the table's types rather than the ones read back.
Status ApplyNestedType(const DataType& type, NestedNode* node);

// The schema elements Paimon writes for a column of nested type `field.type` (depth-first, the
// column's group first): LIST groups `list`/`element`, MAP groups `key_value`/`key`/`value`,
// ROW groups of their fields; list elements and map keys/values carry Paimon's synthetic field
// ids (SpecialFields: 536870911 +- 1024 * parent field id +- depth).
Result<std::vector<SchemaElement>> NestedSchemaElements(const Field& field);

// Record assembly: the column's value in each row of a row group from its leaves' chunks.
// `chunks` and `converters` are indexed by leaf - root.first_leaf. Levels that do not describe
// `num_rows` well-formed rows give Corruption.
Result<std::vector<Value>> AssembleNested(const NestedNode& root,
                                          const std::vector<ColumnChunkData>& chunks,
                                          const std::vector<ValueConverter>& converters,
                                          int64_t num_rows);

// One leaf's level entries of one row (striping output). `values` holds the present values
// only (entries whose definition level is the leaf's maximum).
struct LeafLevels {
  std::vector<int16_t> defs;
  std::vector<int16_t> reps;
  std::vector<Value> values;
  void clear() {
    defs.clear();
    reps.clear();
    values.clear();
  }
};

// Striping: appends the levels of `v` (one row's value of the column) to `out`, indexed by
// leaf - root.first_leaf. A NULL where the type is NOT NULL, or a value of the wrong shape, is
// Invalid (`out` may then hold a partial row; callers discard it).
Status ShredNested(const NestedNode& root, const Value& v, std::vector<LeafLevels>* out);

}  // namespace tributary::format::parquet
