// Uses only the public headers: SQL from a C++ program (include/tributary/sql.h). Creates a
// primary-key table, inserts rows, updates one, then reads a key through a prepared statement and
// the table through a query.
//   build/example_sql_example /tmp/example-sql-warehouse
#include <cstdio>

#include "tributary/sql.h"

using namespace tributary;

static int Fail(const Status& st) {
  std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
  return 1;
}

int main(int argc, char** argv) {
  std::string warehouse = argc > 1 ? argv[1] : "/tmp/tributary-sql-example";
  auto session = SqlSession::Open(warehouse);
  if (!session.ok()) return Fail(session.status());
  for (const char* statement :
       {"CREATE TABLE IF NOT EXISTS fruit (id BIGINT, name STRING, price DECIMAL(10, 2), "
        "PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2')",
        "INSERT INTO fruit VALUES (1, 'apple', 2.50), (2, 'pear', 1.20), (3, 'plum', 0.80)",
        "UPDATE fruit SET price = 3.00 WHERE id = 1"}) {
    auto done = (*session)->Execute(statement);
    if (!done.ok()) return Fail(done.status());
    std::printf("%s\n", done->message().c_str());
  }
  // A point lookup by the whole key: planned once, run with each value.
  auto by_id = (*session)->Prepare("SELECT name, price FROM fruit WHERE id = ?");
  if (!by_id.ok()) return Fail(by_id.status());
  for (int64_t id : {1, 4}) {
    auto result = (*by_id)->Execute({Value::Int(id)});
    if (!result.ok()) return Fail(result.status());
    auto rows = result->ReadAll();
    if (!rows.ok()) return Fail(rows.status());
    if (rows->empty()) std::printf("id %lld: none\n", static_cast<long long>(id));
    for (const Row& r : *rows) {
      std::printf("id %lld: %s %s\n", static_cast<long long>(id), r[0].string_value().c_str(),
                  FormatValue(r[1], DataType::Decimal(10, 2)).c_str());
    }
  }
  // A query's rows come in column batches.
  auto query = (*session)->Execute("SELECT COUNT(*) AS n, SUM(price) AS total FROM fruit");
  if (!query.ok()) return Fail(query.status());
  ColumnBatch batch;
  while (true) {
    auto more = query->Next(&batch);
    if (!more.ok()) return Fail(more.status());
    if (!*more) break;
    for (size_t r = 0; r < batch.num_rows; r++) {
      std::printf("%s = %s, %s = %s\n", query->fields()[0].name.c_str(),
                  FormatValue(batch.columns[0].Get(r), query->fields()[0].type).c_str(),
                  query->fields()[1].name.c_str(),
                  FormatValue(batch.columns[1].Get(r), query->fields()[1].type).c_str());
    }
  }
  return 0;
}
