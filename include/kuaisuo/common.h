/*
 * kuaisuo/common.h: what every part of the C API shares (the conventions
 * below, errors, the context, the direction of a cipher call). Included by
 * each algorithm's header; <kuaisuo.h> includes them all.
 *
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
#ifndef KUAISUO_COMMON_H_
#define KUAISUO_COMMON_H_

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

/* ---- Version: KS_VERSION_MAJOR/MINOR/PATCH are in <kuaisuo.h> ------ */
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
  KS_ERR_RANDOM = -9,              /* the OS random generator failed, or (an item of a batch
                                      in device memory) a value drawn on the GPU was unusable
                                      (an SM2 key or nonce out of range, about 2^-255; an SM2
                                      encryption whose t stayed all zero, at most 2^-72) */
  KS_ERR_BATCH_ITEMS = -10,        /* some batch items failed: see status[] */
  KS_ERR_UNSUPPORTED = -11,        /* this operation has no implementation on the backend */
  KS_ERR_INTERNAL = -12,
  KS_ERR_THREADS = -13,            /* the OS refused to create worker threads */
  KS_ERR_MEMORY_MIX = -14,         /* host and device memory mixed in one call, or device
                                      memory of another device than the context's */
  KS_ERR_ALIGNMENT = -15,          /* a device buffer is not 16-byte aligned */
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
  KS_ERR_BAD_CIPHERTEXT = -53,     /* SM2 encryption: too short, malformed, or C1 not a point
                                      of the curve (or infinity); nothing was written */
  KS_ERR_CIPHERTEXT_MISMATCH = -54, /* SM2 encryption: C3 does not match (a wrong key or a
                                      damaged ciphertext); no plaintext was written */
  KS_ERR_STATE = -55,              /* SM2 key exchange: a step called out of order, or after
                                      the exchange failed (it stays failed) */
  KS_ERR_CONFIRMATION = -56,       /* SM2 key exchange: the peer's confirmation (S_B or S_A)
                                      does not match; no key was written */
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

/* ---- Device memory ----------------------------------------------------
 * On a context with a GPU (KS_BACKEND_GPU, or AUTO that opened one), the
 * buffer calls ks_sm4_crypt_buffer, ks_sm4_gcm_seal_buffer /
 * _open_buffer and ks_skinny128_256_crypt_buffer take data already on the
 * device: when their input and output (and GCM's tag) are device (or
 * managed) memory of the context's device, as cudaPointerGetAttributes
 * reports it (cudaMalloc, CuPy, PyTorch), they run on it in place, with no
 * host copies, asynchronously on the context's stream: the call returns
 * once the work is queued, and the caller synchronises with the stream.
 * GCM open is the exception: its return value is the tag's verdict, so it
 * waits for it on the stream (the plaintext is never written on a
 * mismatch); GCM on the device needs a 96-bit IV (KS_ERR_UNSUPPORTED).
 * Host and device memory mixed in one call is KS_ERR_MEMORY_MIX; device
 * buffers must be 16-byte aligned (cudaMalloc's are 256): KS_ERR_ALIGNMENT.
 * Keys, IVs and GCM's AAD stay host arguments; the round keys reach the
 * device as kernel parameters and are wiped from the host when the call
 * returns. Every batch call follows the same rule for all its arrays:
 * ks_sm3_batch, ks_sm4_batch, ks_skinny128_256_batch,
 * ks_ed25519_keygen_batch / _public_keys_batch / _sign_batch / _keys /
 * _verify_batch, ks_x25519_keygen_batch / _public_keys_batch /
 * _derive_batch / _keys, and ks_sm2_keygen_batch, _sign_batch,
 * _sign_digest_batch / _keys, _verify_batch, _verify_digest_batch (and
 * their _key forms), _digest_batch, _encrypt_batch / _keys and _decrypt_batch (data,
 * offsets, keys, IVs, AAD, tags, X25519's one private key included, seeds,
 * signatures, digests, secrets, ciphertexts, lengths, statuses, the
 * per-item IDs of ks_sm2_digest_batch; SM2's one ID and the key objects
 * stay on the host, a private key
 * reaching the device as a kernel parameter; ks_sm4_batch's GCM needs
 * 96-bit IVs there; SM2 signing there takes random nonces only): on the
 * device they never read the offsets, keys or signatures on the host, so
 * an item whose range descends or passes data_len gets KS_ERR_OFFSETS in
 * its status (SM3: and a zero digest) where a host call would fail as a
 * whole, and the call returns KS_OK once queued; statuses must be given.
 * SM2 encryption and decryption lay their output slots out from the
 * offsets, so there offsets that do not ascend within data_len fail every
 * item (KS_ERR_OFFSETS, length 0) with nothing written to out. Keys and
 * nonces drawn there are 64 random bytes reduced mod n (no item returns
 * to the host), and the calls that draw them (SM2 keygen, signing and
 * encryption, Ed25519 and X25519 keygen) refuse a stream being captured
 * into a CUDA graph (KS_ERR_UNSUPPORTED: every replay would draw the same
 * values); a decryption with a C2 of 4 GiB or more is KS_ERR_UNSUPPORTED
 * there. CPU contexts do not look at pointers: device memory needs a GPU
 * context.
 * docs/design/0013-device-memory.md says why this is a rule on the
 * existing calls and not a second set of calls; docs/DEVICE.md shows it
 * from C and Python. */
/* The CUDA stream (a cudaStream_t) device-memory calls on ctx are queued
 * on; NULL (the default) is the legacy default stream. KS_ERR_BACKEND_
 * UNAVAILABLE on a context without a GPU. The context does not own it. */
KS_API int ks_ctx_set_stream(ks_ctx* ctx, void* stream);
KS_API void* ks_ctx_stream(const ks_ctx* ctx);

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

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_COMMON_H_ */
