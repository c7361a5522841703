// The forced items per thread of testing/sm2_gpu_testing.h's wrappers
// (host state only: also built without CUDA).
#include <atomic>

#include "testing/sm2_gpu_testing.h"

namespace ks {
namespace sm2 {
namespace gpu {
namespace {

std::atomic<int> g_items_per_thread{0};

}  // namespace

void set_items_per_thread(int m) {
  g_items_per_thread.store(m == 1 || m == 2 || m == 4 || m == 8 ? m : 0);
}

int forced_items_per_thread() { return g_items_per_thread.load(); }

}  // namespace gpu
}  // namespace sm2
}  // namespace ks
