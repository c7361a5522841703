// SM4 (GB/T 32907-2016) on the GPU: ECB, CTR and GCM over one large buffer,
// in two kernels measured against each other (tools/sm4_gpu_bench.cu):
//
//  - kTable: the S-box and the linear map L merged into one 256-entry table
//    T0[a] = L(S(a) << 24) (the other three bytes are rotations of it),
//    32 copies in shared memory so that lane i always reads bank i (no bank
//    conflicts), bytes picked with __byte_perm. NOT constant time: the
//    table index is a secret byte (key ^ data). Every copy a lane reads is
//    its own, so bank conflicts cannot reveal it within a warp, but the
//    address of each load is still secret: anything sharing the SM (another
//    tenant's kernel under MPS or time slicing, a profiler, a fault-injection
//    or power side channel) is the classic cache-timing setting of T-table
//    AES. Use it only where the GPU is not shared with an adversary.
//  - kBitsliced: constant time. 32 blocks per thread as 32 planes of
//    uint32_t per cipher word, the S-box by sm4_core.h's GF(2^8) circuit,
//    L as renaming of planes; no branch or address depends on the key or
//    the data.
//
// Launchers take device pointers (d_*: 16-byte aligned, as cudaMalloc
// returns them; a misaligned one returns cudaErrorInvalidValue) and host
// values for everything else (round keys, counter, IV, AAD, expected tag),
// enqueue on `stream` and return a cudaError_t value as int (0 = success).
// The host arguments are consumed before the call returns. in == out is
// allowed everywhere; other overlaps are not. The *_host calls take host
// memory and run synchronously on the current device (the one-buffer GCM
// of the engine; testing/sm4_gpu_testing.h has the same for ECB and CTR).
// No CUDA header is needed to include this file.
#ifndef KS_CIPHER_SM4_GPU_H_
#define KS_CIPHER_SM4_GPU_H_

#include <stddef.h>
#include <stdint.h>

// The CUDA runtime's stream handle, declared exactly as driver_types.h does.
typedef struct CUstream_st* cudaStream_t;

namespace ks {
namespace sm4 {
namespace gpu {

enum class Kernel { kTable = 0, kBitsliced = 1 };

// "table" or "bitsliced".
const char* kernel_name(Kernel k);

// out = ECB(in) under rk (counter null), or in ^ the CTR keystream from
// counter (not advanced), over nbytes bytes: whole blocks in ECB, the last
// block may be partial in CTR.
int crypt(Kernel k, const uint32_t rk[32], const uint8_t* counter, const uint8_t* d_in,
          uint8_t* d_out, size_t nbytes, cudaStream_t stream);

// out[i] = SM4(in[i]) for nblocks 16-byte blocks, under round keys rk (host
// memory, 32 words): the encryption keys to encrypt, the reversed ones to
// decrypt (ks::sm4::Key's enc and dec).
int ecb(Kernel k, const uint32_t rk[32], const uint8_t* d_in, uint8_t* d_out, size_t nblocks,
        cudaStream_t stream);

// out[i] = in[i] ^ E(counter + i) for nblocks blocks, the counter a 128-bit
// big-endian integer taken modulo 2^128 (as ks::sm4::ctr_blocks); counter
// (host memory) is advanced by nblocks when the call returns.
int ctr(Kernel k, const uint32_t rk[32], uint8_t counter[16], const uint8_t* d_in,
        uint8_t* d_out, size_t nblocks, cudaStream_t stream);

// SM4-GCM-AE (NIST SP 800-38D 7.1, RFC 8998) with a 96-bit IV (host): out
// = the len-byte ciphertext of in, d_tag (device, 16 bytes) = the full tag
// (truncate it for shorter tags). AAD in host memory (GHASHed on the CPU
// while the GPU encrypts; the GPU hashes the ciphertext). len up to
// ks::gcm::kMaxTextBytes, any length (the last block may be partial).
int gcm_seal(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
             size_t aad_len, const uint8_t* d_in, size_t len, uint8_t* d_out, uint8_t* d_tag,
             cudaStream_t stream);

// SM4-GCM-AD (SP 800-38D 7.2): *d_ok (device) = 1 and out = the plaintext
// when the first tag_len (4..16) bytes of the tag match `tag` (host);
// otherwise *d_ok = 0 and out is not written: the tag is checked on the
// device before the decryption kernel, which does nothing unless it
// matched, so no plaintext is released and the stream never waits.
int gcm_open(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
             size_t aad_len, const uint8_t* d_in, size_t len, const uint8_t* tag,
             size_t tag_len, uint8_t* d_out, int* d_ok, cudaStream_t stream);

// gcm_seal writing the first tag_len (1..16) bytes of the tag to d_tag;
// gcm_open with the tag in device memory when device_tag (the
// device-memory paths of ks_sm4_gcm_seal_buffer and _open_buffer).
int gcm_seal_tag(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                 size_t aad_len, const uint8_t* d_in, size_t len, uint8_t* d_out,
                 uint8_t* d_tag, size_t tag_len, cudaStream_t stream);
int gcm_open_tag(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                 size_t aad_len, const uint8_t* d_in, size_t len, const uint8_t* tag,
                 size_t tag_len, bool device_tag, uint8_t* d_out, int* d_ok,
                 cudaStream_t stream);

// --- From host memory: copy in, launch, copy out, wait --------------------
// in == out runs the kernel in place on one device buffer.
int gcm_seal_host(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                  size_t aad_len, const uint8_t* in, size_t len, uint8_t* out, uint8_t tag[16]);
// *ok as gcm_open's *d_ok; out untouched unless *ok.
int gcm_open_host(Kernel k, const uint32_t rk[32], const uint8_t iv[12], const uint8_t* aad,
                  size_t aad_len, const uint8_t* in, size_t len, const uint8_t* tag,
                  size_t tag_len, uint8_t* out, bool* ok);

}  // namespace gpu
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_GPU_H_
