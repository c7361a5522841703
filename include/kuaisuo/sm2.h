/* kuaisuo/sm2.h: SM2 signatures (GB/T 32918.2), encryption (32918.4) and key exchange (32918.3):
 * keys, formats, one-shot calls and batches.
 * Conventions, errors and the context: kuaisuo/common.h. */
#ifndef KUAISUO_SM2_H_
#define KUAISUO_SM2_H_

#include <kuaisuo/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- SM2 signatures (GB/T 32918.2-2016, GM/T 0003.2) ------------------ */
/* On the recommended curve sm2p256v1. Signatures are r||s (64 bytes) in
 * every call; ks_sm2_signature_to_der/_from_der convert to and from the DER
 * SEQUENCE{INTEGER r, INTEGER s} that OpenSSL and GmSSL exchange.
 *
 * The distinguishing ID is always explicit: pass KS_SM2_DEFAULT_ID (GM/T
 * 0009's "1234567812345678") unless the peer says otherwise. OpenSSL 3 signs
 * with an EMPTY ID unless told distid; RFC 8998 (TLS 1.3) uses
 * "TLSv1.3+GM+Cipher+Suite". id may be NULL when id_len is 0.
 *
 * Variable-length outputs (DER, PEM) follow one rule: out may be NULL to ask
 * for the size; *out_len receives the bytes written (or needed, together
 * with KS_ERR_LENGTH when out_cap is too small). PEM output is
 * NUL-terminated; *out_len excludes the NUL.
 *
 * PEM input may hold several blocks and other text. Every private key
 * decoder (SM2, Ed25519, X25519, SM4) reads the same block: the first
 * complete one (its END line before any other BEGIN line) labelled
 * "PRIVATE KEY", "EC PRIVATE KEY" or "SM2 PRIVATE KEY"; a key of another
 * algorithm there, or an EC/SM2 label to a decoder of another algorithm,
 * gives KS_ERR_KEY_ALGORITHM. So a caller trying the decoders in turn gets
 * one answer per file. */
#define KS_SM2_PRIVATE_KEY_BYTES 32
#define KS_SM2_PUBLIC_KEY_BYTES 65            /* 04 || x || y */
#define KS_SM2_COMPRESSED_PUBLIC_KEY_BYTES 33 /* 02/03 || x */
#define KS_SM2_SIGNATURE_BYTES 64             /* r || s */
#define KS_SM2_SIGNATURE_DER_MAX_BYTES 72
#define KS_SM2_DIGEST_BYTES 32
#define KS_SM2_DEFAULT_ID "1234567812345678"
#define KS_SM2_DEFAULT_ID_BYTES 16
#define KS_SM2_MAX_ID_BYTES 8191

typedef enum ks_sm2_nonce {
  KS_SM2_NONCE_RANDOM = 0,        /* k from the OS CSPRNG (getrandom) */
  KS_SM2_NONCE_DETERMINISTIC = 1  /* RFC 6979 construction over HMAC-SM3 */
} ks_sm2_nonce;

/* A private key prepared for signing (holds d, the public key and the
 * cached (1 + d)^-1 mod n); wiped when freed. Immutable: may be shared by
 * threads. */
typedef struct ks_sm2_key ks_sm2_key;
/* A validated public key (on the curve, not infinity). Immutable, but for
 * the table ks_sm2_pubkey_precompute may add (safely, at any time). */
typedef struct ks_sm2_pubkey ks_sm2_pubkey;

KS_API int ks_sm2_key_generate(ks_sm2_key** out);
/* d as 32 big-endian bytes, in [1, n-2]. */
KS_API int ks_sm2_key_from_bytes(const uint8_t* d, size_t d_len, ks_sm2_key** out);
/* PKCS#8 PrivateKeyInfo or SEC1 ECPrivateKey, DER or PEM ("PRIVATE KEY" /
 * "EC PRIVATE KEY"; detected). An embedded public key must match d. */
KS_API int ks_sm2_key_decode(const uint8_t* in, size_t in_len, ks_sm2_key** out);
KS_API int ks_sm2_key_to_bytes(const ks_sm2_key* key, uint8_t d[KS_SM2_PRIVATE_KEY_BYTES]);
/* PKCS#8 as OpenSSL writes it; pem != 0 for "-----BEGIN PRIVATE KEY-----". */
KS_API int ks_sm2_key_encode(const ks_sm2_key* key, int pem, uint8_t* out, size_t out_cap,
                             size_t* out_len);
