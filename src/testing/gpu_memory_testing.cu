// Device memory for tests and tools (gpu_memory_testing.h).
#include <cuda_runtime.h>

#include "testing/gpu_memory_testing.h"

namespace ks {
namespace testing {
namespace {

__global__ void spin_then_copy_kernel(uint8_t* dst, const uint8_t* src, size_t n,
                                      long long cycles) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
  }
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}

}  // namespace

DeviceBytes::DeviceBytes(size_t n, bool managed) : n_(n) {
  void* p = nullptr;
  const cudaError_t e = managed ? cudaMallocManaged(&p, n > 0 ? n : 1)
                                : cudaMalloc(&p, n > 0 ? n : 1);
  if (e == cudaSuccess) ptr_ = static_cast<uint8_t*>(p);
  cudaGetLastError();
}

DeviceBytes::~DeviceBytes() { release(); }

void DeviceBytes::release() {
  if (ptr_ != nullptr) cudaFree(ptr_);
  ptr_ = nullptr;
}

bool DeviceBytes::upload(const uint8_t* src, size_t len, size_t at) {
  return len == 0 || cudaMemcpy(ptr_ + at, src, len, cudaMemcpyHostToDevice) == cudaSuccess;
}

std::vector<uint8_t> DeviceBytes::download(size_t len, size_t at) const {
  std::vector<uint8_t> out(len);
  if (len != 0 && cudaMemcpy(out.data(), ptr_ + at, len, cudaMemcpyDeviceToHost) != cudaSuccess)
    out.clear();
  return out;
}

void* stream_create() {
  cudaStream_t s = nullptr;
  return cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess ? s : nullptr;
}

void stream_destroy(void* stream) { cudaStreamDestroy(static_cast<cudaStream_t>(stream)); }

bool stream_sync(void* stream) {
  return cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) == cudaSuccess;
}

bool capture_begin(void* stream) {
  return cudaStreamBeginCapture(static_cast<cudaStream_t>(stream),
                                cudaStreamCaptureModeThreadLocal) == cudaSuccess;
}

bool capture_end(void* stream) {
  cudaGraph_t graph = nullptr;
  const bool ok = cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &graph) == cudaSuccess;
  if (graph != nullptr) cudaGraphDestroy(graph);
  return ok;
}

bool spin_then_copy(void* stream, uint8_t* dst, const uint8_t* src, size_t n,
                    unsigned microseconds) {
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  spin_then_copy_kernel<<<1, 1024, 0, static_cast<cudaStream_t>(stream)>>>(
      dst, src, n, (long long)khz * microseconds / 1000);
  return cudaGetLastError() == cudaSuccess;
}

bool copy_async(void* stream, uint8_t* dst, const uint8_t* src, size_t n) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice,
                         static_cast<cudaStream_t>(stream)) == cudaSuccess;
}

}  // namespace testing
}  // namespace ks
