// What the text of a statement alone says of it, as a connection of `tributary serve` routes it
// (docs/server.md): its leading words, whether it queries PostgreSQL's catalog, is a job or a
// setting statement, or a query that reads the hot tier with the lake. A connection remembers
// them for the texts of its prepared statements, which run many times.
// Thread-safety: a StatementFactsMemo is one connection's.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace tributary::server {

struct StatementFacts {
  std::vector<std::string> words;  // the first two (LeadingWords)
  bool catalog = false;            // a query of PostgreSQL's catalog (a SELECT naming pg_catalog)
  bool job[2] = {};                // a job or setting statement, in batch / streaming mode
  // A query that reads the hot tier too (IsUnionQuery); false for a text longer than 4 KiB,
  // left to ReadsUnion (an INSERT's long VALUES list is not tokenized twice).
  bool query = false;
};

StatementFacts FactsOf(const std::string& text);

// FactsOf, remembered for at most 256 texts of up to 4 KiB.
class StatementFactsMemo {
 public:
  StatementFacts Get(const std::string& text);

 private:
  std::unordered_map<std::string, StatementFacts> memo_;
};

}  // namespace tributary::server
