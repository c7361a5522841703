/* kuaisuo/curve25519.h: Ed25519 signatures (RFC 8032) and X25519 key agreement (RFC 7748).
 * Conventions, errors and the context: kuaisuo/common.h. */
#ifndef KUAISUO_CURVE25519_H_
#define KUAISUO_CURVE25519_H_

#include <kuaisuo/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Ed25519 signatures (RFC 8032) ------------------------------------ */
/* A private key is its 32-byte seed (what RFC 8032, OpenSSL and PKCS#8 of
 * RFC 8410 store); signatures are R || S, 64 bytes, deterministic.
 *
 * Verification rules, the same for single and batch calls, on the CPU and
 * the GPU: S must be below L; A (the public key) and R must be canonical
 * encodings (y < p, no "negative zero") of points of large order (small-
 * order ones are rejected, as libsodium does); the equation is the
 * cofactored [8][S]B = [8]R + [8][k]A. OpenSSL checks the cofactorless
 * [S]B = R + [k]A, so a signature whose R carries a small-order component
 * verifies here and not there; every other input gets the same answer.
 * Results: KS_OK, KS_ERR_SIGNATURE_RANGE (malformed R or S),
 * KS_ERR_VERIFY_FAILED. */
#define KS_ED25519_SEED_BYTES 32
#define KS_ED25519_PUBLIC_KEY_BYTES 32
#define KS_ED25519_SIGNATURE_BYTES 64
#define KS_ED25519_MAX_CONTEXT_BYTES 255

/* The instances of RFC 8032 5.1: Ed25519 (no context), Ed25519ctx (context
 * of 1..255 bytes), Ed25519ph (SHA-512 of the message is signed; context of
 * 0..255 bytes). */
typedef enum ks_ed25519_flavor {
  KS_ED25519_PURE = 0,
  KS_ED25519_CTX = 1,
  KS_ED25519_PH = 2
} ks_ed25519_flavor;

/* A private key ready to sign (seed, expanded scalar and nonce prefix,
 * public key); wiped when freed. Immutable: may be shared by threads. */
typedef struct ks_ed25519_key ks_ed25519_key;
/* A validated public key. Immutable. */
typedef struct ks_ed25519_pubkey ks_ed25519_pubkey;

KS_API int ks_ed25519_key_generate(ks_ed25519_key** out);
/* Any 32 bytes are a seed; another seed_len is KS_ERR_LENGTH. */
KS_API int ks_ed25519_key_from_seed(const uint8_t* seed, size_t seed_len, ks_ed25519_key** out);
/* PKCS#8 (RFC 8410; version 0, or 1 with a public key that must match), DER
 * or PEM ("PRIVATE KEY"; detected from the first byte). */
KS_API int ks_ed25519_key_decode(const uint8_t* in, size_t in_len, ks_ed25519_key** out);
KS_API int ks_ed25519_key_to_seed(const ks_ed25519_key* key, uint8_t seed[KS_ED25519_SEED_BYTES]);
/* PKCS#8 as OpenSSL writes it; pem != 0 for "-----BEGIN PRIVATE KEY-----". */
KS_API int ks_ed25519_key_encode(const ks_ed25519_key* key, int pem, uint8_t* out,
                                 size_t out_cap, size_t* out_len);
KS_API int ks_ed25519_key_public(const ks_ed25519_key* key, ks_ed25519_pubkey** out);
KS_API void ks_ed25519_key_free(ks_ed25519_key* key);

/* 32 bytes; KS_ERR_BAD_PUBLIC_KEY for a non-canonical encoding, a value off
 * the curve or a point of small order. */
KS_API int ks_ed25519_pubkey_from_bytes(const uint8_t* in, size_t in_len, ks_ed25519_pubkey** out);
/* SubjectPublicKeyInfo (RFC 8410), DER or PEM ("PUBLIC KEY"). */
KS_API int ks_ed25519_pubkey_decode(const uint8_t* in, size_t in_len, ks_ed25519_pubkey** out);
KS_API int ks_ed25519_pubkey_to_bytes(const ks_ed25519_pubkey* key,
                                      uint8_t out[KS_ED25519_PUBLIC_KEY_BYTES]);
