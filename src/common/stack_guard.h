// A backstop for recursion over untrusted input (nested queries and expressions, JSON, Avro
// schemas): a clear error while the calling thread still has stack to spare, instead of a crash.
// Each recursive path also has its own depth limit, which gives the error users normally see;
// this check catches what a limit sized for a release build misses (sanitizer builds, small
// thread stacks), as PostgreSQL's check_stack_depth does. Thread-safe.
#pragma once

#include "tributary/status.h"

namespace tributary {

// Invalid("<what> nested too deeply ...") once less than a safety margin of the calling
// thread's stack is left; OK otherwise. Cheap: a thread-local read and a comparison.
Status CheckStackDepth(const char* what);

}  // namespace tributary
