/*
 * kuaisuo (快锁): high-throughput cryptography for GPUs and CPUs. C API.
 *
 * Conventions (every function follows them):
 *  - Functions return KS_OK (0) or a negative ks_status code; ks_strerror()
 *    turns a code into a sentence. No function aborts, on bad input or
 *    otherwise: running out of memory is KS_ERR_NO_MEMORY, threads the OS
 *    will not create are KS_ERR_THREADS, and nothing is thrown across the
 *    C boundary.
 *  - Nothing caller-provided is trusted: a NULL pointer with a nonzero
 *    length, sizes whose products overflow, or inconsistent offsets are
 *    reported as errors before any memory is touched.
 *  - Batch calls take flat arrays: item i of a variable-length input is
 *    data[offsets[i] .. offsets[i+1]), with count+1 non-decreasing offsets
 *    and offsets[count] <= data_len. Per-item results go to a status array
 *    (may be NULL) of count ints; the call returns KS_OK if every item
 *    succeeded, KS_ERR_BATCH_ITEMS if some failed, or a call-level error:
 *    for bad arguments nothing was written; for a failure during the batch
 *    (e.g. KS_ERR_DEVICE midway through a GPU batch) outputs and statuses
 *    are unspecified. offsets and status need no alignment (they are read
 *    and written byte-wise where they are not aligned). Inputs may not
 *    change during a call. Outputs may not overlap inputs, the offsets or
 *    status (apart from out == data where a call allows it): if they do,
 *    the affected items' results are unspecified, but every access stays
 *    inside the buffers and lengths given (offsets that an output overlaps
 *    are copied and checked before the work, which reads only the copy).
 *  - Per-item keys: a batch call whose every item has its own raw private
 *    key ends in _keys (ks_sm2_sign_digest_batch_keys,
 *    ks_ed25519_sign_batch_keys, ks_x25519_derive_batch_keys); the same
 *    call without the suffix uses one key for every item, given as the key
 *    object (SM2, Ed25519) or, for X25519, its single raw key.
 *  - Deprecated names (KS_DEPRECATED) stay for one release, calling the
 *    functions that replace them; the compiler names the replacement.
 *  - Ownership: the library never keeps a pointer to caller memory after a
 *    call returns. Objects created by ks_*_new are freed by the matching
 *    ks_*_free, which accepts NULL.
 *  - Thread safety: a ks_ctx may be shared by several threads at once
 *    (batch calls on one context take turns on its worker threads).
 *    Streaming objects (ks_sm3_ctx, ks_hmac_sm3_ctx, ks_sm4_ctx,
 *    ks_sm4_gcm_ctx, ks_skinny_ctr_ctx) belong to one thread at a time.
 *    All other functions are reentrant.
 *  - Streaming objects are usable only between their init and their
 *    cleanse (or the final that wipes them): one never initialised, wiped,
 *    or holding bytes no init wrote is refused with KS_ERR_INVALID_ARGUMENT
 *    and left alone, whatever those bytes are.
 */
#ifndef KUAISUO_H_
#define KUAISUO_H_

#include <stddef.h>
#include <stdint.h>

#if defined(KS_BUILDING_LIBRARY)
#define KS_API __attribute__((visibility("default")))
#else
#define KS_API
#endif

/* Marks a declaration kept for one release under an old name; msg names
 * the replacement. A user may define KS_DEPRECATED(msg) empty beforehand
 * to silence the warnings. */
#ifndef KS_DEPRECATED
#if defined(__GNUC__) || defined(__clang__)
#define KS_DEPRECATED(msg) __attribute__((deprecated(msg)))
#elif defined(_MSC_VER)
#define KS_DEPRECATED(msg) __declspec(deprecated(msg))
#else
#define KS_DEPRECATED(msg)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version -------------------------------------------------------- */
#define KS_VERSION_MAJOR 0
#define KS_VERSION_MINOR 1
#define KS_VERSION_PATCH 0

/* (major << 16) | (minor << 8) | patch of the library actually loaded. */
KS_API uint32_t ks_version(void);
/* "0.1.0", static storage. */
KS_API const char* ks_version_string(void);

