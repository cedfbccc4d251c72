#include "common/stack_guard.h"

#include <pthread.h>

#include <cstdint>
#include <string>

namespace tributary {
namespace {

// Left unused below the deepest frame: room for the error path and for library calls.
constexpr uintptr_t kMargin = 512 * 1024;

// The lowest usable address of the calling thread's stack (stacks grow down), or 0 if unknown.
uintptr_t StackLimit() {
  thread_local uintptr_t limit = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    void* addr = nullptr;
    size_t size = 0;
    uintptr_t low = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 2 * kMargin) {
      low = reinterpret_cast<uintptr_t>(addr) + kMargin;
    }
    pthread_attr_destroy(&attr);
    return low;
  }();
  return limit;
}

}  // namespace

Status CheckStackDepth(const char* what) {
  const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  const uintptr_t limit = StackLimit();
  if (limit == 0 || here > limit) return Status::OK();
  return Status::Invalid(std::string(what) + " nested too deeply (the stack is nearly used up)");
}

}  // namespace tributary
