// The running state of aggregate calls (aggregate_state.h): values folded into AggState, value by
// value or a column at a time, and the result read from it.
#include "sql/exec/aggregate_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/datetime.h"
#include "sql/binder/cast.h"
#include "sql/exec/column_keys.h"

namespace tributary::sql {

namespace {

// Bytes of a node of AggState::seen (tree links and colour, the std::string), an allocator
// size class.
constexpr int64_t kSeenEntryBytes = 64;

// The state's rarely needed part, allocated (and added to `*grown`) on first use.
AggState::Rare& RareState(AggState* st, int64_t* grown) {
  if (!st->rare) {
    st->rare = std::make_unique<AggState::Rare>();
    if (grown) *grown += sizeof(AggState::Rare);
  }
  return *st->rare;
}

// st->best = v, adding to `*grown` what that allocates (or frees).
void SetBest(AggState* st, Value v, int64_t* grown) {
  if (grown) *grown += ValueHeapBytes(v) - ValueHeapBytes(st->best);
  st->best = std::move(v);
}

}  // namespace

// Adds the argument value `v` of one row to `st`.
Status AccumulateValue(const AggregateCall& call, Value v, AggState* st, int64_t* grown) {
  if (v.is_null()) return Status::OK();
  if (call.distinct) {
    std::string key;
    AppendKey(v, &key);
    const int64_t bytes = kSeenEntryBytes + StringHeapBytes(key.size());
    if (!RareState(st, grown).seen.insert(std::move(key)).second) return Status::OK();
    if (grown) *grown += bytes;
  }
  ++st->count;
  const std::string& f = call.function;
  if (f == "LISTAGG") {
    std::string& list = RareState(st, grown).list;
    const size_t before = list.capacity();
    if (st->count > 1) list += call.separator;
    list += v.string_value();
    if (grown) *grown += static_cast<int64_t>(list.capacity() - before);
    return Status::OK();
  }
  if (IsVarianceFunction(f)) {
    const double x = v.is_double() ? v.double_value()
                     : v.is_int()  ? static_cast<double>(v.int_value())
                                   : static_cast<double>(v.decimal_value().unscaled) /
                                        std::pow(10.0, call.arg->type.scale);
    AggState::Rare& r = RareState(st, grown);
    const double delta = x - r.mean;
    r.mean += delta / static_cast<double>(st->count);
    r.m2 += delta * (x - r.mean);
    return Status::OK();
  }
  if (f == "SUM" || f == "AVG") {
    if (v.is_int()) {
      st->isum += v.int_value();
    } else if (v.is_double()) {
      st->dsum += v.double_value();
    } else if (v.is_decimal()) {
      st->isum += v.decimal_value().unscaled;
      if (st->isum > Pow10(38) || st->isum < -Pow10(38)) {
        return ErrorAt(call.arg->pos, f + " overflows DECIMAL(38)");
      }
    }
  } else if (f == "FIRST_VALUE") {
    if (st->count == 1) SetBest(st, std::move(v), grown);  // the first value that is not NULL
  } else if (f == "LAST_VALUE") {
    SetBest(st, std::move(v), grown);
  } else if (f == "MIN" || f == "MAX") {
    if (st->best.is_null()) {
      SetBest(st, std::move(v), grown);
    } else {
      int c = CompareSame(v, st->best);
      if ((f == "MIN" && c < 0) || (f == "MAX" && c > 0)) SetBest(st, std::move(v), grown);
    }
  }
  return Status::OK();
}

// Adds every row of `col` (the argument column of `call`) to `st`: integer and floating-point
// columns in tight loops, everything else value by value.
Status AccumulateColumn(const AggregateCall& call, const ColumnVector& col, AggState* st,
                        int64_t* grown) {
  const std::string& f = call.function;
  const size_t n = col.size();
  if (col.rep == ColumnVector::Rep::kInt && col.type.IsInteger() && !call.distinct &&
      !IsVarianceFunction(f) && f != "LISTAGG" && f != "FIRST_VALUE" && f != "LAST_VALUE") {
    int64_t count = 0, lo = INT64_MAX, hi = INT64_MIN;
    __int128 sum = 0;
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      const int64_t v = col.ints[r];
      count++;
      sum += v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (count == 0) return Status::OK();
    st->count += count;
    if (f == "SUM" || f == "AVG") st->isum += sum;
    if (f == "MIN" || f == "MAX") {
      int64_t v = f == "MIN" ? lo : hi;
      if (st->best.is_null() ||
          (f == "MIN" ? v < st->best.int_value() : v > st->best.int_value())) {
        st->best = Value::Int(v);
      }
    }
    return Status::OK();
  }
  if (col.rep == ColumnVector::Rep::kDouble && !call.distinct &&
      (f == "SUM" || f == "AVG" || f == "COUNT")) {
    int64_t count = 0;
    double sum = 0;
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      count++;
      sum += col.doubles[r];
    }
    st->count += count;
    st->dsum += sum;
    return Status::OK();
  }
  for (size_t r = 0; r < n; r++) {
    TRIB_RETURN_NOT_OK(AccumulateValue(call, col.Get(r), st, grown));
  }
  return Status::OK();
}

