/* provider.c: the entry point of kuaisuo's OpenSSL 3 provider: which
 * algorithms it offers under which names, its parameters (name, version,
 * the operation counters), and errors reported through the core. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "ks_prov.h"

/* ---- The core's error functions ----------------------------------------- */
static OSSL_FUNC_core_new_error_fn* core_new_error;
static OSSL_FUNC_core_set_error_debug_fn* core_set_error_debug;
static OSSL_FUNC_core_vset_error_fn* core_vset_error;

/* Reason codes are kuaisuo's statuses negated (a provider's reasons must be
 * positive); their texts are ks_strerror's, which are static. */
#define KS_PROV_MAX_REASON 64
static OSSL_ITEM reason_strings[KS_PROV_MAX_REASON + 1];

static void fill_reason_strings(void) {
  size_t n = 0;
  for (int code = 1; code <= KS_PROV_MAX_REASON; ++code) {
    const char* text = ks_strerror(-code);
    if (strncmp(text, "unknown", 7) == 0) continue; /* gaps in the numbering */
    reason_strings[n].id = (unsigned int)code;
    reason_strings[n].ptr = (void*)text;
    ++n;
  }
  reason_strings[n].id = 0;
  reason_strings[n].ptr = NULL;
}

static void vset_error(const OSSL_CORE_HANDLE* handle, uint32_t reason, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  core_vset_error(handle, reason, fmt, args);
  va_end(args);
}

int ks_prov_error(const ks_prov_ctx* pc, int status, const char* what, const char* file,
                  int line, const char* func) {
  if (core_new_error == NULL || core_set_error_debug == NULL || core_vset_error == NULL)
    return 0;
  const OSSL_CORE_HANDLE* handle = pc != NULL ? pc->handle : NULL;
  uint32_t reason = status < 0 ? (uint32_t)-status : (uint32_t)-KS_ERR_INTERNAL;
  core_new_error(handle);
  core_set_error_debug(handle, file, line, func);
  vset_error(handle, reason, "kuaisuo: %s: %s", what, ks_strerror(-(int)reason));
  return 0;
}

/* ---- Counters --------------------------------------------------------------- */
static _Atomic uint64_t counters[KS_PROV_COUNTERS];
static const char* const counter_names[KS_PROV_COUNTERS] = {
    "kuaisuo-digest", "kuaisuo-cipher", "kuaisuo-keygen",  "kuaisuo-sign",
    "kuaisuo-verify", "kuaisuo-derive", "kuaisuo-encrypt", "kuaisuo-decrypt"};

const char* ks_prov_counter_name(ks_prov_counter which) { return counter_names[which]; }
uint64_t ks_prov_counter_value(ks_prov_counter which) { return atomic_load(&counters[which]); }

/* One line per operation to $KUAISUO_PROVIDER_TRACE, for a process the test
 * cannot ask (nginx): appended with O_APPEND so that workers do not
 * overwrite each other's lines. */
static void trace(ks_prov_counter which, const char* algorithm) {
  const char* path = getenv("KUAISUO_PROVIDER_TRACE");
  if (path == NULL || path[0] == '\0') return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[128];
  int n = snprintf(line, sizeof line, "%ld %s %s\n", (long)getpid(), counter_names[which] + 8,
                   algorithm);
  if (n > 0 && write(fd, line, (size_t)n) < 0) { /* best effort: tracing never fails an operation */
  }
  close(fd);
}

void ks_prov_count(ks_prov_counter which, const char* algorithm) {
  atomic_fetch_add(&counters[which], 1);
  trace(which, algorithm);
}

/* ---- Algorithms ------------------------------------------------------------ */
#define KS_PROPS "provider=kuaisuo"

