// Evaluation of scan predicates on values and on [min, max] statistics ranges.
#pragma once

#include "tributary/table.h"

namespace tributary {

// SQL semantics: a comparison with NULL is not satisfied.
bool EvalPredicate(const Predicate& p, const Value& v);
// Whether some value in [min, max] (NULL bounds mean unknown) could satisfy `p`.
bool MayMatchRange(const Predicate& p, const Value& min, const Value& max);
// Sorts the literals of every IN predicate (NULLs and duplicates dropped: neither changes what
// matches) and marks them sorted, so each value is checked by binary search.
void SortInLists(std::vector<Predicate>* filters);

}  // namespace tributary
