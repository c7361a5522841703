// The Curve25519 kernels' device tables (curve25519/gpu/curve25519_gpu_launch.cuh),
// defined once for the kernel files that read them.
#include <vector>

#include "curve25519/ed25519_curve.h"
#include "curve25519/gpu/curve25519_gpu_fixed_base.cuh"
#include "curve25519/ed25519_verify_one.h"

namespace ks {
namespace curve25519 {
namespace gpu {
namespace detail {
namespace {

// curve::ed25519::comb_table() as bytes.
std::vector<uint8_t> host_comb_table() {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(curve::ed25519::comb_table());
  return std::vector<uint8_t>(p, p + 8 * ed25519::one_thread::kCombTableWords);
}

}  // namespace

ks::gpu::DeviceTable g_comb(&host_comb_table);
ks::gpu::DeviceTable g_sign_comb(&WarpRow::host_table);
ks::gpu::DeviceTable g_wide_table(&WideRow::host_table);

}  // namespace detail
}  // namespace gpu
}  // namespace curve25519
}  // namespace ks