/* A new public-key object for the key's public half. */
KS_API int ks_sm2_key_public(const ks_sm2_key* key, ks_sm2_pubkey** out);
KS_API void ks_sm2_key_free(ks_sm2_key* key);

/* 65-byte 04||x||y, 64-byte x||y or 33-byte 02/03||x. */
KS_API int ks_sm2_pubkey_from_bytes(const uint8_t* in, size_t in_len, ks_sm2_pubkey** out);
/* SubjectPublicKeyInfo, DER or PEM ("PUBLIC KEY"; detected). */
KS_API int ks_sm2_pubkey_decode(const uint8_t* in, size_t in_len, ks_sm2_pubkey** out);
/* compressed != 0: 33 bytes 02/03||x, else 65 bytes 04||x||y. */
KS_API int ks_sm2_pubkey_to_bytes(const ks_sm2_pubkey* key, int compressed, uint8_t* out,
                                  size_t out_cap, size_t* out_len);
/* SubjectPublicKeyInfo; pem != 0 for "-----BEGIN PUBLIC KEY-----". */
KS_API int ks_sm2_pubkey_encode(const ks_sm2_pubkey* key, int pem, uint8_t* out,
                                size_t out_cap, size_t* out_len);
KS_API void ks_sm2_pubkey_free(ks_sm2_pubkey* key);
/* Builds the key's fixed-base table (KS_SM2_PUBKEY_TABLE_BYTES of memory,
 * about a millisecond) for a key used many times: one recipient, one
 * signing key checked by the million. ks_sm2_encrypt to this key then costs
 * two fixed-base multiplications instead of a fixed-base and a
 * variable-base one, and ks_sm2_verify / ks_sm2_verify_digest under it two
 * fixed-base combs instead of a double-scalar chain. Idempotent; safe while
 * other threads use the key. KS_OK or KS_ERR_NO_MEMORY. */
#define KS_SM2_PUBKEY_TABLE_BYTES 151552 /* 37 windows x 64 points x 64 bytes */
KS_API int ks_sm2_pubkey_precompute(ks_sm2_pubkey* key);

/* Z_A = SM3(ENTL || ID || a || b || xG || yG || xA || yA) and
 * e = SM3(Z_A || M) (GB/T 32918.2 clause 5.5). */
KS_API int ks_sm2_za(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                     uint8_t za[KS_SM2_DIGEST_BYTES]);
KS_API int ks_sm2_digest(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                         const uint8_t* msg, size_t msg_len, uint8_t e[KS_SM2_DIGEST_BYTES]);

/* Sign a message (Z_A and e computed here) or a caller-computed digest e. */
KS_API int ks_sm2_sign(const ks_sm2_key* key, const uint8_t* id, size_t id_len,
                       const uint8_t* msg, size_t msg_len, int nonce,
                       uint8_t sig[KS_SM2_SIGNATURE_BYTES]);
KS_API int ks_sm2_sign_digest(const ks_sm2_key* key, const uint8_t e[KS_SM2_DIGEST_BYTES],
                              int nonce, uint8_t sig[KS_SM2_SIGNATURE_BYTES]);
/* KS_OK for a valid signature; KS_ERR_SIGNATURE_RANGE or
 * KS_ERR_VERIFY_FAILED otherwise. */
KS_API int ks_sm2_verify(const ks_sm2_pubkey* key, const uint8_t* id, size_t id_len,
                         const uint8_t* msg, size_t msg_len,
                         const uint8_t sig[KS_SM2_SIGNATURE_BYTES]);
KS_API int ks_sm2_verify_digest(const ks_sm2_pubkey* key, const uint8_t e[KS_SM2_DIGEST_BYTES],
                                const uint8_t sig[KS_SM2_SIGNATURE_BYTES]);

/* r||s <-> DER; decoding is strict (minimal, non-negative, no trailing
 * bytes) and says what was wrong. */
KS_API int ks_sm2_signature_to_der(const uint8_t sig[KS_SM2_SIGNATURE_BYTES], uint8_t* out,
                                   size_t out_cap, size_t* out_len);
