/* kuaisuo/sm4.h: SM4 (GB/T 32907-2016): modes, GCM, key files, streaming, GPU buffers and batches.
 * Conventions, errors and the context: kuaisuo/common.h. */
#ifndef KUAISUO_SM4_H_
#define KUAISUO_SM4_H_

#include <kuaisuo/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SM4 block cipher (GB/T 32907-2016) --------------------------------- */
/* ECB, CBC, CFB-128, OFB and CTR (NIST SP 800-38A) and GCM (NIST SP
 * 800-38D; SM4-GCM is RFC 8998's TLS_SM4_GCM_SM3). Keys are 16 bytes.
 * Errors of their own: KS_ERR_BAD_PADDING, KS_ERR_TAG_MISMATCH. Every
 * path is constant time (no table indexed by key or data): AES-NI / GFNI
 * S-box kernels where the CPU has them, a bitsliced one elsewhere.
 *
 * IVs: 16 bytes for CBC, CFB, OFB and CTR (ignored for ECB: pass NULL, 0).
 * CTR's IV is the first counter block, a 128-bit big-endian integer that
 * is incremented per block and wraps modulo 2^128 (the caller keeps
 * counters of one key from overlapping). GCM takes IVs of 1 byte or more;
 * 12 bytes is the recommended length (SP 800-38D 8.2).
 *
 * Buffers: out may equal in (in-place) in the one-shot and batch calls and
 * in the CFB/OFB/CTR/GCM streams; other overlaps are not allowed, and ECB
 * and CBC streams need out and in apart (their output lags their input). */
#define KS_SM4_KEY_BYTES 16
#define KS_SM4_BLOCK_BYTES 16
#define KS_SM4_GCM_TAG_BYTES 16     /* the full tag; 4..16 may be asked for */
#define KS_SM4_GCM_MIN_TAG_BYTES 4  /* 4 and 8 only under SP 800-38D appendix C */

typedef enum ks_sm4_mode {
  KS_SM4_ECB = 0,
  KS_SM4_CBC = 1,
  KS_SM4_CFB = 2, /* CFB-128 */
  KS_SM4_OFB = 3,
  KS_SM4_CTR = 4,
  KS_SM4_GCM = 5
} ks_sm4_mode;

/* flags: PKCS#7 padding (RFC 5652 6.3) for ECB and CBC, as `openssl enc`
 * does by default. Without it their lengths must be multiples of 16. */
#define KS_SM4_PAD_PKCS7 1u

/* One-shot ECB/CBC/CFB/OFB/CTR (not GCM); encrypt: KS_ENCRYPT or
 * KS_DECRYPT. *out_len receives the bytes written, or needed together
 * with KS_ERR_LENGTH when out_cap is too small (encrypting with padding:
 * in_len rounded up to the next multiple of 16, a whole block more when it
 * is one; otherwise at most in_len). Decrypting, KS_ERR_BAD_PADDING (or
 * any error after decryption began) leaves out[0 .. in_len) zeroed and
 * *out_len 0: no unauthenticated plaintext of a message that failed is
 * handed out (as GCM's open). */
KS_API int ks_sm4_crypt(int mode, int encrypt, uint32_t flags,
                        const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv, size_t iv_len,
                        const uint8_t* in, size_t in_len, uint8_t* out, size_t out_cap,
                        size_t* out_len);
/* Deprecated: ks_sm4_crypt with KS_ENCRYPT / KS_DECRYPT. */
KS_DEPRECATED("use ks_sm4_crypt(mode, KS_ENCRYPT, ...)")
KS_API int ks_sm4_encrypt(int mode, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                          const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                          uint8_t* out, size_t out_cap, size_t* out_len);
KS_DEPRECATED("use ks_sm4_crypt(mode, KS_DECRYPT, ...)")
KS_API int ks_sm4_decrypt(int mode, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                          const uint8_t* iv, size_t iv_len, const uint8_t* in, size_t in_len,
                          uint8_t* out, size_t out_cap, size_t* out_len);

/* An expanded key for many calls: the key schedule runs once, in init,
 * instead of in every ks_sm4_crypt. Caller-allocated; treat as opaque. It
 * holds the round keys (secret): ks_sm4_schedule_cleanse wipes it. After
 * init it is only read, so threads may share one. ks_sm4_schedule_crypt is
 * ks_sm4_crypt (the same modes, flags, IV rule, output rule and errors)
 * under it; KS_ERR_INVALID_ARGUMENT for memory that init did not make (or
 * cleanse wiped). */
typedef struct ks_sm4_schedule {
  uint64_t opaque[40];
} ks_sm4_schedule;
KS_API int ks_sm4_schedule_init(ks_sm4_schedule* s, const uint8_t key[KS_SM4_KEY_BYTES]);
KS_API int ks_sm4_schedule_crypt(const ks_sm4_schedule* s, int mode, int encrypt, uint32_t flags,
                                 const uint8_t* iv, size_t iv_len, const uint8_t* in,
                                 size_t in_len, uint8_t* out, size_t out_cap, size_t* out_len);
