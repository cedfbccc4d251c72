// The Parquet schema tree (the flattened SchemaElement list of the footer) seen as top-level
// columns and their leaves with definition/repetition levels, the mapping of flat leaves to
// Tributary types, and the reverse mapping Paimon's writer uses (ParquetSchemaConverter).
// Thread-safety: FileSchema is immutable after Make() and safe to share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/parquet/parquet_metadata.h"
#include "tributary/result.h"
#include "tributary/types.h"

namespace tributary::format::parquet {

// A primitive column of the file (a leaf of the schema tree).
struct LeafColumn {
  std::vector<std::string> path;  // names from the top-level field down, root excluded
  int schema_index = 0;           // index into FileMetaData::schema
  PhysicalType physical_type = PhysicalType::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY
  std::optional<ConvertedType> converted_type;
  std::optional<LogicalType> logical_type;
  int32_t precision = 0;  // DECIMAL (logical type first, then the element's fields)
  int32_t scale = 0;
  std::optional<int32_t> field_id;
  Repetition repetition = Repetition::kOptional;
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  int column = 0;  // index of its top-level column in FileSchema::columns()
};

// A top-level field of the file. Flat columns are one primitive leaf; nested ones (a group:
// struct, list, map; or a repeated primitive) have one or more leaves.
struct ParquetColumn {
  std::string name;
  std::optional<int32_t> field_id;
  int schema_index = 0;  // index of its element in FileMetaData::schema
  bool nested = false;
  int first_leaf = 0;
  int num_leaves = 0;
  // The Tributary type of the column (flat, or nested: see nested.h), when it maps to one;
  // otherwise type_error says why.
  std::optional<DataType> type;
  std::string type_error;
};

class FileSchema {
 public:
  // Builds the tree from the footer's depth-first element list. Malformed trees (child counts
  // past the end, a group without children, a leaf without a physical type) are Corruption.
  static Result<FileSchema> Make(const std::vector<SchemaElement>& elements);

  const std::string& root_name() const { return root_name_; }
  const std::vector<ParquetColumn>& columns() const { return columns_; }
  const std::vector<LeafColumn>& leaves() const { return leaves_; }
  // Index of the top-level column named `name` (or with `field_id`), or -1.
  int FindColumn(const std::string& name) const;
  int FindColumnById(int32_t field_id) const;

 private:
  std::string root_name_;
  std::vector<ParquetColumn> columns_;
  std::vector<LeafColumn> leaves_;
};

// The Tributary type of a flat leaf (nullability from its repetition).
Result<DataType> LeafDataType(const LeafColumn& leaf);

// Paimon's name for the message (root) of the schema.
inline constexpr const char* kPaimonMessageName = "paimon_schema";

// The schema element Paimon's writer produces for a flat table column (nested columns:
// NestedSchemaElements in nested.h).
Result<SchemaElement> ColumnSchemaElement(const Field& field);

// DECIMAL(p, s) with p > 18 is a FIXED_LEN_BYTE_ARRAY of this many bytes (the fewest that hold
// any unscaled value of `precision` digits, as Paimon and Spark size it).
int32_t DecimalFixedLength(int32_t precision);

}  // namespace tributary::format::parquet
