// Every AUTO crossover in one place: the batch size (items, or bytes for
// the ciphers) from which a KS_BACKEND_AUTO context with an open GPU sends
// a call to the GPU (ks_ctx::use_gpu). Each was measured end to end on an
// H100 next to its 16 host threads (Xeon; the CPU path at its widest:
// AVX-512 lanes, IFMA for SM2) by bench/gpu_sweep.py, which sweeps the
// batch size with ordinary and pinned caller buffers; the smallest batch
// where the GPU leads is the crossover. The files are under bench/results/;
// docs/design/0007-auto-crossovers-and-batching.md argues the choice.
// Other machines move them: a context can force `cpu` or `gpu`.
#ifndef KS_API_AUTO_GPU_H_
#define KS_API_AUTO_GPU_H_

#include <stddef.h>
#include <stdint.h>

namespace ks {
namespace api {

// --- SM3 (ks_sm3_batch), messages --------------------------------------------------
// 64-byte messages against the x16 AVX-512 multi-buffer SM3: the CPU leads
// up to 2^18 messages, the GPU from 2^20 (h100-sweep-2026-11-22.txt); the
// copies to and from the device cost more than the CPU needs below.
constexpr size_t kAutoGpuMinSm3Messages = size_t(1) << 19;

// --- SM2 (sm2/sm2_batch_api.cc), items --------------------------------------------
// Keygen and signing win on the GPU from 256 items
// (h100-sweep-2026-11-22-s2.txt).
constexpr size_t kAutoGpuMinSm2 = 1024;
// Verification loses at 256 items (one verification takes the GPU 1.4 ms)
// and wins from 1,024 (7.3e5/s against 4.0e5/s; same file).
constexpr size_t kAutoGpuMinSm2Verify = 1024;

// Encryption and decryption (GB/T 32918.4), 64-byte messages, against
// the 16 host threads of an H200 machine: the GPU led at every size
// measured, from 256 items (one recipient 7.8e5/s against 7.4e4, per-item
// keys 1.6e5 against 7.9e4, decryption 1.7e5 against 9.2e4; one launch's
// latency, ~1.5 ms, bounds the GPU there)
// (bench/results/h200-2026-12-02-sm2-encrypt-gpu.json). Below 256 items
// not measured: the CPU keeps them.
constexpr size_t kAutoGpuMinSm2Encrypt = 256;
constexpr size_t kAutoGpuMinSm2Decrypt = 256;

// --- Ed25519 and X25519 (curve25519/*_api.cc), items ---------------------------------
// Ed25519 keygen, public keys and signing, 64-byte messages: at 4,096
// items the GPU signs 8.49e6/s against 3.92e6/s and makes 4.28e6 keys/s
// against 2.67e6/s; at 1,024 the CPU still signs faster (2.83e6/s against
// 2.45e6/s) (h100-sweep-2026-11-23-s6-ed25519-sign.json).
constexpr size_t kAutoGpuMinEd25519Sign = 4096;
// Ed25519 verification, 64-byte messages: the GPU leads from 4,096 items
// (3.5e6/s against 1.4e6/s) and trails at 1,024 (0.91e6/s against
// 1.16e6/s) (h100-sweep-2026-11-23-s5-25519.json).
constexpr size_t kAutoGpuMinEd25519Verify = 4096;
// X25519 shared secrets: the GPU leads already at 1,024 items (1.9e6/s
// against 1.65e6/s; 7.3e6/s against 1.8e6/s at 4,096)
// (h100-sweep-2026-11-23-s5-25519.json).
constexpr size_t kAutoGpuMinX25519 = 1024;
// X25519 keygen and public keys (a fixed-base comb, a quarter of a shared
// secret's work on the CPU too): 4.62e6/s against 3.19e6/s at 4,096
// items, 2.21e6/s against 2.37e6/s at 1,024
// (h100-sweep-2026-11-23-s6-ed25519-sign.json).
constexpr size_t kAutoGpuMinX25519Keygen = 4096;

// --- SM4 (sm4/sm4_api.cc), bytes -------------------------------------------------------
// One buffer (ECB, CTR, GCM with a 96-bit IV), from pinned caller memory
// (ks_host_alloc, copied directly): the GPU led from 4 MiB (19.8 GB/s
// against 17.6) to 46 GB/s at 256 MiB, the bus
// (h100-sweep-2026-11-23-s6-sm4.json).
constexpr size_t kAutoGpuMinSm4PinnedBytes = size_t(4) << 20;
// The same from ordinary memory, staged by host copies: it trailed the
// CPU's 24 GB/s at every size up to 1 GiB (same file), so never.
constexpr size_t kAutoGpuMinSm4PageableBytes = SIZE_MAX;
// Batches of messages with a key each (ks_sm4_batch), on the pipeline, 16
// KiB messages against the 16 host threads of an H200 machine: from pinned
// memory the GPU led from 16 MiB (CTR 29.0 GB/s against 26.7, GCM 25.6
// against 20.7; at 4 MiB the CPU led, 16.8 against 22.5 and 12.7 against
// 17.2) to 45.5 and 43.9 GB/s at 1 GiB. From ordinary memory, staged by
// host copies (and plaintext wiped from the staging), 11-12 GB/s from 16
// MiB on, below the CPU's 17-27 at every size: never
// (bench/results/h200-2026-12-03-sm4-batch-pipeline.json).
constexpr size_t kAutoGpuMinSm4BatchPinnedBytes = size_t(16) << 20;
constexpr size_t kAutoGpuMinSm4BatchPageableBytes = SIZE_MAX;

// --- SKINNY-128-256 (skinny/skinny_api.cc), bytes ----------------------------------------
// One buffer, CTR. SKINNY costs ~10x SM4 per byte on the CPU, so the GPU
// pays off early, from ordinary memory too: pinned buffers led from 64 KiB
// (1.58 GB/s against 1.10) to 45 GB/s at 1 GiB, ordinary ones from 256 KiB
// (3.01 against 2.22; 1.26 against 1.10 at 64 KiB, too close to call) to
// 17-20 GB/s, while the CPU stayed at 3 GB/s
// (h100-sweep-2026-11-26-s10-skinny.json).
constexpr size_t kAutoGpuMinSkinnyPinnedBytes = size_t(64) << 10;
constexpr size_t kAutoGpuMinSkinnyPageableBytes = size_t(256) << 10;

}  // namespace api
}  // namespace ks

#endif  // KS_API_AUTO_GPU_H_