KS_API void ks_sm4_schedule_cleanse(ks_sm4_schedule* s);

/* One-shot GCM: out holds len bytes, tag tag_len (4..16) bytes. Open
 * checks the tag before it decrypts anything: on KS_ERR_TAG_MISMATCH out is
 * left as it was. (A seal/open pair, not a direction: see ks_direction.) */
KS_API int ks_sm4_gcm_seal(const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv,
                           size_t iv_len, const uint8_t* aad, size_t aad_len,
                           const uint8_t* in, size_t len, uint8_t* out, uint8_t* tag,
                           size_t tag_len);
KS_API int ks_sm4_gcm_open(const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv,
                           size_t iv_len, const uint8_t* aad, size_t aad_len,
                           const uint8_t* in, size_t len, const uint8_t* tag, size_t tag_len,
                           uint8_t* out);

/* SM4 keys in files: PKCS#8 PrivateKeyInfo with the algorithm sm4 (OID
 * 1.2.156.10197.1.104, GM/T 0006; parameters absent) and the privateKey
 * OCTET STRING holding the 16 key bytes, PEM label "PRIVATE KEY". No
 * standard names a file format for a symmetric key; this is kuaisuo's own,
 * in PKCS#8's envelope so that ks_pkcs8_encrypt protects it at rest as it
 * does private keys, and other algorithms' decoders refuse it with
 * KS_ERR_KEY_ALGORITHM (README.md, "SM4 key files"). encode follows the
 * out/out_cap/out_len rule; decode takes DER or PEM (detected), versions 0
 * and 1 without a publicKey, and writes key only on success. */
KS_API int ks_sm4_key_encode(const uint8_t key[KS_SM4_KEY_BYTES], int pem, uint8_t* out,
                             size_t out_cap, size_t* out_len);
KS_API int ks_sm4_key_decode(const uint8_t* in, size_t in_len, uint8_t key[KS_SM4_KEY_BYTES]);

/* Streaming ECB/CBC/CFB/OFB/CTR (init's encrypt: KS_ENCRYPT or
 * KS_DECRYPT). Caller-allocated state; treat as opaque. update writes what
 * is ready (at most len + 16 bytes; CFB/OFB/CTR exactly len); final writes
 * the last block of ECB/CBC (at most 16 bytes; nothing for the stream
 * modes), returns KS_ERR_BAD_PADDING or KS_ERR_LENGTH (a partial block
 * without padding) on bad input, and wipes c. On KS_ERR_BAD_PADDING final
 * zeroes out[0 .. min(out_cap, 16)) (what it may write); the plaintext
 * update returned before is the caller's to discard, since bad padding
 * means a wrong key or damaged ciphertext. */
typedef struct ks_sm4_ctx {
  uint64_t opaque[56];
} ks_sm4_ctx;
KS_API int ks_sm4_init(ks_sm4_ctx* c, int mode, int encrypt, uint32_t flags,
                       const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv, size_t iv_len);
KS_API int ks_sm4_update(ks_sm4_ctx* c, const uint8_t* in, size_t len, uint8_t* out,
                         size_t out_cap, size_t* out_len);
KS_API int ks_sm4_final(ks_sm4_ctx* c, uint8_t* out, size_t out_cap, size_t* out_len);
/* Wipes the key material in c (final does this too). */
KS_API void ks_sm4_cleanse(ks_sm4_ctx* c);

/* Streaming GCM: init (encrypt: KS_ENCRYPT or KS_DECRYPT), aad (any number
 * of calls, before the text), update (len bytes out for len in), then
 * final (encrypting: writes the tag) or verify (decrypting). Decrypted
 * bytes from update are NOT authenticated until verify returns KS_OK: a
 * caller that cannot hold them back should use ks_sm4_gcm_open. final and
 * verify wipe c. */
typedef struct ks_sm4_gcm_ctx {
  uint64_t opaque[96];
} ks_sm4_gcm_ctx;
KS_API int ks_sm4_gcm_init(ks_sm4_gcm_ctx* c, int encrypt, const uint8_t key[KS_SM4_KEY_BYTES],
                           const uint8_t* iv, size_t iv_len);
KS_API int ks_sm4_gcm_aad(ks_sm4_gcm_ctx* c, const uint8_t* aad, size_t len);
KS_API int ks_sm4_gcm_update(ks_sm4_gcm_ctx* c, const uint8_t* in, size_t len, uint8_t* out);
KS_API int ks_sm4_gcm_final(ks_sm4_gcm_ctx* c, uint8_t* tag, size_t tag_len);
KS_API int ks_sm4_gcm_verify(ks_sm4_gcm_ctx* c, const uint8_t* tag, size_t tag_len);
KS_API void ks_sm4_gcm_cleanse(ks_sm4_gcm_ctx* c);

