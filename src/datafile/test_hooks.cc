#include "datafile/test_hooks.h"

namespace tributary::datafile {

TestHooks& GetTestHooks() {
  static TestHooks hooks;
  return hooks;
}

}  // namespace tributary::datafile
