// A page-locked buffer from ks_host_alloc (GPU batches copy straight from
// it), grown on demand and reused for every batch of one thread: the
// engines' gather buffers (row_batcher.cc) and kuaisuo-grpc-load --library.
#ifndef KUAISUO_SERVE_GRPCD_HOST_BUFFER_H_
#define KUAISUO_SERVE_GRPCD_HOST_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "kuaisuo.h"

namespace kuaisuo::serve {

class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() { ks_host_free(data_); }

  uint8_t* get(size_t bytes) {
    if (bytes > capacity_) {
      ks_host_free(data_);
      data_ = nullptr;
      capacity_ = 0;
      void* p = nullptr;
      if (ks_host_alloc(bytes, &p) != KS_OK) return nullptr;
      data_ = p;
      capacity_ = bytes;
    }
    return static_cast<uint8_t*>(data_);
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace kuaisuo::serve

#endif  // KUAISUO_SERVE_GRPCD_HOST_BUFFER_H_