KS_API int ks_sm2_signature_from_der(const uint8_t* der, size_t der_len,
                                     uint8_t sig[KS_SM2_SIGNATURE_BYTES]);

/* ---- SM2 public-key encryption (GB/T 32918.4-2016) -----------------------
 * C1 = [k]G, (x2, y2) = [k]P_B, C2 = M ^ KDF(x2 || y2, len), C3 =
 * SM3(x2 || M || y2). form: KS_SM2_C1C3C2 (the 2016 standard's order),
 * KS_SM2_C1C2C3 (the 2012 order still deployed) or KS_SM2_CIPHER_DER
 * (GM/T 0009's SM2Cipher SEQUENCE, what OpenSSL `pkeyutl -encrypt`
 * writes). C1 is written uncompressed; the raw forms read a compressed
 * C1 as well. Messages of any length, empty included.
 * encrypt: out_cap >= ks_sm2_ciphertext_bound(len, form) (else
 * KS_ERR_LENGTH with the bound in *out_len); *out_len gets the exact length
 * (the DER form may be up to 2 bytes shorter than the bound).
 * decrypt: out_cap >= the plaintext length (the ciphertext's length less
 * 97 in the raw forms; else KS_ERR_LENGTH with it in *out_len).
 * KS_ERR_BAD_CIPHERTEXT for a malformed ciphertext or a C1 that is not a
 * point of the curve, KS_ERR_CIPHERTEXT_MISMATCH when C3 does not match;
 * on either, out[0 .. plaintext length) is left zeroed. Constant time in
 * the private key, k and the message. out must not overlap the input. */
#define KS_SM2_C1C3C2 0
#define KS_SM2_C1C2C3 1
#define KS_SM2_CIPHER_DER 2
#define KS_SM2_CIPHERTEXT_OVERHEAD 97 /* C1 (65) and C3 (32) in the raw forms */
/* The most bytes a ciphertext of a len-byte message takes (0: overflow). */
KS_API size_t ks_sm2_ciphertext_bound(size_t len, int form);
KS_API int ks_sm2_encrypt(const ks_sm2_pubkey* key, int form, const uint8_t* msg, size_t len,
                          uint8_t* out, size_t out_cap, size_t* out_len);
KS_API int ks_sm2_decrypt(const ks_sm2_key* key, int form, const uint8_t* ct, size_t ct_len,
                          uint8_t* out, size_t out_cap, size_t* out_len);

/* Batches of encryptions and decryptions on the CPU threads of ctx, eight
 * at a time in AVX-512 IFMA lanes where the CPU has them, or on its GPU
 * (KS_BACKEND_GPU, or AUTO from the measured crossovers of
 * src/api/auto_gpu.h); with every array in device memory, on the device
 * (common.h, "Device memory"). Inputs in the flat layout of
 * common.h: item i is data[offsets[i] .. offsets[i+1]) (count + 1
 * offsets). encrypt: item i's ciphertext is written at out + offsets[i] +
 * i * ks_sm2_ciphertext_bound(0, form) (its slot: the message's length
 * plus that), so out_len >= data_len + count * ks_sm2_ciphertext_bound(0,
 * form); lengths[i] gets its length. ks_sm2_encrypt_batch encrypts every
 * item to one recipient (with the key's table, ks_sm2_pubkey_precompute,
 * built for the call when the batch is large and the key has none);
 * _keys takes count 65-byte 04||x||y keys, one per item.
 * decrypt: item i's plaintext is written at out + offsets[i] (out_len >=
 * data_len); lengths[i] gets its length. status[i]: KS_OK,
 * KS_ERR_BAD_PUBLIC_KEY (_keys), KS_ERR_BAD_CIPHERTEXT or
 * KS_ERR_CIPHERTEXT_MISMATCH; a failed item's slot is zeroed and its
 * length 0. out may not overlap the inputs. */
KS_API int ks_sm2_encrypt_batch(ks_ctx* ctx, const ks_sm2_pubkey* key, int form,
                                const uint8_t* data, size_t data_len, const uint64_t* offsets,
                                size_t count, uint8_t* out, size_t out_len, uint64_t* lengths,
                                int* status);