/* ---- Errors --------------------------------------------------------- */
typedef enum ks_status {
  KS_OK = 0,
  KS_ERR_NULL_POINTER = -1,        /* a required pointer was NULL */
  KS_ERR_INVALID_ARGUMENT = -2,    /* an enum or flag value out of range */
  KS_ERR_LENGTH = -3,              /* a length is wrong for this input */
  KS_ERR_OVERFLOW = -4,            /* sizes overflow when multiplied/added */
  KS_ERR_OFFSETS = -5,             /* batch offsets decrease or pass data_len */
  KS_ERR_NO_MEMORY = -6,
  KS_ERR_BACKEND_UNAVAILABLE = -7, /* GPU asked for but not built or absent */
  KS_ERR_DEVICE = -8,              /* the GPU runtime reported an error */
  KS_ERR_RANDOM = -9,              /* the OS random generator failed */
  KS_ERR_BATCH_ITEMS = -10,        /* some batch items failed: see status[] */
  KS_ERR_UNSUPPORTED = -11,        /* this operation has no implementation on the backend */
  KS_ERR_INTERNAL = -12,
  KS_ERR_THREADS = -13,            /* the OS refused to create worker threads */
  /* Decoding (each says what was wrong with the input) */
  KS_ERR_DER_TRUNCATED = -20,       /* input ends inside a DER element */
  KS_ERR_DER_TAG = -21,             /* unexpected DER element */
  KS_ERR_DER_LENGTH = -22,          /* indefinite, non-minimal or oversized DER length */
  KS_ERR_DER_TRAILING = -23,        /* bytes after the end of the DER structure */
  KS_ERR_DER_NON_MINIMAL = -24,     /* INTEGER with a redundant leading byte */
  KS_ERR_DER_NEGATIVE = -25,        /* negative INTEGER */
  KS_ERR_DER_TOO_LARGE = -26,       /* INTEGER larger than the field it encodes */
  KS_ERR_DER_EMPTY = -27,           /* INTEGER with no content bytes */
  KS_ERR_DER_BIT_STRING = -28,      /* BIT STRING with unused bits */
  KS_ERR_PEM_NO_BLOCK = -29,        /* no PEM block with the expected label */
  KS_ERR_PEM_NO_END = -30,          /* PEM BEGIN line without END */
  KS_ERR_PEM_ENCRYPTED = -31,       /* an encrypted key read without a passphrase, or
                                       OpenSSL's legacy Proc-Type encryption */
  KS_ERR_PEM_BASE64 = -32,          /* invalid base64 in a PEM body */
  KS_ERR_KEY_ALGORITHM = -33,       /* a key of another algorithm (OID or curve) */
  KS_ERR_KEY_VERSION = -34,         /* unsupported PKCS#8 / SEC1 version */
  KS_ERR_KEY_MISMATCH = -35,        /* embedded public key does not match the private key */
  /* Keys and signatures */
  KS_ERR_BAD_PRIVATE_KEY = -40,     /* SM2: not in [1, n-2]; any: a key of the wrong
                                       length in a key file (or SM2's raw bytes) */
  KS_ERR_BAD_PUBLIC_KEY = -41,      /* bad point encoding, coordinate >= p, off the curve,
                                       or (Ed25519) a point of small order */
  KS_ERR_POINT_AT_INFINITY = -42,   /* a point is (or a result reached) infinity */
  KS_ERR_SIGNATURE_RANGE = -43,     /* malformed signature: SM2 r or s outside [1, n-1] or
                                       r + s = n; Ed25519 S >= L, or R not a canonical
                                       point of large order */
  KS_ERR_VERIFY_FAILED = -44,       /* well-formed signature that does not verify */
  KS_ERR_ID_LENGTH = -45,           /* SM2 distinguishing ID longer than 8191 bytes */
  KS_ERR_ZERO_SHARED_SECRET = -46,  /* X25519: the peer's value has small order (all-zero secret) */
  KS_ERR_CONTEXT_LENGTH = -47,     /* Ed25519ctx/ph context over 255 bytes (or empty for ctx) */
  KS_ERR_BAD_PADDING = -48,        /* ECB/CBC: the decrypted PKCS#7 padding is malformed */
  KS_ERR_TAG_MISMATCH = -49,       /* GCM: the tag does not match; no plaintext was written */
  KS_ERR_WRONG_PASSPHRASE = -50,   /* encrypted key: the passphrase does not decrypt it */
  KS_ERR_PBES2_UNSUPPORTED = -51,  /* encrypted key: a scheme, PRF, cipher or iteration
                                      count outside those ks_pkcs8_decrypt lists */
  KS_ERR_PBES2_ITERATIONS = -52,   /* encrypted key: more PBKDF2 iterations than the
                                      reader's maximum (ks_pkcs8_decrypt_max) */
  /* Statuses of a service in front of the library (Python kuaisuo.batching,
   * kuaisuo serve): the item did not run. */
  KS_ERR_OVERLOADED = -60,         /* the service's queue is full; retry later */
  KS_ERR_DEADLINE = -61,           /* the item's deadline passed before it ran */
  KS_ERR_SHUTTING_DOWN = -62       /* the service is draining and takes no new work */
} ks_status;

