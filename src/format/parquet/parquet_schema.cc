#include "format/parquet/parquet_schema.h"

namespace tributary::format::parquet {

namespace {

constexpr int kMaxSchemaDepth = 64;

struct Builder {
  const std::vector<SchemaElement>& elements;
  std::vector<LeafColumn>* leaves;
  size_t next = 1;  // element 0 is the root

  // Consumes the subtree at `next`; `path`, levels are those of the parent.
  Status Visit(std::vector<std::string>* path, int16_t def, int16_t rep, int column, int depth) {
    if (depth > kMaxSchemaDepth) return Status::Corruption("parquet schema: nested too deeply");
    if (next >= elements.size()) {
      return Status::Corruption("parquet schema: child count runs past the element list");
    }
    size_t index = next++;
    const SchemaElement& e = elements[index];
    Repetition r = e.repetition_type.value_or(Repetition::kOptional);
    if (r == Repetition::kOptional) ++def;
    if (r == Repetition::kRepeated) {
      ++def;
      ++rep;
    }
    path->push_back(e.name);
    int32_t children = e.num_children.value_or(0);
    if (e.num_children.has_value() && !e.type.has_value()) {
      if (children <= 0)
        return Status::Corruption("parquet schema: group '" + e.name + "' is empty");
      if (static_cast<size_t>(children) > elements.size() - next) {
        return Status::Corruption("parquet schema: child count runs past the element list");
      }
      for (int32_t i = 0; i < children; ++i) {
        TRIB_RETURN_NOT_OK(Visit(path, def, rep, column, depth + 1));
      }
    } else {
      if (!e.type.has_value()) {
        return Status::Corruption("parquet schema: leaf '" + e.name + "' has no type");
      }
      int32_t t = static_cast<int32_t>(*e.type);
      if (t < 0 || t > static_cast<int32_t>(PhysicalType::kFixedLenByteArray)) {
        return Status::Corruption("parquet schema: unknown physical type " + std::to_string(t));
      }
      LeafColumn leaf;
      leaf.path = *path;
      leaf.schema_index = static_cast<int>(index);
      leaf.physical_type = *e.type;
      leaf.type_length = e.type_length.value_or(0);
      if (leaf.physical_type == PhysicalType::kFixedLenByteArray && leaf.type_length <= 0) {
        return Status::Corruption("parquet schema: FIXED_LEN_BYTE_ARRAY '" + e.name +
                                  "' without a positive length");
      }
      leaf.converted_type = e.converted_type;
      leaf.logical_type = e.logical_type;
      if (e.logical_type && e.logical_type->kind == LogicalType::kDecimal) {
        leaf.precision = e.logical_type->precision;
        leaf.scale = e.logical_type->scale;
      } else {
        leaf.precision = e.precision.value_or(0);
        leaf.scale = e.scale.value_or(0);
      }
      leaf.field_id = e.field_id;
      leaf.repetition = r;
      leaf.max_def_level = def;
      leaf.max_rep_level = rep;
      leaf.column = column;
      leaves->push_back(std::move(leaf));
    }
    path->pop_back();
    return Status::OK();
  }
};

bool IsDecimal(const LeafColumn& leaf) {
  if (leaf.logical_type && leaf.logical_type->kind == LogicalType::kDecimal) return true;
  return leaf.converted_type == ConvertedType::kDecimal;
}

Result<DataType> DecimalType(const LeafColumn& leaf) {
  if (leaf.precision < 1 || leaf.precision > 38 || leaf.scale < 0 || leaf.scale > leaf.precision) {
    return Status::NotSupported("DECIMAL(" + std::to_string(leaf.precision) + ", " +
                                std::to_string(leaf.scale) + ") is outside DECIMAL(1..38, s)");
  }
  if (leaf.physical_type == PhysicalType::kFixedLenByteArray && leaf.type_length > 16) {
    return Status::NotSupported("DECIMAL stored in more than 16 bytes");
  }
  return DataType::Decimal(leaf.precision, leaf.scale);
}

Result<DataType> MapLeaf(const LeafColumn& leaf) {
  const LogicalType* lt = leaf.logical_type ? &*leaf.logical_type : nullptr;
  std::optional<ConvertedType> ct = leaf.converted_type;
  auto kind_is = [&](LogicalType::Kind k) { return lt != nullptr && lt->kind == k; };
  switch (leaf.physical_type) {
    case PhysicalType::kBoolean:
      return DataType::Boolean();
    case PhysicalType::kInt32: {
      if (IsDecimal(leaf)) return DecimalType(leaf);
      if (kind_is(LogicalType::kDate) || ct == ConvertedType::kDate) return DataType::Date();
      if (kind_is(LogicalType::kTime)) {
        if (lt->unit != TimeUnit::kMillis) return Status::NotSupported("INT32 TIME not in millis");
        return DataType::Time(3);
      }
      if (ct == ConvertedType::kTimeMillis) return DataType::Time(3);
      int bits = 32;
      bool is_signed = true;
      if (kind_is(LogicalType::kInteger)) {
        bits = lt->bit_width;
        is_signed = lt->is_signed;
      } else if (ct) {
        switch (*ct) {
          case ConvertedType::kInt8:
            bits = 8;
            break;
          case ConvertedType::kInt16:
            bits = 16;
            break;
          case ConvertedType::kUint8:
            bits = 8;
            is_signed = false;
            break;
          case ConvertedType::kUint16:
            bits = 16;
            is_signed = false;
            break;
          case ConvertedType::kUint32:
            bits = 32;
            is_signed = false;
            break;
          default:
            break;
        }
      }
      if (bits == 8) return is_signed ? DataType::TinyInt() : DataType::SmallInt();
      if (bits == 16) return is_signed ? DataType::SmallInt() : DataType::Int();
      return is_signed ? DataType::Int() : DataType::BigInt();
    }
    case PhysicalType::kInt64: {
      if (IsDecimal(leaf)) return DecimalType(leaf);
      if (kind_is(LogicalType::kTimestamp)) {
        int p = lt->unit == TimeUnit::kMillis ? 3 : lt->unit == TimeUnit::kMicros ? 6 : 9;
        return lt->is_adjusted_to_utc ? DataType::TimestampLtz(p) : DataType::Timestamp(p);
      }
      if (kind_is(LogicalType::kTime)) {
        return DataType::Time(lt->unit == TimeUnit::kMicros ? 6 : 9);
      }
      // Legacy converted types: TIMESTAMP_* meant an instant (UTC-adjusted).
      if (ct == ConvertedType::kTimestampMillis) return DataType::TimestampLtz(3);
      if (ct == ConvertedType::kTimestampMicros) return DataType::TimestampLtz(6);
      if (ct == ConvertedType::kTimeMicros) return DataType::Time(6);
      bool is_unsigned =
          (kind_is(LogicalType::kInteger) && !lt->is_signed) || ct == ConvertedType::kUint64;
      if (is_unsigned) return DataType::Decimal(20, 0);
      return DataType::BigInt();
    }
    case PhysicalType::kInt96:
      return DataType::Timestamp(9);
    case PhysicalType::kFloat:
      return DataType::Float();
    case PhysicalType::kDouble:
      return DataType::Double();
    case PhysicalType::kByteArray:
      if (IsDecimal(leaf)) return DecimalType(leaf);
      if (kind_is(LogicalType::kString) || kind_is(LogicalType::kEnum) ||
          kind_is(LogicalType::kJson) || ct == ConvertedType::kUtf8 || ct == ConvertedType::kEnum ||
          ct == ConvertedType::kJson) {
        return DataType::String();
      }
      return DataType::Bytes();
    case PhysicalType::kFixedLenByteArray:
      if (IsDecimal(leaf)) return DecimalType(leaf);
      return DataType{TypeId::kBinary, true, leaf.type_length};
  }
  return Status::NotSupported("unknown physical type");
}

}  // namespace

Result<FileSchema> FileSchema::Make(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return Status::Corruption("parquet schema: no elements");
  FileSchema s;
  s.root_name_ = elements[0].name;
  int32_t top = elements[0].num_children.value_or(0);
  if (top < 0 || static_cast<size_t>(top) > elements.size() - 1) {
    return Status::Corruption("parquet schema: bad root child count");
  }
  Builder b{elements, &s.leaves_};
  for (int32_t i = 0; i < top; ++i) {
    ParquetColumn col;
    const SchemaElement& e = elements[b.next < elements.size() ? b.next : 0];
    col.name = e.name;
    col.field_id = e.field_id;
    col.schema_index = static_cast<int>(b.next < elements.size() ? b.next : 0);
    col.first_leaf = static_cast<int>(s.leaves_.size());
    std::vector<std::string> path;
    TRIB_RETURN_NOT_OK(b.Visit(&path, 0, 0, i, 1));
    col.num_leaves = static_cast<int>(s.leaves_.size()) - col.first_leaf;
    const LeafColumn& first = s.leaves_[col.first_leaf];
    col.nested =
        col.num_leaves != 1 || first.path.size() != 1 || first.repetition == Repetition::kRepeated;
    if (col.nested) {
      // Typed by the reader (nested.h), which needs the whole tree.
      col.type_error = "nested column '" + col.name + "' has an unsupported shape";
    } else {
      Result<DataType> t = LeafDataType(first);
      if (t.ok()) {
        col.type = *t;
      } else {
        col.type_error = t.status().message();
      }
    }
    s.columns_.push_back(std::move(col));
  }
  if (b.next != elements.size()) {
    return Status::Corruption("parquet schema: elements left after the root's children");
  }
  return s;
}

int FileSchema::FindColumn(const std::string& name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int FileSchema::FindColumnById(int32_t field_id) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].field_id == field_id) return static_cast<int>(i);
  }
  return -1;
}

