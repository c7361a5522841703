// SM4 over many independent messages on the GPU, each with its own key
// (and IV): the device side of ks_sm4_batch for ECB, CTR and GCM. Constant time:
// the bitsliced rounds of sm4/gpu/sm4_gpu_rounds.cuh, a thread taking up to
// 32 consecutive blocks of one message, the round-key planes derived in
// registers from its message's round keys (no key- or data-dependent
// address). The key schedules run on the device, one thread per message,
// and are wiped from device memory before the call returns. Built with the
// CUDA backend (sm4/gpu/sm4_gpu_messages.cu); without it,
// sm4/gpu/sm4_gpu_absent.cc answers KS_ERR_BACKEND_UNAVAILABLE.
#ifndef KS_CIPHER_SM4_GPU_MESSAGES_H_
#define KS_CIPHER_SM4_GPU_MESSAGES_H_

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

namespace ks {
namespace sm4 {
namespace gpu {

// What each message gets: ECB encryption or decryption (whole blocks), or
// CTR (any length, the 128-bit big-endian counter starting at its IV).
enum class MessageMode { kEcbEncrypt, kEcbDecrypt, kCtr };

// Message i: key keys[16 i ..), IV ivs[16 i ..) (CTR; ignored for ECB),
// bytes data[offsets[i] .. offsets[i + 1]) (offsets validated, offsets[0]
// may be non-zero), output at the same offsets of out (out may be data).
// skip[i] != 0 (skip may be null): message i is neither computed nor
// written (the caller failed it, e.g. an ECB message that is not whole
// blocks). Runs on the engine's device and waits. A ks_status.
int crypt_messages(ks::gpu::Engine& engine, MessageMode mode, const uint8_t* keys,
                   const uint8_t* ivs, const uint8_t* data, const uint64_t* offsets,
                   size_t count, const uint8_t* skip, uint8_t* out);

// SM4-GCM (NIST SP 800-38D, 96-bit IVs: ivs[12 i ..)) over many messages,
// AAD aad[aad_offsets[i] .. aad_offsets[i + 1]) (aad_offsets null: none).
// seal: out = ciphertexts, tags[tag_len i ..) = the first tag_len bytes of
// each tag. open: each message's tag is checked on the device against
// tags[tag_len i ..) before its decryption, which runs (and is copied to
// out) only where it matched. passed[i] (count bytes) = 1 where the
// message was sealed or its tag matched, else 0. A ks_status of the call.
int gcm_messages(ks::gpu::Engine& engine, bool seal, const uint8_t* keys, const uint8_t* ivs,
                 const uint8_t* aad, const uint64_t* aad_offsets, const uint8_t* data,
                 const uint64_t* offsets, size_t count, uint8_t* tags, size_t tag_len,
                 uint8_t* out, uint8_t* passed);

}  // namespace gpu
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_GPU_MESSAGES_H_
