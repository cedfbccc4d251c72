// Uses only the public headers: opens a warehouse, creates a primary-key table, writes upserts
// and a delete, commits, and scans the merged rows.
//   build/example_api_example /tmp/example-warehouse
#include <cstdio>

#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

using namespace tributary;

static int Fail(const Status& st) {
  std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
  return 1;
}

int main(int argc, char** argv) {
  std::string warehouse = argc > 1 ? argv[1] : "/tmp/tributary-example";
  auto catalog = Catalog::Open(warehouse);
  if (!catalog.ok()) return Fail(catalog.status());

  Identifier id{"default", "orders", ""};
  TableSpec spec;
  spec.columns = {{0, "order_id", DataType::BigInt(), ""},
                  {0, "item", DataType::String(), ""},
                  {0, "amount", DataType::Decimal(10, 2), ""}};
  spec.primary_keys = {"order_id"};
  spec.options = {{"bucket", "2"}};
  if (Status st = (*catalog)->CreateTable(id, spec, /*ignore_if_exists=*/true); !st.ok()) {
    return Fail(st);
  }
  auto table = (*catalog)->GetTable(id);
  if (!table.ok()) return Fail(table.status());

  auto writer = (*table)->NewWriter({});
  if (!writer.ok()) return Fail(writer.status());
  auto row = [](int64_t id, const char* item, int64_t cents) {
    return Row{Value::Int(id), Value::String(item), Value::Dec({cents})};
  };
  for (const Row& r : {row(1, "apple", 250), row(2, "pear", 120), row(1, "apple", 300)}) {
    if (Status st = (*writer)->Write(RowKind::kInsert, r); !st.ok()) return Fail(st);
  }
  if (Status st = (*writer)->Write(RowKind::kDelete, row(2, "pear", 120)); !st.ok()) {
    return Fail(st);
  }
  auto snapshot = (*writer)->Commit();
  if (!snapshot.ok()) return Fail(snapshot.status());
  std::printf("committed snapshot %lld\n", static_cast<long long>(snapshot->value_or(0)));

  auto scan = (*table)->NewScan({});
  if (!scan.ok()) return Fail(scan.status());
  RowBatch batch;
  while (true) {
    auto more = (*scan)->Next(&batch);
    if (!more.ok()) return Fail(more.status());
    if (!*more) break;
    for (const Row& r : batch.rows) {
      std::printf("%s | %s | %s\n", FormatValue(r[0], spec.columns[0].type).c_str(),
                  FormatValue(r[1], spec.columns[1].type).c_str(),
                  FormatValue(r[2], spec.columns[2].type).c_str());
    }
  }
  return 0;
}