Result<DataType> LeafDataType(const LeafColumn& leaf) {
  TRIB_ASSIGN_OR_RETURN(DataType t, MapLeaf(leaf));
  t.nullable = leaf.repetition != Repetition::kRequired;
  return t;
}

int32_t DecimalFixedLength(int32_t precision) {
  // Smallest n with 2^(8n-1) > 10^precision - 1.
  __int128 max_unscaled = 1;
  for (int i = 0; i < precision; ++i) max_unscaled *= 10;
  max_unscaled -= 1;
  for (int32_t n = 1; n <= 16; ++n) {
    __int128 limit = static_cast<__int128>(1) << (8 * n - 1);
    if (n == 16 || max_unscaled < limit) return n;
  }
  return 16;
}

Result<SchemaElement> ColumnSchemaElement(const Field& field) {
  SchemaElement e;
  e.name = field.name;
  e.field_id = field.id;
  e.repetition_type = field.type.nullable ? Repetition::kOptional : Repetition::kRequired;
  const DataType& t = field.type;
  auto logical = [&](LogicalType::Kind kind) {
    LogicalType lt;
    lt.kind = kind;
    return lt;
  };
  switch (t.id) {
    case TypeId::kBoolean:
      e.type = PhysicalType::kBoolean;
      break;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt: {
      e.type = PhysicalType::kInt32;
      LogicalType lt = logical(LogicalType::kInteger);
      lt.bit_width = t.id == TypeId::kTinyInt ? 8 : 16;
      lt.is_signed = true;
      e.logical_type = lt;
      e.converted_type = t.id == TypeId::kTinyInt ? ConvertedType::kInt8 : ConvertedType::kInt16;
      break;
    }
    case TypeId::kInt:
      e.type = PhysicalType::kInt32;
      break;
    case TypeId::kBigInt:
      e.type = PhysicalType::kInt64;
      break;
    case TypeId::kFloat:
      e.type = PhysicalType::kFloat;
      break;
    case TypeId::kDouble:
      e.type = PhysicalType::kDouble;
      break;
    case TypeId::kDecimal: {
      if (t.precision < 1 || t.precision > 38) {
        return Status::Invalid("DECIMAL precision must be 1..38, got " +
                               std::to_string(t.precision));
      }
      if (t.precision <= 9) {
        e.type = PhysicalType::kInt32;
      } else if (t.precision <= 18) {
        e.type = PhysicalType::kInt64;
      } else {
        e.type = PhysicalType::kFixedLenByteArray;
        e.type_length = DecimalFixedLength(t.precision);
      }
      LogicalType lt = logical(LogicalType::kDecimal);
      lt.precision = t.precision;
      lt.scale = t.scale;
      e.logical_type = lt;
      e.converted_type = ConvertedType::kDecimal;
      e.precision = t.precision;
      e.scale = t.scale;
      break;
    }
    case TypeId::kChar:
    case TypeId::kVarChar:
      e.type = PhysicalType::kByteArray;
      e.logical_type = logical(LogicalType::kString);
      e.converted_type = ConvertedType::kUtf8;
      break;
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      e.type = PhysicalType::kByteArray;
      break;
    case TypeId::kDate:
      e.type = PhysicalType::kInt32;
      e.logical_type = logical(LogicalType::kDate);
      e.converted_type = ConvertedType::kDate;
      break;
    case TypeId::kTime: {
      e.type = PhysicalType::kInt32;
      LogicalType lt = logical(LogicalType::kTime);
      lt.is_adjusted_to_utc = true;
      lt.unit = TimeUnit::kMillis;
      e.logical_type = lt;
      e.converted_type = ConvertedType::kTimeMillis;
      break;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      bool utc = t.id == TypeId::kTimestampLtz;
      if (t.precision > 6) {
        e.type = PhysicalType::kInt96;  // as Paimon writes precision 7..9
        break;
      }
      e.type = PhysicalType::kInt64;
      LogicalType lt = logical(LogicalType::kTimestamp);
      lt.is_adjusted_to_utc = utc;
      lt.unit = t.precision <= 3 ? TimeUnit::kMillis : TimeUnit::kMicros;
      e.logical_type = lt;
      // parquet-mr writes the legacy converted type whatever the UTC flag (golden files).
      e.converted_type =
          t.precision <= 3 ? ConvertedType::kTimestampMillis : ConvertedType::kTimestampMicros;
      break;
    }
    case TypeId::kArray:
    case TypeId::kMultiset:
    case TypeId::kMap:
    case TypeId::kRow:
      return Status::Invalid("column '" + field.name + "' is nested (" + t.ToString() +
                             "): it has several schema elements");
  }
  return e;
}

}  // namespace tributary::format::parquet