/* A static, human-readable sentence for any code (unknown codes too). */
KS_API const char* ks_strerror(int code);

/* ---- Context: backend choice and CPU threads ------------------------- */
typedef enum ks_backend {
  KS_BACKEND_AUTO = 0, /* GPU when present and the batch is large enough */
  KS_BACKEND_CPU = 1,
  KS_BACKEND_GPU = 2
} ks_backend;

/* ks_ctx_config.gpu_flags: Ed25519 and X25519 public keys, key pairs and
 * signatures on the GPU compute [k]B for their secret k from a 48 MiB
 * table of 16-bit windows (16 additions) instead of the default comb (43
 * additions, each entry moved by a warp shuffle so that no address depends
 * on k). The table's loads are at addresses that depend on k: another
 * tenant of the same GPU (co-resident kernels, MPS) that can observe its
 * memory traffic learns about the secrets. For a GPU dedicated to the
 * process (SM2's GPU keygen and signing make the same trade by default;
 * docs/ARCHITECTURE.md). The table is built on the host and uploaded to
 * the device by the first such call (~0.1 s). */
#define KS_GPU_WIDE_BASE_TABLE 1u

typedef struct ks_ctx_config {
  uint32_t struct_size;  /* sizeof(ks_ctx_config): lets the struct grow; the
                            16 bytes before gpu_flags are accepted too */
  int32_t backend;       /* a ks_backend */
  int32_t gpu_device;    /* CUDA device index, for GPU and AUTO */
  uint32_t cpu_threads;  /* 0 = one per online CPU */
  uint32_t gpu_flags;    /* 0 or KS_GPU_WIDE_BASE_TABLE */
} ks_ctx_config;

typedef struct ks_ctx ks_ctx;

/* Fills *config with the defaults (AUTO, device 0, all CPUs). */
KS_API void ks_ctx_config_init(ks_ctx_config* config);
/* config may be NULL for the defaults. With KS_BACKEND_GPU the call fails
 * with KS_ERR_BACKEND_UNAVAILABLE if the library was built without CUDA or
 * the device does not exist; AUTO silently uses the CPU then. */
KS_API int ks_ctx_new(const ks_ctx_config* config, ks_ctx** out);
KS_API void ks_ctx_free(ks_ctx* ctx);
/* The backend batch calls will use: KS_BACKEND_CPU or KS_BACKEND_GPU
 * (AUTO resolves per call; this returns GPU if one is available to it). */
KS_API int ks_ctx_backend(const ks_ctx* ctx);
KS_API uint32_t ks_ctx_cpu_threads(const ks_ctx* ctx);

/* Whether this build has the CUDA backend, and how many devices it sees. */
KS_API int ks_gpu_built(void);
KS_API int ks_gpu_device_count(void);
/* Host memory for batch buffers: page-locked ("pinned") when a CUDA device
 * is present, so that GPU batches copy straight from and to it instead of
 * through the engine's staging buffers (fixed-size inputs and outputs:
 * keys, digests, signatures, statuses); ordinary memory otherwise. Pinning
 * is slow and takes memory from the OS: allocate once, reuse, free with
 * ks_host_free (which accepts NULL). KS_OK or KS_ERR_NO_MEMORY. */