KS_API int ks_sm2_encrypt_batch_keys(ks_ctx* ctx, const uint8_t* public_keys, int form,
                                     const uint8_t* data, size_t data_len,
                                     const uint64_t* offsets, size_t count, uint8_t* out,
                                     size_t out_len, uint64_t* lengths, int* status);
KS_API int ks_sm2_decrypt_batch(ks_ctx* ctx, const ks_sm2_key* key, int form,
                                const uint8_t* data, size_t data_len, const uint64_t* offsets,
                                size_t count, uint8_t* out, size_t out_len, uint64_t* lengths,
                                int* status);

/* ---- SM2 key exchange (GB/T 32918.3-2016) -------------------------------
 * One party's side of the two-party exchange, as an object whose steps
 * run in the protocol's order only:
 *   initiator: ks_sm2_kx_start -> R_A; then ks_sm2_kx_finish(R_B[, S_B])
 *              -> K[, S_A]
 *   responder: ks_sm2_kx_respond(R_A) -> R_B and, without confirmation,
 *              K; with it, S_B, then ks_sm2_kx_confirm(S_A) -> K.
 * key is this party's static key, peer the other's static public key;
 * id and peer_id the two distinguishing IDs (KS_SM2_DEFAULT_ID unless the
 * parties agree on others). confirm (0 or 1) selects the optional key
 * confirmation (steps A9, A10, B8, B10); both parties must pass the same.
 * With confirmation each side releases its key only once the other's tag
 * has checked (else KS_ERR_CONFIRMATION). R values are written as 65-byte
 * 04||x||y and read in any public-key encoding; one that is not a point
 * of the curve gives KS_ERR_BAD_PUBLIC_KEY, a shared point at infinity
 * KS_ERR_POINT_AT_INFINITY. key_len (1 to 2^32-1 digests) is any length
 * both parties agree on. Any failure, or a step out of order
 * (KS_ERR_STATE), leaves the object failed for good with its secrets
 * wiped; argument errors (NULL, lengths) change nothing. Constant time in
 * the static and ephemeral private keys. Not thread-safe: one object per
 * exchange. */
#define KS_SM2_INITIATOR 0
#define KS_SM2_RESPONDER 1
#define KS_SM2_CONFIRM_BYTES 32 /* S_A, S_B */
typedef struct ks_sm2_kx ks_sm2_kx;
KS_API int ks_sm2_kx_new(int role, const ks_sm2_key* key, const uint8_t* id, size_t id_len,
                         const ks_sm2_pubkey* peer, const uint8_t* peer_id, size_t peer_id_len,
                         int confirm, ks_sm2_kx** out);
/* Initiator: R_A. */
KS_API int ks_sm2_kx_start(ks_sm2_kx* kx, uint8_t r[KS_SM2_PUBLIC_KEY_BYTES]);
/* Responder: R_B from R_A; with confirmation S_B into tag (key NULL,
 * key_len 0), without it the key (tag NULL). */
KS_API int ks_sm2_kx_respond(ks_sm2_kx* kx, const uint8_t* peer_r, size_t peer_r_len,
                             uint8_t r[KS_SM2_PUBLIC_KEY_BYTES], uint8_t* tag, uint8_t* key,
                             size_t key_len);
/* Initiator: the key from R_B; with confirmation peer_tag is S_B (checked
 * first) and tag receives S_A; without it both are NULL. */
KS_API int ks_sm2_kx_finish(ks_sm2_kx* kx, const uint8_t* peer_r, size_t peer_r_len,
                            const uint8_t* peer_tag, uint8_t* key, size_t key_len, uint8_t* tag);
/* Responder with confirmation: checks S_A, then writes the key. */
KS_API int ks_sm2_kx_confirm(ks_sm2_kx* kx, const uint8_t peer_tag[KS_SM2_CONFIRM_BYTES],
                             uint8_t* key, size_t key_len);
KS_API void ks_sm2_kx_free(ks_sm2_kx* kx);

/* Batches run on the CPU threads of ctx or on its GPU (AUTO: the GPU for
 * batches large enough to gain from it). Items that fail have their
 * outputs zeroed; a call that fails as a whole (e.g. KS_ERR_NO_MEMORY)
 * wipes every private key it was writing.
 * keygen: count private keys (32 bytes each) and public keys (65 each). */
