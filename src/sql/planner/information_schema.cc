#include "sql/planner/information_schema.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "common/strings.h"
#include "options/option_values.h"
#include "tributary/table.h"

namespace tributary::sql {

namespace {

const char* const kTables[] = {"schemata", "tables", "columns", "table_constraints",
                               "key_column_usage"};

Field Text(int32_t id, const char* name, bool nullable = false) {
  return Field{id, name, DataType::String().WithNullable(nullable), ""};
}
Field Number(int32_t id, const char* name, bool nullable = false) {
  return Field{id, name, DataType::Int().WithNullable(nullable), ""};
}

Value Str(const std::string& s) { return Value::String(s); }
Value Num(int64_t n) { return Value::Int(n); }

// Each table of each database, with its latest schema, databases and tables in name order.
struct TableEntry {
  std::string database, table;
  std::shared_ptr<const TableSchema> schema;
};
Result<std::vector<TableEntry>> AllTables(const Catalog& catalog) {
  std::vector<TableEntry> out;
  TRIB_ASSIGN_OR_RETURN(auto databases, catalog.ListDatabases());
  std::sort(databases.begin(), databases.end());
  for (const auto& db : databases) {
    TRIB_ASSIGN_OR_RETURN(auto tables, catalog.ListTables(db));
    std::sort(tables.begin(), tables.end());
    for (const auto& t : tables) {
      auto table = catalog.GetTable(Identifier{db, t, ""});
      if (!table.ok() && table.status().code() == StatusCode::kNotFound) continue;  // dropped
      if (!table.ok()) return table.status();
      out.push_back({db, t, (*table)->schema()});
    }
  }
  return out;
}

// The declared length of a character type, its precision and scale of a numeric one, its
// fractional digits of a time one; null where the type has none.
Value CharLength(const DataType& t) {
  // (STRING, PostgreSQL's text, has no declared length: NULL, as there.)
  if ((t.id == TypeId::kChar || t.id == TypeId::kVarChar) && t.length < kMaxVarLength) {
    return Num(t.length);
  }
  return Value::Null();
}
Value NumericPrecision(const DataType& t) {
  switch (t.id) {
    case TypeId::kTinyInt:
      return Num(3);
    case TypeId::kSmallInt:
      return Num(5);
    case TypeId::kInt:
      return Num(10);
    case TypeId::kBigInt:
      return Num(19);
    case TypeId::kFloat:
      return Num(24);  // binary digits of the mantissa, as PostgreSQL's real
    case TypeId::kDouble:
      return Num(53);
    case TypeId::kDecimal:
      return Num(t.precision);
    default:
      return Value::Null();
  }
}
// The base numeric_precision is counted in: 2 for the floating-point types, 10 for the others.
Value NumericRadix(const DataType& t) {
  if (t.id == TypeId::kFloat || t.id == TypeId::kDouble) return Num(2);
  return NumericPrecision(t).is_null() ? Value::Null() : Num(10);
}
Value NumericScale(const DataType& t) {
  switch (t.id) {
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
      return Num(0);
    case TypeId::kDecimal:
      return Num(t.scale);
    default:
      return Value::Null();
  }
}
Value DatetimePrecision(const DataType& t) {
  switch (t.id) {
    case TypeId::kDate:
      return Num(0);
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      return Num(t.precision);
    default:
      return Value::Null();
  }
}

}  // namespace

bool IsInformationSchema(const std::string& database) {
  return EqualsIgnoreCase(database, "information_schema");
}

Result<SystemTableData> ReadInformationSchema(const Catalog& catalog,
                                              const std::string& catalog_name,
                                              const std::string& table) {
  std::string name = table;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  SystemTableData out;
  if (name == "schemata") {
    out.fields = {Text(0, "catalog_name"), Text(1, "schema_name"), Text(2, "schema_owner")};
    TRIB_ASSIGN_OR_RETURN(auto databases, catalog.ListDatabases());
    std::sort(databases.begin(), databases.end());
    for (const auto& db : databases)
      out.rows.push_back({Str(catalog_name), Str(db), Str("tributary")});
    return out;
  }
  if (name == "tables") {
    out.fields = {Text(0, "table_catalog"),      Text(1, "table_schema"),
                  Text(2, "table_name"),         Text(3, "table_type"),
                  Text(4, "is_insertable_into"), Text(5, "comment", true)};
    TRIB_ASSIGN_OR_RETURN(auto tables, AllTables(catalog));
    for (const auto& t : tables) {
      out.rows.push_back({Str(catalog_name), Str(t.database), Str(t.table), Str("BASE TABLE"),
                          Str("YES"),
                          t.schema->comment.empty() ? Value::Null() : Str(t.schema->comment)});
    }
    return out;
  }
  if (name == "columns") {
    out.fields = {Text(0, "table_catalog"),
                  Text(1, "table_schema"),
                  Text(2, "table_name"),
                  Text(3, "column_name"),
                  Number(4, "ordinal_position"),
                  Text(5, "column_default", true),
                  Text(6, "is_nullable"),
                  Text(7, "data_type"),
                  Number(8, "character_maximum_length", true),
                  Number(9, "numeric_precision", true),
                  Number(10, "numeric_precision_radix", true),
                  Number(11, "numeric_scale", true),
                  Number(12, "datetime_precision", true),
                  Text(13, "comment", true)};
    TRIB_ASSIGN_OR_RETURN(auto tables, AllTables(catalog));
    for (const auto& t : tables) {
      int64_t position = 1;
      for (const Field& f : t.schema->fields) {
        out.rows.push_back({Str(catalog_name), Str(t.database), Str(t.table), Str(f.name),
                            Num(position++), Value::Null(), Str(f.type.nullable ? "YES" : "NO"),
                            Str(f.type.WithNullable(true).ToString()), CharLength(f.type),
                            NumericPrecision(f.type), NumericRadix(f.type), NumericScale(f.type),
                            DatetimePrecision(f.type),
                            f.description.empty() ? Value::Null() : Str(f.description)});
      }
    }
    return out;
  }
  if (name == "table_constraints") {
    out.fields = {Text(0, "constraint_catalog"), Text(1, "constraint_schema"),
                  Text(2, "constraint_name"),    Text(3, "table_catalog"),
                  Text(4, "table_schema"),       Text(5, "table_name"),
                  Text(6, "constraint_type"),    Text(7, "is_deferrable"),
                  Text(8, "initially_deferred"), Text(9, "enforced")};
    TRIB_ASSIGN_OR_RETURN(auto tables, AllTables(catalog));
    for (const auto& t : tables) {
      if (!t.schema->HasPrimaryKey()) continue;
      out.rows.push_back({Str(catalog_name), Str(t.database), Str(t.table + "_pkey"),
                          Str(catalog_name), Str(t.database), Str(t.table), Str("PRIMARY KEY"),
                          Str("NO"), Str("NO"), Str("NO")});
    }
    return out;
  }
  if (name == "key_column_usage") {
    out.fields = {Text(0, "constraint_catalog"), Text(1, "constraint_schema"),
                  Text(2, "constraint_name"),    Text(3, "table_catalog"),
                  Text(4, "table_schema"),       Text(5, "table_name"),
                  Text(6, "column_name"),        Number(7, "ordinal_position")};
    TRIB_ASSIGN_OR_RETURN(auto tables, AllTables(catalog));
    for (const auto& t : tables) {
      int64_t position = 1;
      for (const auto& key : t.schema->primary_keys) {
        out.rows.push_back({Str(catalog_name), Str(t.database), Str(t.table + "_pkey"),
                            Str(catalog_name), Str(t.database), Str(t.table), Str(key),
                            Num(position++)});
      }
    }
    return out;
  }
  std::vector<std::string> known(std::begin(kTables), std::end(kTables));
  std::string message = "information_schema has no table '" + table + "'";
  const std::string close = options::DidYouMean(name, known);
  if (!close.empty()) message += "; did you mean '" + close + "'?";
  message += " (it has schemata, tables, columns, table_constraints and key_column_usage)";
  return Status::NotFound(message);
}

}  // namespace tributary::sql
