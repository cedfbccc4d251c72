#include "common/predicate.h"

#include <algorithm>

namespace tributary {

bool EvalPredicate(const Predicate& p, const Value& v) {
  using Op = Predicate::Op;
  if (p.op == Op::kIsNull) return v.is_null();
  if (p.op == Op::kIsNotNull) return !v.is_null();
  if (v.is_null()) return false;
  if (p.op == Op::kIn) {
    if (p.sorted) {
      auto it =
          std::lower_bound(p.literals.begin(), p.literals.end(), v,
                           [](const Value& l, const Value& x) { return CompareValues(l, x) < 0; });
      return it != p.literals.end() && CompareValues(*it, v) == 0;
    }
    for (const auto& l : p.literals) {
      if (!l.is_null() && CompareValues(v, l) == 0) return true;
    }
    return false;
  }
  if (p.literals.empty() || p.literals[0].is_null()) return false;
  int c = CompareValues(v, p.literals[0]);
  switch (p.op) {
    case Op::kEq:
      return c == 0;
    case Op::kNe:
      return c != 0;
    case Op::kLt:
      return c < 0;
    case Op::kLe:
      return c <= 0;
    case Op::kGt:
      return c > 0;
    case Op::kGe:
      return c >= 0;
    default:
      return true;
  }
}

bool MayMatchRange(const Predicate& p, const Value& min, const Value& max) {
  using Op = Predicate::Op;
  if (min.is_null() || max.is_null()) return true;
  auto in_range = [&](const Value& l) {
    return !l.is_null() && CompareValues(min, l) <= 0 && CompareValues(l, max) <= 0;
  };
  switch (p.op) {
    case Op::kEq:
      return !p.literals.empty() && in_range(p.literals[0]);
    case Op::kIn:
      if (p.sorted) {
        auto it = std::lower_bound(
            p.literals.begin(), p.literals.end(), min,
            [](const Value& l, const Value& x) { return CompareValues(l, x) < 0; });
        return it != p.literals.end() && CompareValues(*it, max) <= 0;
      }
      for (const auto& l : p.literals) {
        if (in_range(l)) return true;
      }
      return false;
    case Op::kLt:
      return !p.literals.empty() && CompareValues(min, p.literals[0]) < 0;
    case Op::kLe:
      return !p.literals.empty() && CompareValues(min, p.literals[0]) <= 0;
    case Op::kGt:
      return !p.literals.empty() && CompareValues(max, p.literals[0]) > 0;
    case Op::kGe:
      return !p.literals.empty() && CompareValues(max, p.literals[0]) >= 0;
    case Op::kIsNull:
      return true;
    case Op::kNe:
      return !(p.literals.size() == 1 && CompareValues(min, max) == 0 &&
               CompareValues(min, p.literals[0]) == 0);
    case Op::kIsNotNull:
      return true;
  }
  return true;
}

void SortInLists(std::vector<Predicate>* filters) {
  for (Predicate& p : *filters) {
    if (p.op != Predicate::Op::kIn || p.sorted) continue;
    std::vector<Value>& l = p.literals;
    l.erase(std::remove_if(l.begin(), l.end(), [](const Value& v) { return v.is_null(); }),
            l.end());
    std::sort(l.begin(), l.end(),
              [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
    l.erase(std::unique(l.begin(), l.end(),
                        [](const Value& a, const Value& b) { return CompareValues(a, b) == 0; }),
            l.end());
    p.sorted = true;
  }
}

}  // namespace tributary
