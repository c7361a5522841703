// A fixed pool of worker threads for batch APIs. parallel_for splits [0, n)
// into chunks that the workers and the calling thread take in turn. Several
// threads may call parallel_for on one pool at once: calls are queued.
#ifndef KS_CORE_THREAD_POOL_H_
#define KS_CORE_THREAD_POOL_H_

#include <stddef.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ks {

class ThreadPool {
 public:
  // threads = total threads that work on a call, the caller included;
  // 0 means one per online CPU. Throws std::system_error when the OS will
  // not create them (having stopped the ones it did).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return unsigned(workers_.size()) + 1; }

  // Calls body(begin, end) on disjoint chunks covering [0, n), each at least
  // min_chunk items (except the last), and returns when all are done. If a
  // chunk throws, no further chunks start and the first exception is
  // rethrown here once every thread has left the body.
  void parallel_for(size_t n, size_t min_chunk,
                    const std::function<void(size_t, size_t)>& body);

  static unsigned online_cpus();

 private:
  struct Job;
  void worker_loop();
  void stop_workers();
  static void run_chunks(Job* job);

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // one parallel_for at a time uses the workers
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  size_t generation_ = 0;
  bool stopping_ = false;
};

}  // namespace ks

#endif  // KS_CORE_THREAD_POOL_H_