KS_API int ks_host_alloc(size_t bytes, void** out);
KS_API void ks_host_free(void* p);
/* The features the CPU dispatch uses, e.g. "bmi2 adx avx2 avx512f ...". */
KS_API const char* ks_cpu_features(void);

/* ---- Direction ------------------------------------------------------ */
/* Every cipher call that both encrypts and decrypts takes the direction as
 * an int encrypt parameter (SM4: ks_sm4_crypt, ks_sm4_init,
 * ks_sm4_gcm_init, ks_sm4_crypt_buffer, ks_sm4_batch; SKINNY: every
 * ks_skinny128_256_* call with one): KS_ENCRYPT or KS_DECRYPT (any nonzero
 * value encrypts, as it always has). The one-shot AEAD calls are pairs
 * instead (ks_sm4_gcm_seal / _open and their _buffer forms): sealing and
 * opening take different arguments (open checks a given tag, seal writes
 * one) and open may refuse to write anything, so they are two operations,
 * not one with a direction. */
typedef enum ks_direction { KS_DECRYPT = 0, KS_ENCRYPT = 1 } ks_direction;

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
 * contexts (KS_BACKEND_GPU) ECB, CTR and GCM with 12-byte IVs run on the
 * GPU in the constant-time bitsliced kernels (key schedules and GHASH on
 * the device, GCM tags checked there before any plaintext is released,
 * the batch copied in and out whole); CBC, CFB, OFB, GCM with other IV
 * lengths, and every mode under AUTO, run on the context's CPU threads
 * (AUTO: the GPU path's crossover is not measured in its favour yet).
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
/* A validated public key (on the curve, not infinity). Immutable. */
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
 * (ECB encryption and CTR, the constant-time bitsliced kernel; GPU contexts
 * always; AUTO from 64 KiB in ks_host_alloc memory, which is copied to and
 * from the GPU directly, and from 256 KiB in ordinary memory; ECB decryption
 * stays on the CPU threads). */
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

/* Many independent items on the context's CPU threads (no GPU path, even
 * on GPU contexts): item i under tweakey tweakeys[32*i ..), iv ivs[16*i
 * ..) (CTR; ivs NULL for ECB), input
 * data[offsets[i] .. offsets[i+1]) to the same offsets of out (out_len >=
 * offsets[count]; out may be data). An ECB item that is not whole blocks
 * fails with KS_ERR_LENGTH (its output untouched). */
KS_API int ks_skinny128_256_batch(ks_ctx* ctx, int mode, int encrypt, const uint8_t* tweakeys,
                                  const uint8_t* ivs, const uint8_t* data, size_t data_len,
                                  const uint64_t* offsets, size_t count, uint8_t* out,
                                  size_t out_len, int* status);

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

/* ---- Password-encrypted private keys (PKCS#8 with PBES2) ------------- */
/* EncryptedPrivateKeyInfo (RFC 5958 section 3) under PBES2 (RFC 8018):
 * PBKDF2 over HMAC-SHA256, HMAC-SM3 or (reading only) HMAC-SHA1, then
 * AES-128/192/256-CBC or SM4-CBC, in any combination: what `openssl pkcs8
 * -topk8 -v2 ...`, `openssl genpkey -aes256` and GmSSL's `sm2keygen -pass`
 * write. The ciphers are kuaisuo's own constant-time code (SM4; a
 * table-free AES for key files only), so no libcrypto is needed at run
 * time.
 *
 * Writing, a scheme names the PRF and the cipher. Who reads which:
 *   AES256_SHA256, AES128_SHA256: OpenSSL (1.1 and 3), Tongsuo, and most
 *     other PKCS#8 readers; not GmSSL 3 (SM4-CBC with HMAC-SM3 only).
 *   SM4_SHA256: OpenSSL 3 and Tongsuo (`openssl pkcs8 -topk8 -v2 sm4-cbc
 *     -v2prf hmacWithSHA256` writes the same); not GmSSL 3. The scheme
 *     for an SM4-encrypted key that OpenSSL must read.
 *   SM4_SM3: GmSSL (what `sm2keygen -pass` writes); OpenSSL 3.0 and
 *     Tongsuo refuse it ("unsupported prf": no HMAC-SM3 PRF there).
 * kuaisuo reads all four (and the other combinations listed above). */
typedef enum ks_pbes2_scheme {
  KS_PBES2_AES256_SHA256 = 0, /* PBKDF2-HMAC-SHA256, AES-256-CBC: OpenSSL 3's default */
  KS_PBES2_AES128_SHA256 = 1, /* PBKDF2-HMAC-SHA256, AES-128-CBC */
  KS_PBES2_SM4_SM3 = 2,       /* PBKDF2-HMAC-SM3, SM4-CBC: GmSSL's (GM/T tooling) */
  KS_PBES2_SM4_SHA256 = 3     /* PBKDF2-HMAC-SHA256, SM4-CBC: OpenSSL 3 and Tongsuo read it */
} ks_pbes2_scheme;
/* Iterations when 0 is passed: OWASP's 2023 figure for PBKDF2-HMAC-SHA256
 * (OpenSSL writes 2,048). */
#define KS_PBES2_DEFAULT_ITERATIONS 600000u
/* Reading: a file's iteration count is work an attacker who supplies the
 * file makes the reader do (PBKDF2's cost is linear in it, RFC 8018 5.2),
 * so readers cap it. ks_pkcs8_decrypt accepts up to the default maximum,
 * enough for every file kuaisuo, OpenSSL (2,048) or GmSSL writes by
 * default; ks_pkcs8_decrypt_max takes the caller's own, up to the absolute
 * maximum. At 600,000 iterations one decryption took 0.42 s (PBKDF2-
 * HMAC-SHA256), 0.38 s (HMAC-SM3) and 2.7 s (HMAC-SHA1) on the 2-core dev
 * machine (median of 5; 10,000,000 with HMAC-SHA1 took 44 s). */
#define KS_PBES2_DEFAULT_MAX_ITERATIONS 600000u
#define KS_PBES2_ABSOLUTE_MAX_ITERATIONS 10000000u

/* in: an EncryptedPrivateKeyInfo, DER or PEM ("ENCRYPTED PRIVATE KEY";
 * detected). out: the PrivateKeyInfo DER inside it (secret: wipe it after
 * use), for ks_sm2_key_decode, ks_ed25519_key_decode or
 * ks_x25519_private_key_decode; out_cap >= in_len always suffices. A
 * damaged structure gives its DER or PEM code, a scheme outside those above
 * KS_ERR_PBES2_UNSUPPORTED, a passphrase that does not decrypt it
 * KS_ERR_WRONG_PASSPHRASE, more than KS_PBES2_DEFAULT_MAX_ITERATIONS
 * iterations KS_ERR_PBES2_ITERATIONS (before any key derivation). */
KS_API int ks_pkcs8_decrypt(const uint8_t* in, size_t in_len, const uint8_t* passphrase,
                            size_t passphrase_len, uint8_t* out, size_t out_cap,
                            size_t* out_len);
/* ks_pkcs8_decrypt with the caller's iteration maximum: 0 for
 * KS_PBES2_DEFAULT_MAX_ITERATIONS, else 1 to
 * KS_PBES2_ABSOLUTE_MAX_ITERATIONS (above: KS_ERR_INVALID_ARGUMENT). A
 * file with more iterations gives KS_ERR_PBES2_ITERATIONS. */
KS_API int ks_pkcs8_decrypt_max(const uint8_t* in, size_t in_len, const uint8_t* passphrase,
                                size_t passphrase_len, uint32_t max_iterations, uint8_t* out,
                                size_t out_cap, size_t* out_len);
/* der: a PrivateKeyInfo (ks_*_key_encode with pem = 0). scheme: a
 * ks_pbes2_scheme; iterations 0 for KS_PBES2_DEFAULT_ITERATIONS; a fresh
 * salt and IV from the OS. pem != 0 for "-----BEGIN ENCRYPTED PRIVATE
 * KEY-----". out_cap >= 2 * der_len + 512 always suffices (a NULL out asks
 * for the size but runs the whole key derivation to learn it). */
KS_API int ks_pkcs8_encrypt(const uint8_t* der, size_t der_len, const uint8_t* passphrase,
                            size_t passphrase_len, int scheme, uint32_t iterations, int pem,
                            uint8_t* out, size_t out_cap, size_t* out_len);

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_H_ */