/* One large buffer, ECB (whole blocks, no padding) or CTR (any length),
 * encrypted or decrypted (KS_ENCRYPT / KS_DECRYPT) on a context: on GPU
 * contexts through the chunked pipeline, copies overlapping the kernels
 * and pinned caller buffers (ks_host_alloc) copied directly; otherwise
 * split over the context's CPU threads. AUTO uses the GPU for pinned
 * buffers of 4 MiB and more only: ordinary memory must be staged by host
 * copies, which a many-core host's own SM4 outruns. The GPU kernel is the
 * constant-time bitsliced one unless flags has KS_SM4_GPU_TABLES:
 * shared-memory T-tables, faster, but their addresses depend on key and
 * data, which another tenant of the same GPU may observe
 * (docs/ARCHITECTURE.md). CTR's iv is the first counter block (not
 * advanced); out may be in. */
#define KS_SM4_GPU_TABLES 2u
KS_API int ks_sm4_crypt_buffer(ks_ctx* ctx, int mode, int encrypt, uint32_t flags,
                               const uint8_t key[KS_SM4_KEY_BYTES], const uint8_t* iv,
                               size_t iv_len, const uint8_t* in, size_t len, uint8_t* out);

/* One large GCM buffer on a context, as ks_sm4_gcm_seal / _open: on GPU
 * contexts (AUTO: pinned buffers from 4 MiB; 96-bit IVs only, others run
 * on the CPU) with the kernel KS_SM4_GPU_TABLES selects, the tag of open
 * checked on the device before any plaintext is released; on the CPU
 * otherwise. */
KS_API int ks_sm4_gcm_seal_buffer(ks_ctx* ctx, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                                  const uint8_t* iv, size_t iv_len, const uint8_t* aad,
                                  size_t aad_len, const uint8_t* in, size_t len, uint8_t* out,
                                  uint8_t* tag, size_t tag_len);
KS_API int ks_sm4_gcm_open_buffer(ks_ctx* ctx, uint32_t flags, const uint8_t key[KS_SM4_KEY_BYTES],
                                  const uint8_t* iv, size_t iv_len, const uint8_t* aad,
                                  size_t aad_len, const uint8_t* in, size_t len,
                                  const uint8_t* tag, size_t tag_len, uint8_t* out);

/* Many independent messages, each with its own key and IV, all encrypted
 * or all decrypted (encrypt: KS_ENCRYPT or KS_DECRYPT). On GPU
 * contexts (KS_BACKEND_GPU) every mode but GCM with IVs other than 12
 * bytes runs on the GPU in the constant-time bitsliced kernels (key
 * schedules and GHASH on the device, GCM tags checked there before any
 * plaintext is released; CBC, CFB and OFB encryption, whose blocks wait
 * for each other, 32 messages per thread), in chunks of whole messages
 * whose copies overlap the kernels; data and out in pinned memory
 * (ks_host_alloc) are copied directly; every array in device memory runs
 * in place on the context's stream (kuaisuo/common.h, "Device memory":
 * an item whose offsets descend or pass data_len or out_len gets
 * KS_ERR_OFFSETS). AUTO takes the GPU for batches of
 * 16 MiB and more with data and out pinned; the rest runs on the
 * context's CPU threads, where CBC, CFB and OFB encryption run 16
 * messages at once per thread, one per SIMD lane.
 * Item i: key keys[16*i ..), IV ivs[iv_len*i ..) (iv_len: 16, or 0 for ECB,
 * or the GCM IV length, the same for every item), input
 * data[offsets[i] .. offsets[i+1]), output at the same offsets of out
 * (out_len >= offsets[count]; out may be data). No padding: flags must be
 * 0, and ECB/CBC items that are not whole blocks fail with KS_ERR_LENGTH.
 * GCM: per-item AAD aad[aad_offsets[i] .. aad_offsets[i+1]) (aad_offsets
 * NULL for none) and tags of tag_len bytes at tags[tag_len*i ..), written
 * when encrypting, checked when decrypting (a mismatching item gets
 * KS_ERR_TAG_MISMATCH and its output is left as it was). */
KS_API int ks_sm4_batch(ks_ctx* ctx, int mode, int encrypt, uint32_t flags, const uint8_t* keys,
                        const uint8_t* ivs, size_t iv_len, const uint8_t* data, size_t data_len,
                        const uint64_t* offsets, size_t count, uint8_t* out, size_t out_len,
                        const uint8_t* aad, size_t aad_len, const uint64_t* aad_offsets,
                        uint8_t* tags, size_t tag_len, int* status);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_SM4_H_ */
