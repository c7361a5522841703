// A read-only table built on the host once per process and copied to each
// device on first use there: the fixed-base tables of SM2
// (sm2/gpu/sm2_gpu.cu) and Ed25519 (curve25519/gpu/curve25519_gpu_tables.cu). Device
// copies live until the process ends, as the tables do on the host.
#ifndef KS_ENGINE_DEVICE_TABLE_CUH_
#define KS_ENGINE_DEVICE_TABLE_CUH_

#include <cuda_runtime.h>
#include <stdint.h>

#include <mutex>
#include <vector>

namespace ks {
namespace gpu {

class DeviceTable {
 public:
  // build fills the host copy (called once, on first use).
  using Build = std::vector<uint8_t> (*)();
  explicit DeviceTable(Build build) : build_(build) {}

  // The copy on the current device, uploaded on first use.
  cudaError_t get(const void** out) {
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
    std::lock_guard<std::mutex> lock(mutex_);
    if (copies_[device] == nullptr) {
      if (host_.empty()) host_ = build_();
      void* dev = nullptr;
      err = cudaMalloc(&dev, host_.size());
      if (err == cudaSuccess)
        err = cudaMemcpy(dev, host_.data(), host_.size(), cudaMemcpyHostToDevice);
      if (err != cudaSuccess) {
        cudaFree(dev);
        return err;
      }
      copies_[device] = dev;
    }
    *out = copies_[device];
    return cudaSuccess;
  }
  template <class T>
  cudaError_t get(const T** out) {
    const void* p = nullptr;
    const cudaError_t err = get(&p);
    *out = static_cast<const T*>(p);
    return err;
  }

 private:
  static constexpr int kMaxDevices = 64;
  Build build_;
  std::mutex mutex_;
  std::vector<uint8_t> host_;
  void* copies_[kMaxDevices] = {};
};

}  // namespace gpu
}  // namespace ks

#endif  // KS_ENGINE_DEVICE_TABLE_CUH_