KS_API int ks_ed25519_pubkey_encode(const ks_ed25519_pubkey* key, int pem, uint8_t* out,
                                    size_t out_cap, size_t* out_len);
KS_API void ks_ed25519_pubkey_free(ks_ed25519_pubkey* key);

/* Pure Ed25519. */
KS_API int ks_ed25519_sign(const ks_ed25519_key* key, const uint8_t* msg, size_t msg_len,
                           uint8_t sig[KS_ED25519_SIGNATURE_BYTES]);
KS_API int ks_ed25519_verify(const ks_ed25519_pubkey* key, const uint8_t* msg, size_t msg_len,
                             const uint8_t sig[KS_ED25519_SIGNATURE_BYTES]);
/* Any instance (flavor) with its context; KS_ERR_CONTEXT_LENGTH for a
 * context the instance does not allow. */
KS_API int ks_ed25519_sign_ex(const ks_ed25519_key* key, int flavor, const uint8_t* context,
                              size_t context_len, const uint8_t* msg, size_t msg_len,
                              uint8_t sig[KS_ED25519_SIGNATURE_BYTES]);
KS_API int ks_ed25519_verify_ex(const ks_ed25519_pubkey* key, int flavor, const uint8_t* context,
                                size_t context_len, const uint8_t* msg, size_t msg_len,
                                const uint8_t sig[KS_ED25519_SIGNATURE_BYTES]);

/* Batches (pure Ed25519), on the context's CPU threads (8 AVX-512 IFMA
 * lanes where the CPU has them) or on its GPU: GPU contexts always, AUTO
 * from 4,096 items (keygen's seeds then drawn on the device). Items that
 * fail have their outputs zeroed.
 * keygen: count fresh seeds (32 bytes each) and their public keys. */
KS_API int ks_ed25519_keygen_batch(ks_ctx* ctx, size_t count, uint8_t* seeds, size_t seeds_len,
                                   uint8_t* public_keys, size_t public_keys_len, int* status);
/* The public keys of count given seeds. */
KS_API int ks_ed25519_public_keys_batch(ks_ctx* ctx, const uint8_t* seeds, size_t count,
                                        uint8_t* public_keys, size_t public_keys_len,
                                        int* status);
/* Many messages (flat layout) under one key. */
KS_API int ks_ed25519_sign_batch(ks_ctx* ctx, const ks_ed25519_key* key, const uint8_t* data,
                                 size_t data_len, const uint64_t* offsets, size_t count,
                                 uint8_t* sigs, size_t sigs_len, int* status);
/* Messages with per-item private keys: private_keys holds count 32-byte
 * seeds (item i signed under seed i). */
KS_API int ks_ed25519_sign_batch_keys(ks_ctx* ctx, const uint8_t* private_keys,
                                      const uint8_t* data, size_t data_len,
                                      const uint64_t* offsets, size_t count, uint8_t* sigs,
                                      size_t sigs_len, int* status);
/* Deprecated: the old name of ks_ed25519_sign_batch_keys (same arguments). */
KS_DEPRECATED("use ks_ed25519_sign_batch_keys")
KS_API int ks_ed25519_sign_batch_seeds(ks_ctx* ctx, const uint8_t* seeds, const uint8_t* data,
                                       size_t data_len, const uint64_t* offsets, size_t count,
                                       uint8_t* sigs, size_t sigs_len, int* status);
/* (message, signature, public key) triples: public_keys holds count 32-byte
 * keys. status[i] is KS_OK, KS_ERR_VERIFY_FAILED, KS_ERR_SIGNATURE_RANGE or
 * KS_ERR_BAD_PUBLIC_KEY. */
KS_API int ks_ed25519_verify_batch(ks_ctx* ctx, const uint8_t* public_keys, const uint8_t* data,
                                   size_t data_len, const uint64_t* offsets, size_t count,
                                   const uint8_t* sigs, int* status);

