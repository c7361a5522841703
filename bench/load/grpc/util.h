// What the load generator's parts share: its name and exit codes, the
// clock, the SM2 sizes, files, randomness, time, and the library's handles.
#ifndef KUAISUO_BENCH_LOAD_GRPC_UTIL_H_
#define KUAISUO_BENCH_LOAD_GRPC_UTIL_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kuaisuo.h"

namespace kuaisuo::load {

using Clock = std::chrono::steady_clock;

constexpr char kTool[] = "kuaisuo-grpc-load";
constexpr int kExitSetup = 1;
constexpr int kExitFlags = 2;

constexpr size_t kDigestBytes = KS_SM2_DIGEST_BYTES;
constexpr size_t kPublicKeyBytes = KS_SM2_PUBLIC_KEY_BYTES;
constexpr size_t kSignatureBytes = KS_SM2_SIGNATURE_BYTES;

struct CtxFree {
  void operator()(ks_ctx* ctx) const { ks_ctx_free(ctx); }
};
struct PubkeyFree {
  void operator()(ks_sm2_pubkey* key) const { ks_sm2_pubkey_free(key); }
};
struct KeyFree {
  void operator()(ks_sm2_key* key) const { ks_sm2_key_free(key); }
};
using CtxPtr = std::unique_ptr<ks_ctx, CtxFree>;
using PubkeyPtr = std::unique_ptr<ks_sm2_pubkey, PubkeyFree>;
using KeyPtr = std::unique_ptr<ks_sm2_key, KeyFree>;

// Bytes that are wiped when they go: private keys, even throwaway ones.
struct SecretBytes {
  explicit SecretBytes(size_t n) : bytes(n) {}
  ~SecretBytes() { explicit_bzero(bytes.data(), bytes.size()); }
  std::vector<uint8_t> bytes;
};

// The whole file (binary); false with errno set where it cannot be read.
bool read_file(const std::string& path, std::string* out);

// Writes text as the whole file; false where that failed.
bool write_file(const std::string& path, const std::string& text);

// Whether path can be written, without creating it: a run that fails later
// leaves no empty report for an aggregation to choke on.
bool writable(const std::string& path);

// Prints a failed library call: its code, or for a batch the first failing
// item's status. Returns whether rc is KS_OK.
bool ks_check(int rc, const char* what, const std::vector<int>* status = nullptr);

// len bytes from the OS (getrandom); false, with a message, where it failed.
bool fill_random(uint8_t* out, size_t len);

// A CPU context for making the pool; null, with a message, where it failed.
CtxPtr cpu_context();

// The little-endian int32 at p (a reply's status row).
int32_t load_le32(const char* p);

// b - a in seconds.
double seconds_between(Clock::time_point a, Clock::time_point b);

// CPU seconds this process has used, all threads: the generator's own cost
// per request, which shares the host with the server over loopback.
double process_cpu_s();

// Sleeps until t. clock_nanosleep on an absolute CLOCK_MONOTONIC time
// (steady_clock's clock on Linux) does not drift the way relative sleeps
// summed over a schedule would. A request already due (the sender is
// behind, or arrivals bunch) goes without the system call: sleeping (a
// timer armed, a wake-up) was ~30% of the generator's CPU per single-item
// request (perf at 8k requests/s, a 2-core VM), CPU that a server on the
// same host then lacks.
void sleep_until(Clock::time_point t);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_UTIL_H_
