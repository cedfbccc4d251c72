#include "table/test_hooks.h"

namespace tributary::table {

TestHooks& GetTestHooks() {
  static TestHooks hooks;
  return hooks;
}

}  // namespace tributary::table
