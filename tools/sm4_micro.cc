// One-thread SM4 micro-benchmark: ECB, CTR, CBC decryption, GCM encryption
// and the serial modes (CBC, CFB and OFB encryption) on every SM4 kernel
// built in (and GCM on every GHASH kernel), next to OpenSSL's EVP SM4 in
// the same process, at 16 B, 64 B, 1 KiB, 64 KiB and 1 MiB (or argv[2] MiB)
// per call, on keys expanded once; then the key schedule ("setkey") and the
// latency of one round of the one-block path in core cycles ("latency").
//
// Each measurement runs for ~0.1 s of this thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID); the contenders of one (size, mode) alternate
// within every repetition, and the medians of the rates and of the ratios
// to OpenSSL's same mode (sm4-ctr for GCM, which OpenSSL 3.0 lacks) are
// printed.
//
//   cmake --build build --target sm4_micro && build/sm4_micro [repetitions=5] [MiB=1]
//     [modes=ecb,ctr,cbc-dec,gcm,cbc,cfb,ofb,setkey,latency]
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

#include <functional>
#include <string>
#include <vector>

#include "cipher/gcm.h"
#include "cipher/ghash.h"
#include "cipher/modes.h"
#include "sm4/sm4.h"
#include "core/cpu_features.h"
#include "micro_timing.h"

namespace {

using ks_micro::median;

struct Contender {
  std::string name;
  std::function<void()> op;
  bool reference;  // OpenSSL: the ratios are to it
};

void check(bool ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "sm4_micro: %s\n", what);
    exit(1);
  }
}

// OpenSSL on a context initialised once, as a long-lived connection would.
struct Evp {
  EVP_CIPHER_CTX* ctx;
  Evp(const EVP_CIPHER* cipher, bool encrypt, const uint8_t* key, const uint8_t* iv) {
    ctx = EVP_CIPHER_CTX_new();
    check(EVP_CipherInit_ex(ctx, cipher, nullptr, key, iv, encrypt) == 1, "EVP init");
    EVP_CIPHER_CTX_set_padding(ctx, 0);
  }
  ~Evp() { EVP_CIPHER_CTX_free(ctx); }
  void run(const uint8_t* in, uint8_t* out, size_t len) const {
    int n = 0;
    EVP_CipherUpdate(ctx, out, &n, in, int(len));
  }
};

