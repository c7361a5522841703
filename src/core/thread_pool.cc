#include "core/thread_pool.h"

#include <atomic>

namespace ks {

struct ThreadPool::Job {
  size_t n;
  size_t chunk;
  const std::function<void(size_t, size_t)>* body;
  std::atomic<size_t> next{0};
  unsigned active = 0;  // workers still inside run_chunks (guarded by mutex_)
};

unsigned ThreadPool::online_cpus() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = online_cpus();
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::run_chunks(Job* job) {
  for (;;) {
    const size_t begin = job->next.fetch_add(job->chunk);
    if (begin >= job->n) return;
    const size_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
    (*job->body)(begin, end);
  }
}

void ThreadPool::worker_loop() {
  size_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    Job* job = job_;
    if (job == nullptr) continue;
    ++job->active;
    lock.unlock();
    run_chunks(job);
    lock.lock();
    if (--job->active == 0) done_.notify_all();
  }
}

void ThreadPool::parallel_for(size_t n, size_t min_chunk,
                              const std::function<void(size_t, size_t)>& body) {
  if (n == 0) return;
  if (min_chunk == 0) min_chunk = 1;
  // About four chunks per thread balances uneven items without much traffic.
  size_t chunk = n / (size_t(threads()) * 4);
  if (chunk < min_chunk) chunk = min_chunk;
  if (workers_.empty() || chunk >= n) {
    body(0, n);
    return;
  }
  std::lock_guard<std::mutex> call_lock(call_mutex_);
  Job job;
  job.n = n;
  job.chunk = chunk;
  job.body = &body;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  wake_.notify_all();
  run_chunks(&job);
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = nullptr;  // late wakers see no job
  done_.wait(lock, [&] { return job.active == 0; });
}

}  // namespace ks
