// Table values in Avro data files, as Paimon's Avro format writes them: the record schema of a
// data file (AvroSchemaConverter's names and types), and each value to and from its Avro datum.
// Thread-safety: stateless functions.
#pragma once

#include <string>
#include <vector>

#include "format/avro.h"
#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary::avro {

// The record schema of a data file whose columns are `fields`, in order (nullable columns as
// unions with null; nested rows named "<record>_<field>" as Paimon names them).
Result<SchemaPtr> PaimonRecordSchema(const std::vector<Field>& fields);

// `v` (a value of type `t`) as the datum PaimonRecordSchema's column of type `t` holds.
Datum ToDatum(const Value& v, const DataType& t);
// The value of type `t` a datum holds; `what` names the column in errors (a datum of another
// shape, an integer out of the type's range).
Result<Value> FromDatum(const Datum& d, const DataType& t, const std::string& what);

}  // namespace tributary::avro