static const OSSL_ALGORITHM digests[] = {
    {"SM3:1.2.156.10197.1.401", KS_PROPS, ks_prov_sm3_functions, "kuaisuo SM3"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM ciphers[] = {
    {"SM4-ECB:1.2.156.10197.1.104.1", KS_PROPS, ks_prov_sm4_ecb_functions, "kuaisuo SM4-ECB"},
    {"SM4-CBC:SM4:1.2.156.10197.1.104.2", KS_PROPS, ks_prov_sm4_cbc_functions,
     "kuaisuo SM4-CBC"},
    {"SM4-OFB:SM4-OFB128:1.2.156.10197.1.104.3", KS_PROPS, ks_prov_sm4_ofb_functions,
     "kuaisuo SM4-OFB"},
    {"SM4-CFB:SM4-CFB128:1.2.156.10197.1.104.4", KS_PROPS, ks_prov_sm4_cfb_functions,
     "kuaisuo SM4-CFB"},
    {"SM4-CTR:1.2.156.10197.1.104.7", KS_PROPS, ks_prov_sm4_ctr_functions, "kuaisuo SM4-CTR"},
    {"SM4-GCM:1.2.156.10197.1.104.8", KS_PROPS, ks_prov_sm4_gcm_functions, "kuaisuo SM4-GCM"},
    {NULL, NULL, NULL, NULL}};

/* The names and OIDs the default provider gives these keys, so that its
 * decoders hand keys they read to ours and its encoders write ours. */
static const OSSL_ALGORITHM keymgmts[] = {
    {"SM2:1.2.156.10197.1.301", KS_PROPS, ks_prov_sm2_keymgmt_functions, "kuaisuo SM2"},
    {"ED25519:1.3.101.112", KS_PROPS, ks_prov_ed25519_keymgmt_functions, "kuaisuo Ed25519"},
    {"X25519:1.3.101.110", KS_PROPS, ks_prov_x25519_keymgmt_functions, "kuaisuo X25519"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM signatures[] = {
    {"SM2:1.2.156.10197.1.301", KS_PROPS, ks_prov_sm2_signature_functions, "kuaisuo SM2"},
    {"ED25519:1.3.101.112", KS_PROPS, ks_prov_ed25519_signature_functions, "kuaisuo Ed25519"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM keyexchs[] = {
    {"X25519:1.3.101.110", KS_PROPS, ks_prov_x25519_keyexch_functions, "kuaisuo X25519"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM asym_ciphers[] = {
    {"SM2:1.2.156.10197.1.301", KS_PROPS, ks_prov_sm2_asym_cipher_functions, "kuaisuo SM2"},
    {NULL, NULL, NULL, NULL}};

static const OSSL_ALGORITHM* query_operation(void* provctx, int operation_id, int* no_cache) {
  (void)provctx;
  *no_cache = 0;
  switch (operation_id) {
    case OSSL_OP_DIGEST: return digests;
    case OSSL_OP_CIPHER: return ciphers;
    case OSSL_OP_KEYMGMT: return keymgmts;
    case OSSL_OP_SIGNATURE: return signatures;
    case OSSL_OP_KEYEXCH: return keyexchs;
    case OSSL_OP_ASYM_CIPHER: return asym_ciphers;
    default: return NULL;
  }
}

/* ---- Provider parameters --------------------------------------------------- */
static const OSSL_PARAM* gettable_params(void* provctx) {
  (void)provctx;
  static const OSSL_PARAM params[] = {
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
      OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
      OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
      OSSL_PARAM_uint64("kuaisuo-digest", NULL),
      OSSL_PARAM_uint64("kuaisuo-cipher", NULL),
      OSSL_PARAM_uint64("kuaisuo-keygen", NULL),
      OSSL_PARAM_uint64("kuaisuo-sign", NULL),
      OSSL_PARAM_uint64("kuaisuo-verify", NULL),
      OSSL_PARAM_uint64("kuaisuo-derive", NULL),
      OSSL_PARAM_uint64("kuaisuo-encrypt", NULL),
      OSSL_PARAM_uint64("kuaisuo-decrypt", NULL),
      OSSL_PARAM_END};
  return params;
}

static int get_params(void* provctx, OSSL_PARAM params[]) {
  (void)provctx;
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != NULL &&
      !OSSL_PARAM_set_utf8_ptr(p, "kuaisuo provider"))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != NULL &&
      !OSSL_PARAM_set_utf8_ptr(p, ks_version_string()))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != NULL &&
      !OSSL_PARAM_set_utf8_ptr(p, ks_cpu_features()))
    return 0;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL && !OSSL_PARAM_set_int(p, 1))
    return 0;
  for (int i = 0; i < KS_PROV_COUNTERS; ++i) {
    if ((p = OSSL_PARAM_locate(params, counter_names[i])) != NULL &&
        !OSSL_PARAM_set_uint64(p, ks_prov_counter_value((ks_prov_counter)i)))
      return 0;
  }
  return 1;
}

static const OSSL_ITEM* get_reason_strings(void* provctx) {
  (void)provctx;
  return reason_strings;
}

/* ---- TLS capabilities ---------------------------------------------------------- */
/* libssl (3.0) offers a TLS group only when the keymgmt its properties
 * fetch comes from a provider that declares the group: with kuaisuo
 * preferred, x25519 must be declared here or TLS loses it. The values are
 * the default provider's (RFC 8446 codepoint 0x001d, TLS 1.0 and DTLS 1.0
 * up). */
static unsigned int x25519_group_id = 0x001d;
static unsigned int x25519_security_bits = 128;
static int x25519_min_tls = 0x0301, x25519_max_tls = 0;
static int x25519_min_dtls = 0xfeff, x25519_max_dtls = 0;
static unsigned int x25519_is_kem = 0;

static const OSSL_PARAM x25519_group[] = {
    OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME, "x25519", sizeof "x25519"),
    OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_NAME_INTERNAL, "X25519", sizeof "X25519"),
    OSSL_PARAM_utf8_string(OSSL_CAPABILITY_TLS_GROUP_ALG, "X25519", sizeof "X25519"),
    OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_ID, &x25519_group_id),
    OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_SECURITY_BITS, &x25519_security_bits),
    OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_TLS, &x25519_min_tls),
    OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_TLS, &x25519_max_tls),
    OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MIN_DTLS, &x25519_min_dtls),
    OSSL_PARAM_int(OSSL_CAPABILITY_TLS_GROUP_MAX_DTLS, &x25519_max_dtls),
    OSSL_PARAM_uint(OSSL_CAPABILITY_TLS_GROUP_IS_KEM, &x25519_is_kem),
    OSSL_PARAM_END};

