// One-thread SHA-512 micro-benchmark: our compression variants, one-shot
// digests of 64 B / 1 KiB / 1 MiB against OpenSSL's EVP_Digest in the same
// process, and each digest_many variant (multi-buffer) on batches of 64 B
// and 1 KiB messages, also with Ed25519's 64-byte R || A prefix.
//
// Each measurement runs for ~0.1 s of this thread's CPU time
// (tools/micro_timing.h); competitors alternate within every repetition,
// and the medians of the rates and of the per-repetition ratios to the
// first competitor (OpenSSL where it takes part) are reported.
//
//   cmake --build build --target sha512_micro && build/sha512_micro [repetitions=7]
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "hash/sha512.h"
#include "hash/sha512_blocks.h"
#include "micro_timing.h"

namespace {

struct Contender {
  std::string name;
  std::function<void()> op;
  double bytes_per_call;  // for GB/s
  double items_per_call;  // for items/s (digests, blocks)
};

// Runs the contenders alternately `reps` times; prints median rates and the
// median ratio of each to the first contender.
void compare(const std::string& title, const char* item, const std::vector<Contender>& cs,
             int reps) {
  std::vector<std::vector<double>> rate(cs.size()), ratio(cs.size());
  for (int r = 0; r < reps; ++r) {
    std::vector<double> now(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) now[i] = ks_micro::calls_per_second(cs[i].op, 0.1, 4);
    for (size_t i = 0; i < cs.size(); ++i) {
      rate[i].push_back(now[i]);
      ratio[i].push_back(now[i] / now[0]);
    }
  }
  printf("%s\n", title.c_str());
  for (size_t i = 0; i < cs.size(); ++i) {
    const double calls = ks_micro::median(rate[i]);
    printf("  %-30s %7.3f GB/s %12.0f %s/s   %6.3fx %s\n", cs[i].name.c_str(),
           calls * cs[i].bytes_per_call / 1e9, calls * cs[i].items_per_call, item,
           ks_micro::median(ratio[i]), cs[0].name.c_str());
  }
}

// The usable entries of a variant table, portable first.
template <class Variant>
std::vector<const Variant*> usable_variants(const Variant* (*table_of)(size_t*)) {
  size_t count = 0;
  const Variant* table = table_of(&count);
  std::vector<const Variant*> out;
  for (size_t i = count; i-- > 0;) {
    if (table[i].usable) out.push_back(&table[i]);
  }
  return out;
}

void bench_compress(const std::vector<uint8_t>& data, int reps) {
  constexpr size_t kBlocks = 512;  // 64 KiB: stays in L2
  static uint64_t state[8];
  std::vector<Contender> cs;
  for (const auto* v : usable_variants(ks::sha512::compress_variants)) {
    const auto fn = v->compress_blocks;
    cs.push_back({std::string("compress ") + v->name,
                  [fn, &data] { fn(state, data.data(), kBlocks); }, 128.0 * kBlocks, kBlocks});
  }
  compare("compress_blocks, 64 KiB per call", "block", cs, reps);
}

void bench_one_shot(const std::vector<uint8_t>& data, int reps) {
  EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA512", nullptr);
  if (fetched == nullptr) {
    fprintf(stderr, "sha512_micro: OpenSSL has no SHA512\n");
    exit(1);
  }
  static uint8_t out[64];
  static unsigned out_len;
  for (size_t len : {size_t(64), size_t(1024), size_t(1) << 20}) {
    const uint8_t* msg = data.data();
    const std::vector<Contender> cs = {
        {"OpenSSL EVP_Digest(fetched)",
         [=] { EVP_Digest(msg, len, out, &out_len, fetched, nullptr); }, double(len), 1},
        {"OpenSSL EVP_Digest(sha512())",
         [=] { EVP_Digest(msg, len, out, &out_len, EVP_sha512(), nullptr); }, double(len), 1},
        {"ks::sha512::digest", [=] { ks::sha512::digest(msg, len, out); }, double(len), 1},
    };
    compare("one-shot digest, " + std::to_string(len) + " bytes", "digest", cs, reps);
  }
  EVP_MD_free(fetched);
}

// Batches of 256 messages of len bytes, each after a prefix of plen bytes,
// against OpenSSL hashing them one by one (joined, as a caller without
// digest_many would, with EVP_DigestUpdate twice).
void bench_digest_many(const std::vector<uint8_t>& data, size_t len, size_t plen, int reps) {
  constexpr size_t kMessages = 256;
  static uint8_t out[kMessages][64];
  std::vector<const uint8_t*> msgs(kMessages), prefixes(kMessages);
  const std::vector<size_t> lens(kMessages, len);
  for (size_t i = 0; i < kMessages; ++i) {
    prefixes[i] = data.data() + i * (len + plen);
    msgs[i] = prefixes[i] + plen;
  }
  ks::sha512::Prefixes with;
  with.bytes = plen > 0 ? prefixes.data() : nullptr;
  with.len = plen;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const double bytes = double((len + plen) * kMessages);
  std::vector<Contender> cs = {{"OpenSSL EVP, one by one",
                                [=] {
                                  for (size_t i = 0; i < kMessages; ++i) {
                                    EVP_DigestInit_ex(ctx, EVP_sha512(), nullptr);
                                    EVP_DigestUpdate(ctx, prefixes[i], plen);
                                    EVP_DigestUpdate(ctx, msgs[i], len);
                                    EVP_DigestFinal_ex(ctx, out[i], nullptr);
                                  }
                                },
                                bytes, kMessages}};
  for (const auto* v : usable_variants(ks::sha512::digest_many_variants)) {
    const auto fn = v->digest_many;
    cs.push_back({std::string("digest_many ") + v->name,
                  [=] { fn(msgs.data(), lens.data(), kMessages, out, with); }, bytes, kMessages});
  }
  compare("digest_many, " + std::to_string(kMessages) + " messages of " + std::to_string(len) +
              " bytes after a prefix of " + std::to_string(plen),
          "digest", cs, reps);
  EVP_MD_CTX_free(ctx);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, atoi(argv[1])) : 7;
  printf("CPU: %s [%s]\nOpenSSL: %s\ncompress_blocks variant: %s; %d repetitions, medians\n\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(),
         OpenSSL_version(OPENSSL_VERSION), ks::sha512::compress_variant_name(), reps);
  std::vector<uint8_t> data((size_t(1) << 20) + 4096 * 64);
  uint32_t x = 12345;
  for (uint8_t& b : data) b = uint8_t((x = x * 1103515245u + 12345u) >> 24);
  bench_compress(data, reps);
  bench_one_shot(data, reps);
  bench_digest_many(data, 64, 0, reps);
  bench_digest_many(data, 1024, 0, reps);
  bench_digest_many(data, 64, 64, reps);  // Ed25519 verification: R || A || M
  return 0;
}