KS_API int ks_sm2_keygen_batch(ks_ctx* ctx, size_t count, uint8_t* private_keys,
                               size_t private_keys_len, uint8_t* public_keys,
                               size_t public_keys_len, int* status);
/* Many messages (flat layout) under one key and one ID. */
KS_API int ks_sm2_sign_batch(ks_ctx* ctx, const ks_sm2_key* key, const uint8_t* id,
                             size_t id_len, const uint8_t* data, size_t data_len,
                             const uint64_t* offsets, size_t count, int nonce, uint8_t* sigs,
                             size_t sigs_len, int* status);
/* Many digests (32 bytes each) under one key. */
KS_API int ks_sm2_sign_digest_batch(ks_ctx* ctx, const ks_sm2_key* key, const uint8_t* digests,
                                    size_t count, int nonce, uint8_t* sigs, size_t sigs_len,
                                    int* status);
/* Digests with per-item private keys (32 bytes each, in [1, n-2]). */
KS_API int ks_sm2_sign_digest_batch_keys(ks_ctx* ctx, const uint8_t* private_keys,
                                         const uint8_t* digests, size_t count, int nonce,
                                         uint8_t* sigs, size_t sigs_len, int* status);
/* (message, signature, public key) triples: public_keys holds count
 * 65-byte 04||x||y keys; one ID for all. status[i] is KS_OK,
 * KS_ERR_VERIFY_FAILED, KS_ERR_SIGNATURE_RANGE or KS_ERR_BAD_PUBLIC_KEY. */
KS_API int ks_sm2_verify_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* id,
                               size_t id_len, const uint8_t* data, size_t data_len,
                               const uint64_t* offsets, size_t count, const uint8_t* sigs,
                               int* status);
KS_API int ks_sm2_verify_digest_batch(ks_ctx* ctx, const uint8_t* public_keys,
                                      const uint8_t* digests, size_t count,
                                      const uint8_t* sigs, int* status);
/* The same under one key object for every item (a CA's or a token
 * issuer's key, checked batch after batch): status[i] as above but never
 * KS_ERR_BAD_PUBLIC_KEY; Z_A is computed once. On the CPU the batch runs
 * over the key's table where ks_sm2_pubkey_precompute built it; a batch of
 * 256 items or more (32 a thread without AVX-512 IFMA) builds that table
 * on the key itself (KS_SM2_PUBKEY_TABLE_BYTES, kept until the key is
 * freed), so later calls under the key find it; the IFMA lanes make a
 * 189 KiB form of it for each call. On the GPU the batch always runs over
 * the key's device table (2.75 MiB, 32 MiB from 2^18 items), built by the
 * first batch under the key and kept for the next until a batch under
 * another key replaces it (one per device); with every array in device
 * memory it runs there (common.h, "Device memory"), a call that builds
 * the table waiting for it. */
KS_API int ks_sm2_verify_batch_key(ks_ctx* ctx, const ks_sm2_pubkey* key, const uint8_t* id,
                                   size_t id_len, const uint8_t* data, size_t data_len,
                                   const uint64_t* offsets, size_t count, const uint8_t* sigs,
                                   int* status);
KS_API int ks_sm2_verify_digest_batch_key(ks_ctx* ctx, const ks_sm2_pubkey* key,
                                          const uint8_t* digests, size_t count,
                                          const uint8_t* sigs, int* status);

/* e_i = SM3(Z_A || M_i) (GB/T 32918.2 clause 6.1 A1-A2) for batches whose
 * items carry their own public key (65 bytes each) AND their own ID: item
 * i's ID is ids[id_offsets[i] .. id_offsets[i+1]) (count + 1 offsets, as
 * for messages). The digests then go to ks_sm2_sign_digest_batch or
 * ks_sm2_verify_digest_batch. status[i] is KS_OK, KS_ERR_BAD_PUBLIC_KEY or
 * KS_ERR_ID_LENGTH; a failed item's digest is zeroed. */
KS_API int ks_sm2_digest_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* ids,
                               size_t ids_len, const uint64_t* id_offsets, const uint8_t* data,
                               size_t data_len, const uint64_t* offsets, size_t count,
                               uint8_t* digests, size_t digests_len, int* status);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_SM2_H_ */