Status AccumulateGroups(const AggregateCall& call, const ColumnVector& col,
                        const std::vector<uint32_t>& groups, size_t stride, size_t index,
                        std::vector<AggState>* states, int64_t* grown) {
  const std::string& f = call.function;
  const size_t n = col.size();
  auto state = [&](size_t r) -> AggState& { return (*states)[groups[r] * stride + index]; };
  const bool plain = !call.distinct && !IsVarianceFunction(f) && f != "LISTAGG" &&
                     f != "FIRST_VALUE" && f != "LAST_VALUE";
  if (plain && col.rep == ColumnVector::Rep::kInt && col.type.IsInteger()) {
    const bool sum = f == "SUM" || f == "AVG", min = f == "MIN", max = f == "MAX";
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      const int64_t v = col.ints[r];
      AggState& st = state(r);
      ++st.count;
      if (sum) {
        st.isum += v;
      } else if ((min || max) &&
                 (st.best.is_null() || (min ? v < st.best.int_value() : v > st.best.int_value()))) {
        st.best = Value::Int(v);
      }
    }
    return Status::OK();
  }
  if (plain && col.rep == ColumnVector::Rep::kDouble &&
      (f == "SUM" || f == "AVG" || f == "COUNT")) {
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      AggState& st = state(r);
      ++st.count;
      st.dsum += col.doubles[r];
    }
    return Status::OK();
  }
  if (plain && col.rep == ColumnVector::Rep::kString &&
      (f == "MIN" || f == "MAX" || f == "COUNT")) {
    const bool min = f == "MIN", max = f == "MAX";
    for (size_t r = 0; r < n; r++) {
      if (col.IsNull(r)) continue;
      AggState& st = state(r);
      ++st.count;
      if (!min && !max) continue;
      const std::string_view v = col.strings[r];
      if (st.best.is_null() || (min ? v < std::string_view(st.best.string_value())
                                    : v > std::string_view(st.best.string_value()))) {
        SetBest(&st, Value::String(std::string(v)), grown);
      }
    }
    return Status::OK();
  }
  for (size_t r = 0; r < n; r++) {
    TRIB_RETURN_NOT_OK(AccumulateValue(call, col.Get(r), &state(r), grown));
  }
  return Status::OK();
}

Result<Value> Finish(const AggregateCall& call, const AggState& st) {
  const std::string& f = call.function;
  if (f == "COUNT") return Value::Int(st.count);
  if (st.count == 0) return Value::Null();
  // Every state that added a value has its rare part where these aggregates need it.
  if (f == "LISTAGG") return Value::String(st.rare ? st.rare->list : std::string());
  if (IsVarianceFunction(f)) {
    const bool sample = f == "STDDEV_SAMP" || f == "STDDEV" || f == "VAR_SAMP" || f == "VARIANCE";
    if (sample && st.count < 2) return Value::Null();
    const double m2 = st.rare ? st.rare->m2 : 0;
    const double var = m2 / static_cast<double>(sample ? st.count - 1 : st.count);
    return Value::Double(f.rfind("STDDEV", 0) == 0 ? std::sqrt(var) : var);
  }
  if (f == "MIN" || f == "MAX" || f == "FIRST_VALUE" || f == "LAST_VALUE") return st.best;
  const DataType in = call.arg->type;
  if (f == "SUM") {
    if (in.IsFloating()) return Value::Double(st.dsum);
    if (in.id == TypeId::kDecimal) return Value::Dec(Decimal{st.isum});
    if (st.isum > std::numeric_limits<int64_t>::max() ||
        st.isum < std::numeric_limits<int64_t>::min()) {
      return ErrorAt(call.arg->pos, "SUM overflows BIGINT");
    }
    return Value::Int(static_cast<int64_t>(st.isum));
  }
  // AVG
  if (in.IsFloating()) return Value::Double(st.dsum / st.count);
  if (in.id == TypeId::kDecimal) {
    int32_t shift = call.type.scale - in.scale;
    __int128 num = st.isum * Pow10(shift) * 10;
    __int128 q = num / st.count;
    __int128 rem = q % 10;
    q /= 10;
    if (rem >= 5) ++q;
    if (rem <= -5) --q;
    return Value::Dec(Decimal{q});
  }
  return Value::Double(static_cast<double>(st.isum) / static_cast<double>(st.count));
}

}  // namespace tributary::sql
