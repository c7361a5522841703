// One-thread SM3 micro-benchmark: our compression variants, one-shot
// digests at 64 B / 1 KiB / 1 MiB against OpenSSL's EVP_Digest in the same
// process, and digest_many (multi-buffer) against one message at a time.
//
// Each measurement runs for ~0.1 s of this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID, so that other processes on a shared machine do
// not count against either side); competitors alternate within every
// repetition, and the medians of the rates and of the per-repetition ratios
// are reported.
//
//   g++ -O2 -std=c++17 -I src -o sm3_micro tools/sm3_micro.cc src/hash/*.cc
//       src/core/*.cc -lcrypto -pthread
//   ./sm3_micro [repetitions=7]
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "sm3/sm3.h"
#include "sm3/sm3_blocks.h"
#include "sm3/sm3_compress.h"
#include "micro_timing.h"

namespace {

using ks_micro::median;

// Calls of op per second over ~0.1 s.
double calls_per_second(const std::function<void()>& op) {
  return ks_micro::calls_per_second(op, 0.1, 4);
}

struct Contender {
  std::string name;
  std::function<void()> op;
  double bytes_per_call;  // for MB/s
  double items_per_call;  // for items/s (digests, blocks)
};

// Runs the contenders alternately `reps` times; prints median rates and the
// median ratio of each to the first contender.
void compare(const char* title, const char* item, const std::vector<Contender>& cs, int reps) {
  std::vector<std::vector<double>> rate(cs.size()), ratio(cs.size());
  for (int r = 0; r < reps; ++r) {
    std::vector<double> now(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) now[i] = calls_per_second(cs[i].op);
    for (size_t i = 0; i < cs.size(); ++i) {
      rate[i].push_back(now[i]);
      ratio[i].push_back(now[i] / now[0]);
    }
  }
  printf("%s\n", title);
  for (size_t i = 0; i < cs.size(); ++i) {
    const double calls = median(rate[i]);
    printf("  %-28s %10.1f MB/s %12.0f %s/s   %6.3fx %s\n", cs[i].name.c_str(),
           calls * cs[i].bytes_per_call / 1e6, calls * cs[i].items_per_call, item,
           median(ratio[i]), cs[0].name.c_str());
  }
}

void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "sm3_micro: %s\n", what);
    exit(1);
  }
}

void bench_compress(const std::vector<uint8_t>& data, int reps) {
  constexpr size_t kBlocks = 1024;  // 64 KiB: stays in L2
  std::vector<Contender> cs;
  size_t count = 0;
  const ks::sm3::CompressVariant* table = ks::sm3::compress_variants(&count);
  static uint32_t state[8];
  for (size_t i = count; i-- > 0;) {  // portable first: the ratios are to it
    if (!table[i].usable) continue;
    const auto fn = table[i].compress_blocks;
    cs.push_back({std::string("compress ") + table[i].name,
                  [fn, &data] { fn(state, data.data(), kBlocks); }, 64.0 * kBlocks, kBlocks});
  }
  compare("compress_blocks, 64 KiB per call", "block", cs, reps);
}

void bench_one_shot(const std::vector<uint8_t>& data, int reps) {
  EVP_MD* fetched = EVP_MD_fetch(nullptr, "SM3", nullptr);
  check(fetched != nullptr, "OpenSSL has no SM3");
  static uint8_t out[32];
  static unsigned out_len;
  for (size_t len : {size_t(64), size_t(1024), size_t(1) << 20}) {
    const uint8_t* msg = data.data();
    std::vector<Contender> cs = {
        {"OpenSSL EVP_Digest(EVP_sm3())",
         [=] { EVP_Digest(msg, len, out, &out_len, EVP_sm3(), nullptr); }, double(len), 1},
        {"OpenSSL EVP_Digest(fetched)",
         [=] { EVP_Digest(msg, len, out, &out_len, fetched, nullptr); }, double(len), 1},
        {"ks::sm3::digest", [=] { ks::sm3::digest(msg, len, out); }, double(len), 1},
    };
    const std::string title = "one-shot digest, " + std::to_string(len) + " bytes";
    compare(title.c_str(), "digest", cs, reps);
  }
  EVP_MD_free(fetched);
}

void bench_digest_many(const std::vector<uint8_t>& data, int reps) {
  constexpr size_t kMessages = 256;
  for (size_t len : {size_t(64), size_t(1024)}) {
    std::vector<const uint8_t*> msgs(kMessages);
    std::vector<size_t> lens(kMessages, len);
    for (size_t i = 0; i < kMessages; ++i) msgs[i] = data.data() + i * len;
    static uint8_t out[kMessages][32];
    std::vector<Contender> cs;
    size_t count = 0;
    const ks::sm3::DigestManyVariant* table = ks::sm3::digest_many_variants(&count);
    for (size_t i = count; i-- > 0;) {  // portable, serial, then the lanes
      if (!table[i].usable) continue;
      const auto fn = table[i].digest_many;
      cs.push_back({std::string("digest_many ") + table[i].name,
                    [=] { fn(msgs.data(), lens.data(), kMessages, out, ks::sm3::Prefixes()); }, double(len * kMessages),
                    kMessages});
    }
    const std::string title = "digest_many, " + std::to_string(kMessages) + " messages of " +
                              std::to_string(len) + " bytes";
    compare(title.c_str(), "digest", cs, reps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, atoi(argv[1])) : 7;
  printf("CPU: %s [%s]\nOpenSSL: %s\ncompress_blocks variant: %s; %d repetitions, medians\n\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(),
         OpenSSL_version(OPENSSL_VERSION), ks::sm3::compress_variant_name(), reps);
  std::vector<uint8_t> data((size_t(1) << 20) + 4096);
  uint32_t x = 12345;
  for (uint8_t& b : data) b = uint8_t((x = x * 1103515245u + 12345u) >> 24);
  bench_compress(data, reps);
  bench_one_shot(data, reps);
  bench_digest_many(data, reps);
  return 0;
}
