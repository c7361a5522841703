/* kuaisuo/skinny.h: SKINNY-128-256, the tweakable block cipher: ECB, CTR, streaming, GPU buffers and batches.
 * Conventions, errors and the context: kuaisuo/common.h. */
#ifndef KUAISUO_SKINNY_H_
#define KUAISUO_SKINNY_H_

#include <kuaisuo/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SKINNY-128-256 (tweakable block cipher) ---------------------------
 * Beierle et al., CRYPTO 2016: 128-bit blocks, a 32-byte tweakey TK1 || TK2
 * (the paper's vector takes it whole), 48 rounds. Every call here is
 * constant time (the S-box is computed by its circuit, never looked up).
 * CTR's iv is the first counter block, a 128-bit big-endian integer
 * incremented by one per block and wrapping modulo 2^128 (as SM4's CTR);
 * ECB takes whole blocks and no iv. out may equal in. encrypt, in every
 * call that has it: KS_ENCRYPT or KS_DECRYPT (CTR is the same both ways). */
#define KS_SKINNY_TWEAKEY_BYTES 32
#define KS_SKINNY_BLOCK_BYTES 16

typedef enum ks_skinny_mode { KS_SKINNY_ECB = 0, KS_SKINNY_CTR = 4 } ks_skinny_mode;

/* One shot on the calling thread: len bytes of in to out. */
KS_API int ks_skinny128_256_crypt(int mode, int encrypt, const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES],
                                  const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t len,
                                  uint8_t* out);
/* One large buffer on the context: split over its CPU threads, or on its GPU
 * (the constant-time bitsliced kernels, ECB decryption by the inverse
 * rounds; GPU contexts always; AUTO from 64 KiB in ks_host_alloc memory,
 * which is copied to and from the GPU directly, and from 256 KiB in
 * ordinary memory). */
KS_API int ks_skinny128_256_crypt_buffer(ks_ctx* ctx, int mode, int encrypt,
                                         const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES],
                                         const uint8_t* iv, size_t iv_len, const uint8_t* in,
                                         size_t len, uint8_t* out);
/* The tweak per block (Romulus- and Deoxys-style use): block i under TK1 =
 * tweaks[16*i .. 16*i+16) and TK2 = key (16 bytes). */
KS_API int ks_skinny128_256_tweaked_blocks(int encrypt, const uint8_t key[16],
                                           const uint8_t* tweaks, const uint8_t* in, uint8_t* out,
                                           size_t nblocks);

/* Streaming CTR: init, then update any number of times (len bytes out for
 * len in); cleanse wipes the state. */
typedef struct ks_skinny_ctr_ctx {
  uint64_t opaque[56];
} ks_skinny_ctr_ctx;
KS_API int ks_skinny128_256_ctr_init(ks_skinny_ctr_ctx* c,
                                     const uint8_t tweakey[KS_SKINNY_TWEAKEY_BYTES],
                                     const uint8_t iv[KS_SKINNY_BLOCK_BYTES]);
KS_API int ks_skinny128_256_ctr_update(ks_skinny_ctr_ctx* c, const uint8_t* in, size_t len,
                                       uint8_t* out);
KS_API void ks_skinny128_256_ctr_cleanse(ks_skinny_ctr_ctx* c);

/* Many independent items: item i under tweakey tweakeys[32*i ..), iv
 * ivs[16*i ..) (CTR; ivs NULL for ECB), input data[offsets[i] ..
 * offsets[i+1]) to the same offsets of out (out_len >= offsets[count]; out
 * may be data). An ECB item that is not whole blocks fails with
 * KS_ERR_LENGTH (its output untouched). Host memory runs on the context's
 * CPU threads; device memory (kuaisuo/common.h, "Device memory") on its
 * GPU. */
KS_API int ks_skinny128_256_batch(ks_ctx* ctx, int mode, int encrypt, const uint8_t* tweakeys,
                                  const uint8_t* ivs, const uint8_t* data, size_t data_len,
                                  const uint64_t* offsets, size_t count, uint8_t* out,
                                  size_t out_len, int* status);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_SKINNY_H_ */
