/*
 * kuaisuo (快锁): high-throughput cryptography for GPUs and CPUs. C API.
 *
 * Conventions (every function follows them):
 *  - Functions return KS_OK (0) or a negative ks_status code; ks_strerror()
 *    turns a code into a sentence. No function aborts on bad input.
 *  - Nothing caller-provided is trusted: a NULL pointer with a nonzero
 *    length, sizes whose products overflow, or inconsistent offsets are
 *    reported as errors before any memory is touched.
 *  - Batch calls take flat arrays: item i of a variable-length input is
 *    data[offsets[i] .. offsets[i+1]), with count+1 non-decreasing offsets
 *    and offsets[count] <= data_len. Per-item results go to a status array
 *    (may be NULL) of count ints; the call returns KS_OK if every item
 *    succeeded, KS_ERR_BATCH_ITEMS if some failed, or a call-level error
 *    (then nothing was written).
 *  - Ownership: the library never keeps a pointer to caller memory after a
 *    call returns. Objects created by ks_*_new are freed by the matching
 *    ks_*_free, which accepts NULL.
 *  - Thread safety: a ks_ctx may be shared by several threads at once
 *    (batch calls on one context take turns on its worker threads).
 *    Streaming objects (ks_sm3_ctx, ks_hmac_sm3_ctx) belong to one thread at
 *    a time. All other functions are reentrant.
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
  KS_ERR_INTERNAL = -12
} ks_status;

/* A static, human-readable sentence for any code (unknown codes too). */
KS_API const char* ks_strerror(int code);

/* ---- Context: backend choice and CPU threads ------------------------- */
typedef enum ks_backend {
  KS_BACKEND_AUTO = 0, /* GPU when present and the batch is large enough */
  KS_BACKEND_CPU = 1,
  KS_BACKEND_GPU = 2
} ks_backend;

typedef struct ks_ctx_config {
  uint32_t struct_size;  /* sizeof(ks_ctx_config): lets the struct grow */
  int32_t backend;       /* a ks_backend */
  int32_t gpu_device;    /* CUDA device index, for GPU and AUTO */
  uint32_t cpu_threads;  /* 0 = one per online CPU */
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
/* The features the CPU dispatch uses, e.g. "bmi2 adx avx2 avx512f ...". */
KS_API const char* ks_cpu_features(void);

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

#ifdef __cplusplus
}
#endif

#endif /* KUAISUO_H_ */
