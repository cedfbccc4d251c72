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
  // A query that reads the hot tier too (IsUnionQuery), asked only with `union_reads` (a server
  // with a hot tier) and of a text of up to 4 KiB; ReadsUnion decides the others.
  bool query = false;
};

StatementFacts FactsOf(const std::string& text, bool union_reads);

// FactsOf, remembered for the texts of a connection's prepared statements (Remember, at Parse:
// at most 256 texts of up to 4 KiB; the 257th starts the memo again).
class StatementFactsMemo {
 public:
  explicit StatementFactsMemo(bool union_reads) : union_reads_(union_reads) {}
  // What was remembered of `text`, else FactsOf it (not remembered).
  StatementFacts Get(const std::string& text) const;
  void Remember(const std::string& text);

 private:
  bool union_reads_;
  std::unordered_map<std::string, StatementFacts> memo_;
};

}  // namespace tributary::server
