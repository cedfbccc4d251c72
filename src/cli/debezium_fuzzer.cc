// libFuzzer target for the Debezium JSON line decoder of `tributary ingest`: each input is one
// line decoded against a table with a column of every flat type (and an ARRAY and a ROW). A
// malformed line must give an error Status: a crash, a sanitizer report or a timeout is a bug.
// Built only with -DTRIBUTARY_FUZZ=ON and clang (tests/fuzz/run_fuzzers.sh); the normal build
// replays the seed corpus through it.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/debezium.h"
#include "tributary/types.h"

namespace {

const tributary::cli::DebeziumDecoder& Decoder(bool strict) {
  using tributary::DataType;
  using tributary::Field;
  static const std::vector<Field> fields = [] {
    std::vector<Field> f;
    const char* specs[][2] = {{"id", "BIGINT NOT NULL"},
                              {"b", "BOOLEAN"},
                              {"t", "TINYINT"},
                              {"s", "SMALLINT"},
                              {"i", "INT"},
                              {"f", "FLOAT"},
                              {"d", "DOUBLE"},
                              {"dec", "DECIMAL(10, 2)"},
                              {"big", "DECIMAL(30, 5)"},
                              {"str", "STRING"},
                              {"c", "CHAR(3)"},
                              {"bin", "BYTES"},
                              {"dt", "DATE"},
                              {"tm", "TIME(3)"},
                              {"ts", "TIMESTAMP(6)"},
                              {"ltz", "TIMESTAMP_LTZ(3)"},
                              {"arr", "ARRAY<INT>"},
                              {"m", "MAP<STRING, INT>"},
                              {"r", "ROW<x INT, y STRING>"}};
    int id = 0;
    for (const auto& [name, type] : specs) {
      auto t = DataType::Parse(type);
      if (!t.ok()) __builtin_trap();  // the fixed schema must parse
      Field field;
      field.id = id++;
      field.name = name;
      field.type = *t;
      f.push_back(std::move(field));
    }
    return f;
  }();
  static const tributary::cli::DebeziumDecoder lax(fields, false), exact(fields, true);
  return strict ? exact : lax;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  std::vector<tributary::cli::RowChange> out;
  (void)Decoder(false).Decode(line, &out);
  out.clear();
  (void)Decoder(true).Decode(line, &out);
  return 0;
}
