// Debian and Ubuntu build abseil without NDEBUG, which leaves absl::Mutex's
// deadlock detection on: every lock of every gRPC mutex then updates one
// process-wide lock-order graph under one global spin lock (perf on
// kuaisuo-grpcd: absl GraphCycles::GetId among the top symbols). That
// check is for debugging lock order, not for a server in production; both
// binaries switch it off before gRPC starts. Where gRPC came without
// abseil's CMake targets (KS_GRPCD_ABSL unset) there is nothing to switch.
#ifndef KUAISUO_SERVE_GRPCD_MUTEX_MODE_H_
#define KUAISUO_SERVE_GRPCD_MUTEX_MODE_H_

#ifdef KS_GRPCD_ABSL
#include <absl/synchronization/mutex.h>
#endif

namespace kuaisuo::serve {

inline void release_mode_mutexes() {
#ifdef KS_GRPCD_ABSL
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

}  // namespace kuaisuo::serve

#endif  // KUAISUO_SERVE_GRPCD_MUTEX_MODE_H_
