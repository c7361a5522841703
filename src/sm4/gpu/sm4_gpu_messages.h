// SM4 over many independent messages on the GPU, each with its own key
// (and IV): the device side of ks_sm4_batch for ECB, CBC, CFB-128, OFB, CTR
// and GCM. Constant time: the bitsliced rounds of sm4/gpu/sm4_gpu_rounds.cuh
// with no key- or data-dependent branch or address. Where a message's
// blocks are independent (ECB, CTR, GCM, CBC and CFB decryption) a thread
// takes up to 32 consecutive blocks of one message, the round-key planes
// derived in registers from its message's round keys; where each block
// needs the previous one (CBC and CFB encryption, OFB) a thread takes 32
// messages, one per bit lane, and steps block j of all of them together,
// the round-key planes read from a table transposed across the lanes. The
// key schedules run on the device, one thread per message, and they and
// every table made from them are wiped from device memory in stream order.
// Host batches run on the engine's pipeline in chunks of whole messages;
// device batches in place on the caller's stream. Built with the CUDA
// backend (sm4/gpu/sm4_gpu_messages.cu);
// without it, sm4/gpu/sm4_gpu_absent.cc answers KS_ERR_BACKEND_UNAVAILABLE.
#ifndef KS_CIPHER_SM4_GPU_MESSAGES_H_
#define KS_CIPHER_SM4_GPU_MESSAGES_H_

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

namespace ks {
namespace sm4 {
namespace gpu {

// What each message gets (NIST SP 800-38A 6.1-6.5): ECB encryption or
// decryption (whole blocks), CTR (any length, the 128-bit big-endian
// counter starting at its IV), CBC encryption or decryption (whole
// blocks), CFB-128 encryption or decryption (any length: the last block
// may be partial, its keystream truncated) or OFB (any length; decryption
// is the same operation). CBC, CFB and OFB start from the message's IV.
enum class MessageMode {
  kEcbEncrypt,
  kEcbDecrypt,
  kCtr,
  kCbcEncrypt,
  kCbcDecrypt,
  kCfbEncrypt,
  kCfbDecrypt,
  kOfb,
};

// Message i: key keys[16 i ..), IV ivs[16 i ..) (every mode but ECB, which
// ignores ivs; null for another mode: KS_ERR_NULL_POINTER), bytes
// data[offsets[i] .. offsets[i + 1]) (offsets validated, offsets[0] may be
// non-zero), output at the same offsets of out (out may be data). skip[i]
// != 0 (skip may be null): message i is neither computed nor written (the
// caller failed it, e.g. an ECB or CBC message that is not whole blocks; a
// CBC message that is not whole blocks is skipped here too). Runs on the
// engine's pipeline (data and out in pinned memory copied directly) and
// waits. A ks_status.
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

// The same on device memory of the engine's device (kuaisuo/common.h,
// "Device memory"): every array on the device, offsets absolute in data
// (data_len bytes; out holds out_len) and read by the kernels only.
// status[i] (device memory) gets KS_OK, KS_ERR_OFFSETS (a range, or its
// AAD's, that descends or passes data_len, out_len or aad_len),
// KS_ERR_LENGTH (ECB or CBC not whole blocks, GCM over its limit) or, when
// opening, KS_ERR_TAG_MISMATCH; a failed message is not written. Queued on
// stream (a cudaStream_t); returns once queued, a ks_status of the launch.
int crypt_messages_device(ks::gpu::Engine& engine, MessageMode mode, const uint8_t* keys,
                          const uint8_t* ivs, const uint8_t* data, size_t data_len,
                          const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                          int* status, void* stream);
int gcm_messages_device(ks::gpu::Engine& engine, bool seal, const uint8_t* keys,
                        const uint8_t* ivs, const uint8_t* aad, size_t aad_len,
                        const uint64_t* aad_offsets, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, uint8_t* tags, size_t tag_len,
                        uint8_t* out, size_t out_len, int* status, void* stream);

}  // namespace gpu
}  // namespace sm4
}  // namespace ks

#endif  // KS_CIPHER_SM4_GPU_MESSAGES_H_
