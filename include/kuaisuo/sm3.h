/* kuaisuo/sm3.h: SM3 (GB/T 32905-2016) and HMAC-SM3: one-shot, streaming and batches.
 * Conventions, errors and the context: kuaisuo/common.h. */
#ifndef KUAISUO_SM3_H_
#define KUAISUO_SM3_H_

#include <kuaisuo/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SM3 (GB/T 32905-2016) and HMAC-SM3 ------------------------------ */
#define KS_SM3_DIGEST_BYTES 32
#define KS_SM3_BLOCK_BYTES 64

/* Caller-allocated streaming state; treat as opaque. */
typedef struct ks_sm3_ctx {
  uint64_t opaque[16];
} ks_sm3_ctx;
typedef struct ks_hmac_sm3_ctx {
  uint64_t opaque[64];
} ks_hmac_sm3_ctx;

KS_API int ks_sm3_init(ks_sm3_ctx* c);
KS_API int ks_sm3_update(ks_sm3_ctx* c, const void* data, size_t len);
/* Writes 32 bytes and re-initialises c. */
KS_API int ks_sm3_final(ks_sm3_ctx* c, uint8_t digest[KS_SM3_DIGEST_BYTES]);
KS_API int ks_sm3(const void* data, size_t len, uint8_t digest[KS_SM3_DIGEST_BYTES]);

/* The SM3 key derivation function of GB/T 32918.4-2016 clause 5.4.3 (SM2
 * encryption and key exchange): out[0 .. klen) = SM3(z || 00000001) ||
 * SM3(z || 00000002) || ..., truncated. klen up to (2^32 - 1) x 32 bytes
 * (KS_ERR_LENGTH beyond); out must not overlap z. */
KS_API int ks_sm3_kdf(const uint8_t* z, size_t z_len, uint8_t* out, size_t klen);

/* Keys of any length; longer than 64 bytes are hashed first (RFC 2104). */
KS_API int ks_hmac_sm3_init(ks_hmac_sm3_ctx* c, const void* key, size_t key_len);
KS_API int ks_hmac_sm3_update(ks_hmac_sm3_ctx* c, const void* data, size_t len);
/* Writes the tag; c stays keyed, ready for the next message. */
KS_API int ks_hmac_sm3_final(ks_hmac_sm3_ctx* c, uint8_t tag[KS_SM3_DIGEST_BYTES]);
/* Wipes the key material in c. */
KS_API void ks_hmac_sm3_cleanse(ks_hmac_sm3_ctx* c);
KS_API int ks_hmac_sm3(const void* key, size_t key_len, const void* data, size_t len,
                       uint8_t tag[KS_SM3_DIGEST_BYTES]);

/* digests[32*i .. 32*i+32) = SM3(item i), for count items laid out as
 * described at the top of this file (offsets has count + 1 entries).
 * digests_len must be at least 32 * count. */
KS_API int ks_sm3_batch(ks_ctx* ctx, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, uint8_t* digests,
                        size_t digests_len, int* status);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_SM3_H_ */