static int get_capabilities(void* provctx, const char* capability, OSSL_CALLBACK* cb, void* arg) {
  (void)provctx;
  if (OPENSSL_strcasecmp(capability, "TLS-GROUP") == 0) return cb(x25519_group, arg);
  return 0;
}

static void teardown(void* provctx) { OPENSSL_free(provctx); }

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))query_operation},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))get_reason_strings},
    {OSSL_FUNC_PROVIDER_GET_CAPABILITIES, (void (*)(void))get_capabilities},
    {0, NULL}};

__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                             const OSSL_DISPATCH* in,
                                                             const OSSL_DISPATCH** out,
                                                             void** provctx) {
  for (; in->function_id != 0; ++in) {
    switch (in->function_id) {
      case OSSL_FUNC_CORE_NEW_ERROR: core_new_error = OSSL_FUNC_core_new_error(in); break;
      case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
        core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
        break;
      case OSSL_FUNC_CORE_VSET_ERROR: core_vset_error = OSSL_FUNC_core_vset_error(in); break;
      default: break;
    }
  }
  static pthread_once_t reasons_once = PTHREAD_ONCE_INIT;
  pthread_once(&reasons_once, fill_reason_strings); /* one table for every load */
  ks_prov_ctx* pc = OPENSSL_zalloc(sizeof *pc);
  if (pc == NULL) return 0;
  pc->handle = handle;
  *provctx = pc;
  *out = provider_functions;
  return 1;
}