/* ---- X25519 key agreement (RFC 7748) ---------------------------------- */
/* Private keys are any 32 bytes (clamped when used), public keys and shared
 * secrets 32-byte u-coordinates; the top bit of a peer's u is ignored and
 * values of p and above are taken mod p (RFC 7748 5). A peer value of small
 * order makes the secret all zero: KS_ERR_ZERO_SHARED_SECRET (RFC 7748 6.1,
 * as OpenSSL), with zeros in the output. */
#define KS_X25519_KEY_BYTES 32

KS_API int ks_x25519_keygen(uint8_t private_key[KS_X25519_KEY_BYTES],
                            uint8_t public_key[KS_X25519_KEY_BYTES]);
KS_API int ks_x25519_public_key(const uint8_t private_key[KS_X25519_KEY_BYTES],
                                uint8_t public_key[KS_X25519_KEY_BYTES]);
KS_API int ks_x25519(const uint8_t private_key[KS_X25519_KEY_BYTES],
                     const uint8_t peer_public_key[KS_X25519_KEY_BYTES],
                     uint8_t shared_secret[KS_X25519_KEY_BYTES]);
/* PKCS#8 / SubjectPublicKeyInfo (RFC 8410), DER or PEM, to and from raw
 * keys. A version 1 PKCS#8 key's embedded public key must match. */
KS_API int ks_x25519_private_key_decode(const uint8_t* in, size_t in_len,
                                        uint8_t private_key[KS_X25519_KEY_BYTES]);
KS_API int ks_x25519_private_key_encode(const uint8_t private_key[KS_X25519_KEY_BYTES], int pem,
                                        uint8_t* out, size_t out_cap, size_t* out_len);
KS_API int ks_x25519_public_key_decode(const uint8_t* in, size_t in_len,
                                       uint8_t public_key[KS_X25519_KEY_BYTES]);
KS_API int ks_x25519_public_key_encode(const uint8_t public_key[KS_X25519_KEY_BYTES], int pem,
                                       uint8_t* out, size_t out_cap, size_t* out_len);

/* Batches on the context's CPU threads or on its GPU: GPU contexts always,
 * AUTO from 4,096 items for keygen and public keys (keygen's private keys
 * drawn on the device) and from 1,024 for shared secrets. keygen: count
 * fresh private keys and their public keys. */
KS_API int ks_x25519_keygen_batch(ks_ctx* ctx, size_t count, uint8_t* private_keys,
                                  size_t private_keys_len, uint8_t* public_keys,
                                  size_t public_keys_len, int* status);
KS_API int ks_x25519_public_keys_batch(ks_ctx* ctx, const uint8_t* private_keys, size_t count,
                                       uint8_t* public_keys, size_t public_keys_len,
                                       int* status);
/* Shared secrets: shared[32*i ..) = X25519(key, peer_public_keys[32*i ..))
 * for count peers. derive_batch: one private key for every item;
 * derive_batch_keys: private_keys holds count keys, item i uses key i.
 * status[i] is KS_OK or KS_ERR_ZERO_SHARED_SECRET. (Named for the
 * per-item-keys rule above: "derive" as in key derivation, since the
 * unsuffixed ks_x25519_batch is taken by the flag form below.) */
KS_API int ks_x25519_derive_batch(ks_ctx* ctx, const uint8_t private_key[KS_X25519_KEY_BYTES],
                                  const uint8_t* peer_public_keys, size_t count, uint8_t* shared,
                                  size_t shared_len, int* status);
KS_API int ks_x25519_derive_batch_keys(ks_ctx* ctx, const uint8_t* private_keys,
                                       const uint8_t* peer_public_keys, size_t count,
                                       uint8_t* shared, size_t shared_len, int* status);
/* Deprecated: both of the above behind a flag; per_item_keys != 0 is
 * ks_x25519_derive_batch_keys, 0 is ks_x25519_derive_batch. */
KS_DEPRECATED("use ks_x25519_derive_batch or ks_x25519_derive_batch_keys")
KS_API int ks_x25519_batch(ks_ctx* ctx, const uint8_t* private_keys, int per_item_keys,
                           const uint8_t* peer_public_keys, size_t count, uint8_t* shared,
                           size_t shared_len, int* status);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_CURVE25519_H_ */
