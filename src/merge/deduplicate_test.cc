// The deduplicate engine's three faces (merge/deduplicate.h) give the same winners: the row
// merge function, one key's records seen as cells, and sorted runs of integer keys.
#include "merge/deduplicate.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "merge/merge_config.h"
#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

// Random sorted runs: each key at most once per run, sequences increasing run by run but with
// ties across runs (a later run wins them), every row kind.
struct Runs {
  std::vector<std::vector<int64_t>> keys, seqs, kinds;
  std::vector<KeyRun> View() const {
    std::vector<KeyRun> out;
    for (size_t r = 0; r < keys.size(); r++) {
      out.push_back(KeyRun{keys[r].data(), seqs[r].data(), kinds[r].data(), keys[r].size()});
    }
    return out;
  }
};

Runs RandomRuns(std::mt19937* rng, size_t num_runs) {
  Runs runs;
  for (size_t r = 0; r < num_runs; r++) {
    std::vector<int64_t> k, s, kind;
    for (int64_t key = 0; key < 40; key++) {
      if ((*rng)() % 3 != 0) continue;
      k.push_back(key);
      s.push_back(static_cast<int64_t>(r * 2 + (*rng)() % 3));  // ties with the next run
      kind.push_back(static_cast<int64_t>((*rng)() % 4));
    }
    runs.keys.push_back(k);
    runs.seqs.push_back(s);
    runs.kinds.push_back(kind);
  }
  return runs;
}

// The records of one key across runs in merge order (ascending sequence, a later run on ties).
struct Member {
  uint32_t run, pos;
  int64_t seq;
  RowKind kind;
};
struct Group {
  const std::vector<Member>* m;
  size_t size() const { return m->size(); }
  RowKind kind(size_t i) const { return (*m)[i].kind; }
};

TEST(DeduplicateTest, RunsKeyGroupsAndRowMergeAgree) {
  TableSchema schema;
  schema.fields = {{0, "k", DataType::Int().NotNull(), ""}, {1, "run", DataType::Int(), ""}};
  schema.primary_keys = {"k"};
  auto config = MergeConfig::Make(schema);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto fn = MakeMergeFunction(*config, schema);
  ASSERT_TRUE(fn.ok());
  std::mt19937 rng(7);
  for (int round = 0; round < 200; round++) {
    const size_t num_runs = 1 + round % 5;  // two runs take their own path
    const bool keep_retracts = round % 2 == 1;
    const Runs runs = RandomRuns(&rng, num_runs);
    const RunWinners w = DeduplicateRuns(runs.View(), keep_retracts);

    std::map<int64_t, std::vector<Member>> by_key;
    for (uint32_t r = 0; r < num_runs; r++) {
      for (uint32_t p = 0; p < runs.keys[r].size(); p++) {
        by_key[runs.keys[r][p]].push_back(
            {r, p, runs.seqs[r][p], static_cast<RowKind>(runs.kinds[r][p])});
      }
    }
    size_t next = 0;
    for (auto& [key, members] : by_key) {
      std::stable_sort(members.begin(), members.end(),
                       [](const Member& a, const Member& b) { return a.seq < b.seq; });
      const std::optional<size_t> winner =
          DeduplicateWinner(Group{&members}, /*ignore_delete=*/false, keep_retracts);
      // The row merge: its result names the run it came from.
      (*fn)->Reset();
      for (const Member& m : members) {
        KeyValue kv;
        kv.sequence = m.seq;
        kv.kind = m.kind;
        kv.value = {Value::Int(key), Value::Int(m.run * 1000 + m.pos)};
        ASSERT_TRUE((*fn)->Add(kv).ok());
      }
      ASSERT_TRUE((*fn)->Complete().ok());
      const std::optional<KeyValue> merged = (*fn)->Result();
      ASSERT_TRUE(merged.has_value());
      const bool kept = keep_retracts || !IsRetract(merged->kind);
      ASSERT_EQ(kept, winner.has_value()) << "round " << round << " key " << key;
      if (!kept) continue;
      const Member& m = members[*winner];
      EXPECT_EQ(merged->value[1].int_value(), m.run * 1000 + m.pos);
      ASSERT_LT(next, w.size()) << "round " << round;
      EXPECT_EQ(w.run_of[next], m.run) << "round " << round << " key " << key;
      EXPECT_EQ(w.pos_of[next], m.pos) << "round " << round << " key " << key;
      next++;
    }
    EXPECT_EQ(next, w.size()) << "round " << round;
  }
}

TEST(DeduplicateTest, IgnoreDeleteSkipsRetractionsAsIfAbsent) {
  std::vector<Member> members = {{0, 0, 1, RowKind::kInsert}, {0, 1, 2, RowKind::kDelete}};
  EXPECT_EQ(DeduplicateWinner(Group{&members}, /*ignore_delete=*/true, false), 0u);
  EXPECT_EQ(DeduplicateWinner(Group{&members}, /*ignore_delete=*/false, false), std::nullopt);
  EXPECT_EQ(DeduplicateWinner(Group{&members}, /*ignore_delete=*/false, true), 1u);
}

}  // namespace
}  // namespace tributary::merge
