// Timing cases for `kuaisuo speed`. Each case runs one operation of one
// implementation for about `seconds`, in repeated timed runs after a
// warm-up, and reports the median rate. Inputs are fresh random bytes.
#ifndef KS_BENCH_BENCH_H_
#define KS_BENCH_BENCH_H_

#include <stddef.h>

#include <string>

namespace ks {
namespace bench {

struct Case {
  std::string alg;         // "sm3", "sm2", "ed25519", "x25519", "sm4"
  std::string op;          // "hash"; "keygen", "sign", "verify"; "derive" (x25519);
                           // sm4: the mode ("ecb" ... "gcm"; "cbc-dec" decrypts)
  std::string impl;        // "kuaisuo" or "openssl"; skinny128-256: "table", our
                           // table-based baseline (no OpenSSL peer exists)
  std::string backend;     // "cpu" or "gpu" (kuaisuo; the CLI resolves auto)
  unsigned threads = 1;    // CPU threads working
  size_t batch = 1;        // items per call; 1 = single-operation calls
  size_t msg_bytes = 64;   // per item (sm4: the buffer each operation encrypts)
  double seconds = 1.0;    // budget for the timed runs
  std::string input = "message";  // sm2 sign/verify: "digest" (e given) or "message";
                                  // sm4: "buffer" / "buffer-tables" (ks_sm4_crypt_buffer)
  bool pinned = false;     // batches and cipher buffers: memory from ks_host_alloc
};

struct Result {
  double ops_per_s = 0;
  double bytes_per_s = 0;
  int runs = 0;            // timed runs the median is taken over
  std::string backend;     // where it actually ran ("cpu" or "gpu")
};

// Runs one case. Returns false and sets *error if it cannot run here
// (unknown algorithm or operation, no GPU, no OpenSSL, ...).
bool run_case(const Case& c, Result* result, std::string* error);

// The OpenSSL version the harness compares against, or "" if none loads.
std::string openssl_version();

}  // namespace bench
}  // namespace ks

#endif  // KS_BENCH_BENCH_H_
