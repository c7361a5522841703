// SM2 on the GPU: launchers over device memory (GB/T 32918.2 on the
// recommended curve). Every pointer is a device pointer; every launcher
// enqueues on `stream` and returns the launch error (cudaSuccess or what
// cudaGetLastError reports). One thread per item.
//
// Layouts: scalars, digests and coordinates are 32-byte big-endian
// (GB/T 32918.1 clause 4.2); public keys 65-byte 04||x||y; signatures
// 64-byte r||s; status one int per item (Status in sm2_gpu_host.h).
//
// Side channels (no kernel branches on secret data; what remains): the
// fixed-base lookups of keygen and sign read table[window][|digit|] at an
// address that depends on the secret scalar (d or k). On a GPU shared with
// an attacker who can observe L2/DRAM access patterns or time contention
// (co-resident kernels, MPS), that leaks information on the digits; on a
// dedicated GPU it does not. Scanning all 2^15 entries per window is what
// closing it would cost. Verification handles public data only.
#ifndef KS_SCHEME_SM2_GPU_H_
#define KS_SCHEME_SM2_GPU_H_

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "sm2/gpu/sm2_gpu_host.h"

namespace ks {
namespace sm2 {
namespace gpu {

// Builds the fixed-base table on the CPU (once per process) and uploads it
// to the current device (once per device); blocking and thread-safe. The
// launchers below call it on first use; call it up front to keep that out
// of the first batch.
cudaError_t init_tables();

// pub = [d]G for each 32-byte d; status (may be null) kOk, or
// kBadPrivateKey for d outside [1, n-2] (whose pub is then meaningless;
// d = 0 gives 04 || 0 || 0). A thread takes per_thread items (1, 2, 4 or
// 8) sharing one inversion; any other value chooses by the batch size, so
// that small batches still fill the SMs (the same for signing).
cudaError_t launch_keygen(const uint8_t* priv, uint8_t* pub, int* status, size_t count,
                          cudaStream_t stream, int per_thread = 0);

// SignKey for each 32-byte d in [1, n-2] ((1 + d)^-1 by Fermat mod n).
cudaError_t launch_prepare_sign_keys(const uint8_t* priv, SignKey* keys, size_t count,
                                     cudaStream_t stream);

// sigs[i] = SM2 signature of digest e_i under keys[i * key_stride] (stride
// 0: one key for the batch, 1: per item) with nonce k_i (32 bytes each).
// The nonces are the caller's: fresh, secret, uniform in [1, n-1], never
// reused (a later CSPRNG kernel will write them on the device). status[i]
// is kOk, or kBadNonce where k_i is out of range or gives r = 0, r + k = n
// or s = 0; the caller then signs that item again with a new nonce (the
// signature bytes are zero).
cudaError_t launch_sign_digest(const uint8_t* digests, const SignKey* keys, size_t key_stride,
                               const uint8_t* nonces, uint8_t* sigs, int* status, size_t count,
                               cudaStream_t stream, int per_thread = 0);

// status[i] = verification of sig_i on digest e_i under public key pub_i
// (kOk, kBadPublicKey, kSignatureOutOfRange or kVerifyFailed).
cudaError_t launch_verify_digest(const uint8_t* pubs, const uint8_t* digests, const uint8_t* sigs,
                                 int* status, size_t count, cudaStream_t stream);

// One public key for a whole batch (sm2_gpu_host.h's key table): its
// table's bytes in device memory for window width `bits` (8, 12 or 16),
// then the table of `key` (a valid public key) written to `table` (that
// many bytes): the windows' bases on the CPU (copied from pageable memory
// before this returns), the entries by a kernel on `stream`.
size_t key_table_bytes(int bits);
cudaError_t launch_build_key_table(const PublicKey& key, int bits, uint8_t* table,
                                   cudaStream_t stream);
// status[i] = verification of sig_i on digest e_i under the key whose
// table (built as above with the same `bits`) is key_table: kOk,
// kSignatureOutOfRange or kVerifyFailed, as launch_verify_digest gives for
// that key. [s]G + [t]P costs 16 + key_windows(bits) mixed additions.
// min_blocks: the kernel's resident blocks per SM for __launch_bounds__
// (3: no spill, the default; 4: 128 registers, a few spilled), 0 for the
// default (benchmarks compare).
cudaError_t launch_verify_digest_one_key(const uint8_t* key_table, int bits,
                                         const uint8_t* digests, const uint8_t* sigs, int* status,
                                         size_t count, cudaStream_t stream, int min_blocks = 0);

}  // namespace gpu
}  // namespace sm2
}  // namespace ks

#endif  // KS_SCHEME_SM2_GPU_H_