// bytes == 0: rates in operations per second (the key schedule).
void compare(const char* mode, size_t bytes, const std::vector<Contender>& cs, int reps) {
  const int per_read = bytes <= 1024 ? 256 : bytes <= 65536 ? 4 : 1;
  const double unit = bytes == 0 ? 1e-6 : double(bytes) / 1e9;  // Mop/s or GB/s
  std::vector<std::vector<double>> rate(cs.size()), ratio(cs.size());
  size_t ref = 0;
  for (size_t i = 0; i < cs.size(); ++i)
    if (cs[i].reference) ref = i;
  for (int r = 0; r < reps; ++r) {
    std::vector<double> now(cs.size());
    for (size_t i = 0; i < cs.size(); ++i)
      now[i] = ks_micro::calls_per_second(cs[i].op, 0.1, per_read) * unit;
    for (size_t i = 0; i < cs.size(); ++i) {
      rate[i].push_back(now[i]);
      ratio[i].push_back(now[i] / now[ref]);
    }
  }
  for (size_t i = 0; i < cs.size(); ++i)
    printf("%-8s %8zu  %-34s %8.3f %s  %7.2fx %s\n", mode, bytes, cs[i].name.c_str(),
           median(rate[i]), bytes == 0 ? "Mop/s" : "GB/s ", median(ratio[i]),
           cs[ref].name.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
  printf("CPU: %s [%s]\nOpenSSL: %s\nchosen SM4 kernel: %s, GHASH: %s; %d repetitions, medians, "
         "one thread\n\n",
         ks::cpu_model_name().c_str(), ks::cpu_feature_string(ks::cpu_features()).c_str(),
         OpenSSL_version(OPENSSL_VERSION), ks::sm4::chosen_variant().name,
         ks::ghash::chosen_variant().name, reps);
  // The largest size (1 MiB unless argv[2] gives MiB): above the caches,
  // memory traffic joins the kernel's cost.
  const size_t kMax = size_t(argc > 2 ? std::max(1, atoi(argv[2])) : 1) << 20;
  // Only the modes argv[3] names (a comma-separated list), when given.
  auto wanted = [&](const std::string& mode) {
    return argc <= 3 || ("," + std::string(argv[3]) + ",").find("," + mode + ",") != std::string::npos;
  };
  std::vector<uint8_t> in(kMax), out(kMax + 16);
  uint32_t x = 12345;
  for (uint8_t& b : in) b = uint8_t((x = x * 1103515245u + 12345u) >> 24);
  uint8_t key[16], iv[16], tag[16];
  for (int i = 0; i < 16; ++i) key[i] = uint8_t(i * 17), iv[i] = uint8_t(i * 29);

  size_t sm4_count = 0, ghash_count = 0;
  const ks::sm4::Variant* sm4_table = ks::sm4::variants(&sm4_count);
  const ks::ghash::Variant* ghash_table = ks::ghash::variants(&ghash_count);
  std::vector<ks::sm4::Key> keys(sm4_count);
  for (size_t i = 0; i < sm4_count; ++i) ks::sm4::set_key(&keys[i], key, sm4_table[i]);
  const ks::BlockCipher& bc = ks::sm4::block_cipher();

  const Evp ecb(EVP_sm4_ecb(), true, key, nullptr), ctr(EVP_sm4_ctr(), true, key, iv),
      cbc_dec(EVP_sm4_cbc(), false, key, iv);
  static ks::modes::StreamState state;
  static uint8_t chain[16];
  printf("%-8s %8s  %-34s %13s  %s\n", "mode", "bytes", "implementation", "rate", "ratio");
  const Evp cbc(EVP_sm4_cbc(), true, key, iv), cfb(EVP_sm4_cfb128(), true, key, iv),
      ofb(EVP_sm4_ofb(), true, key, iv);
  for (size_t bytes : {size_t(16), size_t(64), size_t(1024), size_t(65536), kMax}) {
    const uint8_t* src = in.data();
    uint8_t* dst = out.data();
    // The portable kernel is ~100x slower: measured at 16 B and 1 KiB only.
    auto kernels = [&](auto make) {
      std::vector<Contender> cs;
      for (size_t i = 0; i < sm4_count; ++i) {
        if (!sm4_table[i].usable) continue;
        if (std::string(sm4_table[i].name) == "portable" && bytes > 1024) continue;
        cs.push_back({std::string("kuaisuo ") + sm4_table[i].name, make(&keys[i]), false});
      }
      return cs;
    };
    auto ecb_cs = kernels([&](const ks::sm4::Key* k) {
      return [=] { ks::modes::ecb_encrypt(bc, k, src, dst, bytes); };
    });
    ecb_cs.insert(ecb_cs.begin(), {"OpenSSL EVP sm4-ecb", [&] { ecb.run(src, dst, bytes); }, true});
    if (wanted("ecb")) compare("ecb", bytes, ecb_cs, reps);

    auto ctr_cs = kernels([&](const ks::sm4::Key* k) {
      return [=] { ks::modes::ctr_crypt(bc, k, &state, src, dst, bytes); };
    });
    ctr_cs.insert(ctr_cs.begin(), {"OpenSSL EVP sm4-ctr", [&] { ctr.run(src, dst, bytes); }, true});
    if (wanted("ctr")) compare("ctr", bytes, ctr_cs, reps);

    auto cbc_cs = kernels([&](const ks::sm4::Key* k) {
      return [=] { ks::modes::cbc_decrypt(bc, k, chain, src, dst, bytes); };
    });
    cbc_cs.insert(cbc_cs.begin(),
                  {"OpenSSL EVP sm4-cbc (decrypt)", [&] { cbc_dec.run(src, dst, bytes); }, true});
    if (wanted("cbc-dec")) compare("cbc-dec", bytes, cbc_cs, reps);

    // GCM: every SM4 kernel with the chosen GHASH, then the chosen SM4
    // kernel with every other GHASH kernel. One message per call (key
    // expanded once; H, J0 and the tag per message).
    auto gcm_cs = kernels([&](const ks::sm4::Key* k) {
      return [=, &tag] {
        ks::gcm::seal(bc, k, iv, 12, nullptr, 0, src, bytes, dst, tag, 16);
      };
    });
    for (size_t g = 0; g < ghash_count; ++g) {
      if (!ghash_table[g].usable || &ghash_table[g] == &ks::ghash::chosen_variant()) continue;
      const ks::ghash::Variant* gv = &ghash_table[g];
      const ks::sm4::Key* k = &keys[0];
      for (size_t i = 0; i < sm4_count; ++i)
        if (&sm4_table[i] == &ks::sm4::chosen_variant()) k = &keys[i];
      gcm_cs.push_back({std::string("kuaisuo chosen + ghash ") + gv->name, [=, &tag] {
                          ks::gcm::Gcm g;
                          g.init(bc, k, iv, 12, *gv);
                          g.encrypt(bc, k, src, dst, bytes);
                          g.tag(tag);
                        },
                        false});
    }
    gcm_cs.insert(gcm_cs.begin(), {"OpenSSL EVP sm4-ctr", [&] { ctr.run(src, dst, bytes); }, true});
    if (wanted("gcm")) compare("gcm", bytes, gcm_cs, reps);

    // The serial modes: one block at a time through Variant::chain.
    for (const char* m : {"cbc", "cfb", "ofb"}) {
      const std::string mode = m;
      if (!wanted(mode)) continue;
      auto cs = kernels([&](const ks::sm4::Key* k) -> std::function<void()> {
        if (mode == "cbc") return [=] { ks::modes::cbc_encrypt(bc, k, chain, src, dst, bytes); };
        if (mode == "cfb") return [=] { ks::modes::cfb_encrypt(bc, k, &state, src, dst, bytes); };
        return [=] { ks::modes::ofb_crypt(bc, k, &state, src, dst, bytes); };
      });
      const Evp& evp = mode == "cbc" ? cbc : mode == "cfb" ? cfb : ofb;
      cs.insert(cs.begin(), {"OpenSSL EVP sm4-" + mode, [&] { evp.run(src, dst, bytes); }, true});
      compare(m, bytes, cs, reps);
    }
    printf("\n");
  }
  if (wanted("setkey")) {
    // The key schedule alone: ours into a Key, OpenSSL's re-keying of a
    // context (EVP_CipherInit_ex with the key only).
    static ks::sm4::Key scratch;
    std::vector<Contender> cs;
    for (size_t i = 0; i < sm4_count; ++i) {
      if (!sm4_table[i].usable) continue;
      const ks::sm4::Variant* v = &sm4_table[i];
      cs.push_back({std::string("kuaisuo ") + v->name, [=, &key] {
                      ks::sm4::set_key(&scratch, key, *v);
                      key[0] ^= uint8_t(scratch.enc[31]);  // a chain: no hoisting
                    },
                    false});
    }
    cs.insert(cs.begin(), {"OpenSSL EVP_CipherInit_ex (key)", [&] {
                             EVP_CipherInit_ex(ecb.ctx, nullptr, nullptr, key, nullptr, -1);
                           },
                           true});
    compare("setkey", 0, cs, reps);
  }
  if (wanted("lanes")) {
    // 16 CBC encryptions of 1 KiB, each its own key (expanded once here),
    // through Variant::chain_lanes, against OpenSSL one message at a time.
    constexpr size_t kMessages = 16, kLen = 1024;
    std::vector<Contender> cs;
    for (size_t i = 0; i < sm4_count; ++i) {
      if (!sm4_table[i].usable) continue;
      const ks::sm4::Variant* v = &sm4_table[i];
      cs.push_back({std::string("kuaisuo ") + v->name, [&, v] {
                      static uint8_t ivs[kMessages][16];
                      ks::sm4::ChainJob jobs[kMessages];
                      for (size_t m = 0; m < kMessages; ++m)  // key schedules in the lanes
                        jobs[m] = {key, ivs[m], in.data() + m * kLen, out.data() + m * kLen,
                                   kLen / 16};
                      for (size_t g = 0; g < kMessages; g += v->chain_width)
                        v->chain_lanes(ks::ChainMode::kCbc, jobs + g,
                                       std::min(v->chain_width, kMessages - g));
                    },
                    false});
    }
    cs.insert(cs.begin(), {"OpenSSL EVP sm4-cbc, one by one (key each)", [&] {
                             for (size_t m = 0; m < kMessages; ++m) {
                               EVP_CipherInit_ex(cbc.ctx, nullptr, nullptr, key, iv, -1);
                               cbc.run(in.data() + m * kLen, out.data() + m * kLen, kLen);
                             }
                           },
                           true});
    compare("cbc x16", kMessages * kLen, cs, reps);
  }
  if (wanted("latency")) {
    // Core cycles per round of the one-block path: a CBC chain of 4 KiB
    // (its blocks wait for each other), per block / 32; the per-block
    // conversions and loads are included, so this bounds the round from
    // above.
    const double ghz = ks_micro::core_ghz();
    for (size_t i = 0; i < sm4_count; ++i) {
      if (!sm4_table[i].usable) continue;
      const ks::sm4::Key* k = &keys[i];
      std::vector<double> rates;
      for (int r = 0; r < reps; ++r)
        rates.push_back(ks_micro::calls_per_second(
            [&] { ks::modes::cbc_encrypt(bc, k, chain, in.data(), out.data(), 4096); }, 0.1, 16));
      const double cycles_per_block = ghz * 1e9 / (median(rates) * 256);
      printf("latency  %-34s %7.1f cycles/block  %5.2f cycles/round  (core %.2f GHz)\n",
             (std::string("kuaisuo ") + sm4_table[i].name).c_str(), cycles_per_block,
             cycles_per_block / 32, ghz);
    }
  }
  return 0;
}
