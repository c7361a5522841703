// Regression tests for the defects of the hardening issue: reads outside a
// decoder's input, DER taken for PEM, null pointers with zero lengths,
// exceptions and aborts at the C boundary, and outputs of failed items.
// Each one failed (crashed, or returned the wrong key or status) before
// its fix; the sanitizer build (scripts/sanitize) runs them too.
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "kuaisuo.h"
#include "test_util.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define KS_TEST_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KS_TEST_SANITIZER 1
#endif

namespace {

using ks_test::bytes_of;
using ks_test::random_bytes;

// `len` bytes that end exactly where an inaccessible page begins: any read
// past the end faults, sanitizer or not.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(const std::vector<uint8_t>& bytes) {
    page_ = size_t(sysconf(_SC_PAGESIZE));
    map_ = static_cast<uint8_t*>(
        mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (map_ == MAP_FAILED) abort();
    mprotect(map_ + page_, page_, PROT_NONE);
    data_ = map_ + page_ - bytes.size();
    if (!bytes.empty()) memcpy(data_, bytes.data(), bytes.size());
  }
  ~GuardedBuffer() { munmap(map_, 2 * page_); }
  const uint8_t* data() const { return data_; }

 private:
  size_t page_;
  uint8_t* map_;
  uint8_t* data_;
};

std::vector<uint8_t> encoded_public(const ks_sm2_pubkey* pub, bool pem) {
  size_t len = 0;
  ks_sm2_pubkey_encode(pub, pem, nullptr, 0, &len);
  std::vector<uint8_t> out(len + 1);
  EXPECT_EQ(ks_sm2_pubkey_encode(pub, pem, out.data(), out.size(), &len), KS_OK);
  out.resize(len);
  return out;
}

std::vector<uint8_t> encoded_private(const ks_sm2_key* key, bool pem) {
  size_t len = 0;
  ks_sm2_key_encode(key, pem, nullptr, 0, &len);
  std::vector<uint8_t> out(len + 1);
  EXPECT_EQ(ks_sm2_key_encode(key, pem, out.data(), out.size(), &len), KS_OK);
  out.resize(len);
  return out;
}

std::vector<uint8_t> point_of(const ks_sm2_pubkey* pub) {
  std::vector<uint8_t> p(65);
  size_t len = 0;
  EXPECT_EQ(ks_sm2_pubkey_to_bytes(pub, 0, p.data(), p.size(), &len), KS_OK);
  return p;
}

// SEQUENCE { AlgorithmIdentifier(id-ecPublicKey, sm2), BIT STRING bits }.
std::vector<uint8_t> spki_with_bits(const std::vector<uint8_t>& bits) {
  std::vector<uint8_t> alg = {0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
                              0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D};
  const size_t body = alg.size() + 2 + bits.size();
  std::vector<uint8_t> out(2 + body);
  out[0] = 0x30;
  out[1] = uint8_t(body);
  std::copy(alg.begin(), alg.end(), out.begin() + 2);
  out[2 + alg.size()] = 0x03;
  out[3 + alg.size()] = uint8_t(bits.size());
  std::copy(bits.begin(), bits.end(), out.begin() + 4 + alg.size());
  return out;
}

TEST(Hardening, EmptyPublicKeyIsRejectedWithoutReadingIt) {
  ks_sm2_pubkey* pub = reinterpret_cast<ks_sm2_pubkey*>(1);
  EXPECT_EQ(ks_sm2_pubkey_from_bytes(nullptr, 0, &pub), KS_ERR_BAD_PUBLIC_KEY);
  EXPECT_EQ(pub, nullptr);
  const GuardedBuffer empty({});
  EXPECT_EQ(ks_sm2_pubkey_from_bytes(empty.data(), 0, &pub), KS_ERR_BAD_PUBLIC_KEY);
}

TEST(Hardening, PublicKeysOfEveryLengthEndingAtAGuardPage) {
  ks_sm2_key* key = nullptr;
  ASSERT_EQ(ks_sm2_key_generate(&key), KS_OK);
  ks_sm2_pubkey* pub = nullptr;
  ASSERT_EQ(ks_sm2_key_public(key, &pub), KS_OK);
  const std::vector<uint8_t> point = point_of(pub);
  for (size_t len = 0; len <= 70; ++len) {
    std::vector<uint8_t> bytes(point.begin(), point.begin() + long(std::min(len, point.size())));
    bytes.resize(len, 0x5a);
    const GuardedBuffer at_edge(bytes);
    ks_sm2_pubkey* got = nullptr;
    const int rc = ks_sm2_pubkey_from_bytes(at_edge.data(), len, &got);
    EXPECT_EQ(rc, len == 65 ? KS_OK : KS_ERR_BAD_PUBLIC_KEY) << len;
    ks_sm2_pubkey_free(got);
  }
  ks_sm2_pubkey_free(pub);
  ks_sm2_key_free(key);
}

TEST(Hardening, EmptyBitStringsInKeyStructures) {
  ks_sm2_pubkey* pub = nullptr;
  // An SPKI whose BIT STRING holds only the unused-bits byte.
  const std::vector<uint8_t> only_unused_byte = spki_with_bits({0x00});
  const GuardedBuffer spki(only_unused_byte);
  EXPECT_EQ(ks_sm2_pubkey_decode(spki.data(), only_unused_byte.size(), &pub),
            KS_ERR_BAD_PUBLIC_KEY);
  // An SEC1 ECPrivateKey whose [1] publicKey is an empty BIT STRING.
  std::vector<uint8_t> sec1 = {0x30, 0x29, 0x02, 0x01, 0x01, 0x04, 0x20};
  const std::vector<uint8_t> d = ks_test::from_hex(
      "3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
  sec1.insert(sec1.end(), d.begin(), d.end());
  const std::vector<uint8_t> empty_pub = {0xA1, 0x03, 0x03, 0x01, 0x00};
  sec1.insert(sec1.end(), empty_pub.begin(), empty_pub.end());
  sec1[1] = uint8_t(sec1.size() - 2);
  const GuardedBuffer key_bytes(sec1);
  ks_sm2_key* key = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(key_bytes.data(), sec1.size(), &key), KS_ERR_BAD_PUBLIC_KEY);
  EXPECT_EQ(key, nullptr);
}

TEST(Hardening, SpkiWithARawPointIsRefusedAsOpenSslDoes) {
  ks_sm2_key* key = nullptr;
  ASSERT_EQ(ks_sm2_key_generate(&key), KS_OK);
  ks_sm2_pubkey* pub = nullptr;
  ASSERT_EQ(ks_sm2_key_public(key, &pub), KS_OK);
  const std::vector<uint8_t> point = point_of(pub);
  std::vector<uint8_t> raw = {0x00};  // unused bits, then x || y without 04
  raw.insert(raw.end(), point.begin() + 1, point.end());
  const std::vector<uint8_t> spki = spki_with_bits(raw);
  ks_sm2_pubkey* got = nullptr;
  EXPECT_EQ(ks_sm2_pubkey_decode(spki.data(), spki.size(), &got), KS_ERR_BAD_PUBLIC_KEY);
  const unsigned char* p = spki.data();
  EVP_PKEY* theirs = d2i_PUBKEY(nullptr, &p, long(spki.size()));
  EXPECT_EQ(theirs, nullptr) << "OpenSSL took the raw point: the reference changed";
  EVP_PKEY_free(theirs);
  ks_sm2_pubkey_free(pub);
  ks_sm2_key_free(key);
}

// A public key whose x coordinate starts with "-----BEGIN ": its SPKI DER
// holds the PEM marker, and must still read back as DER.
TEST(Hardening, DerCarryingAPemMarkerIsReadAsDer) {
  const std::string marker = "-----BEGIN ";
  for (int attempt = 0; attempt < 200; ++attempt) {
    std::vector<uint8_t> compressed = {0x02};
    const std::vector<uint8_t> x_tail = random_bytes(32 - marker.size());
    compressed.insert(compressed.end(), marker.begin(), marker.end());
    compressed.insert(compressed.end(), x_tail.begin(), x_tail.end());
    ks_sm2_pubkey* pub = nullptr;
    if (ks_sm2_pubkey_from_bytes(compressed.data(), compressed.size(), &pub) != KS_OK) continue;
    const std::vector<uint8_t> der = encoded_public(pub, false);
    ASSERT_NE(std::search(der.begin(), der.end(), marker.begin(), marker.end()), der.end());
    ks_sm2_pubkey* back = nullptr;
    ASSERT_EQ(ks_sm2_pubkey_decode(der.data(), der.size(), &back), KS_OK);
    EXPECT_EQ(point_of(back), point_of(pub));
    ks_sm2_pubkey_free(back);
    ks_sm2_pubkey_free(pub);
    return;
  }
  FAIL() << "no x with the marker prefix on the curve in 200 tries";
}

// A PKCS#8 DER key A whose attributes carry the PEM text of key B: OpenSSL
// reads A, and so must we (we read B when a marker anywhere meant PEM).
TEST(Hardening, Pkcs8DerWithAPemKeyInsideIsTheDerKey) {
  ks_sm2_key *a = nullptr, *b = nullptr;
  ASSERT_EQ(ks_sm2_key_generate(&a), KS_OK);
  ASSERT_EQ(ks_sm2_key_generate(&b), KS_OK);
  std::vector<uint8_t> der = encoded_private(a, false);
  const std::vector<uint8_t> pem_b = encoded_private(b, true);
  // attributes [0] IMPLICIT SET OF Attribute { OID 1.2.3.4, SET { OCTET STRING pem_b } }
  std::vector<uint8_t> octets = {0x04, 0x82, uint8_t(pem_b.size() >> 8), uint8_t(pem_b.size())};
  octets.insert(octets.end(), pem_b.begin(), pem_b.end());
  std::vector<uint8_t> values = {0x31, 0x82, uint8_t(octets.size() >> 8), uint8_t(octets.size())};
  values.insert(values.end(), octets.begin(), octets.end());
  std::vector<uint8_t> attr = {0x06, 0x03, 0x2A, 0x03, 0x04};
  attr.insert(attr.end(), values.begin(), values.end());
  std::vector<uint8_t> seq = {0x30, 0x82, uint8_t(attr.size() >> 8), uint8_t(attr.size())};
  seq.insert(seq.end(), attr.begin(), attr.end());
  std::vector<uint8_t> attributes = {0xA0, 0x82, uint8_t(seq.size() >> 8), uint8_t(seq.size())};
  attributes.insert(attributes.end(), seq.begin(), seq.end());
  // Rebuild the outer SEQUENCE (its header is 30 81 xx for our PKCS#8).
  ASSERT_EQ(der[0], 0x30);
  ASSERT_EQ(der[1], 0x81);
  std::vector<uint8_t> body(der.begin() + 3, der.end());
  body.insert(body.end(), attributes.begin(), attributes.end());
  std::vector<uint8_t> file = {0x30, 0x82, uint8_t(body.size() >> 8), uint8_t(body.size())};
  file.insert(file.end(), body.begin(), body.end());

  ks_sm2_key* got = nullptr;
  ASSERT_EQ(ks_sm2_key_decode(file.data(), file.size(), &got), KS_OK);
  uint8_t d_got[32], d_a[32];
  ks_sm2_key_to_bytes(got, d_got);
  ks_sm2_key_to_bytes(a, d_a);
  EXPECT_EQ(memcmp(d_got, d_a, 32), 0);
  // OpenSSL reads the same file as key A.
  const unsigned char* p = file.data();
  PKCS8_PRIV_KEY_INFO* info = d2i_PKCS8_PRIV_KEY_INFO(nullptr, &p, long(file.size()));
  ASSERT_NE(info, nullptr);
  EVP_PKEY* theirs = EVP_PKCS82PKEY(info);
  ASSERT_NE(theirs, nullptr);
  BIGNUM* d = nullptr;
  ASSERT_EQ(EVP_PKEY_get_bn_param(theirs, "priv", &d), 1);
  uint8_t d_theirs[32];
  BN_bn2binpad(d, d_theirs, 32);
  EXPECT_EQ(memcmp(d_theirs, d_a, 32), 0);
  BN_free(d);
  EVP_PKEY_free(theirs);
  PKCS8_PRIV_KEY_INFO_free(info);
  ks_sm2_key_free(got);
  ks_sm2_key_free(a);
  ks_sm2_key_free(b);
}

TEST(Hardening, PemAfterLeadingTextAndPemMarkersMidLine) {
  ks_sm2_key* key = nullptr;
  ASSERT_EQ(ks_sm2_key_generate(&key), KS_OK);
  const std::vector<uint8_t> pem = encoded_private(key, true);
  std::string text = "Bag Attributes\n    friendlyName: -----BEGIN PRIVATE KEY----- is not here\n";
  text.append(pem.begin(), pem.end());
  ks_sm2_key* got = nullptr;
  EXPECT_EQ(ks_sm2_key_decode(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &got),
            KS_OK);
  ks_sm2_key_free(got);
  // A BEGIN line only in the middle of a line is no PEM block.
  const std::string mid = "x -----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  EXPECT_EQ(ks_sm2_key_decode(reinterpret_cast<const uint8_t*>(mid.data()), mid.size(), &got),
            KS_ERR_PEM_NO_BLOCK);
  ks_sm2_key_free(key);
}

TEST(Hardening, EncryptedKeysHaveTheirOwnError) {
  const std::string pkcs8 =
      "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAc\n"
      "-----END ENCRYPTED PRIVATE KEY-----\n";
  const std::string legacy =
      "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
      "DEK-Info: AES-256-CBC,00112233445566778899AABBCCDDEEFF\n\nAAAA\n"
      "-----END EC PRIVATE KEY-----\n";
  for (const std::string& text : {pkcs8, legacy}) {
    ks_sm2_key* key = nullptr;
    EXPECT_EQ(ks_sm2_key_decode(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &key),
              KS_ERR_PEM_ENCRYPTED);
  }
  EXPECT_NE(std::string(ks_strerror(KS_ERR_PEM_ENCRYPTED)).find("no passphrase"), std::string::npos);
}

// Every path that hashes an ID or a message, with both empty and null:
// memcpy(dst, NULL, 0) is undefined behaviour (the sanitizer build runs
// this with UBSan halting on it).
TEST(Hardening, EmptyIdAndEmptyMessageThroughEveryHashPath) {
  uint8_t digest[32], tag[32];
  EXPECT_EQ(ks_sm3(nullptr, 0, digest), KS_OK);
  ks_sm3_ctx c;
  ks_sm3_init(&c);
  EXPECT_EQ(ks_sm3_update(&c, nullptr, 0), KS_OK);
  uint8_t streamed[32];
  EXPECT_EQ(ks_sm3_final(&c, streamed), KS_OK);
  EXPECT_EQ(memcmp(digest, streamed, 32), 0);
  EXPECT_EQ(ks_hmac_sm3(nullptr, 0, nullptr, 0, tag), KS_OK);

  ks_sm2_key* key = nullptr;
  ASSERT_EQ(ks_sm2_key_generate(&key), KS_OK);
  ks_sm2_pubkey* pub = nullptr;
  ASSERT_EQ(ks_sm2_key_public(key, &pub), KS_OK);
  uint8_t za[32], e[32], sig[64];
  ASSERT_EQ(ks_sm2_za(pub, nullptr, 0, za), KS_OK);
  ASSERT_EQ(ks_sm2_digest(pub, nullptr, 0, nullptr, 0, e), KS_OK);
  ks_sm3(za, 32, digest);  // SM3(Z_A || empty)
  EXPECT_EQ(memcmp(e, digest, 32), 0);
  ASSERT_EQ(ks_sm2_sign(key, nullptr, 0, nullptr, 0, KS_SM2_NONCE_RANDOM, sig), KS_OK);
  EXPECT_EQ(ks_sm2_verify(pub, nullptr, 0, nullptr, 0, sig), KS_OK);
  EXPECT_EQ(ks_sm2_verify_digest(pub, e, sig), KS_OK);

  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = KS_BACKEND_CPU;
  config.cpu_threads = 2;
  ks_ctx* ctx = nullptr;
  ASSERT_EQ(ks_ctx_new(&config, &ctx), KS_OK);
  constexpr size_t kCount = 20;
  const std::vector<uint64_t> offsets(kCount + 1, 0);  // every message empty, no data at all
  std::vector<uint8_t> sigs(64 * kCount), digests(32 * kCount), pubs;
  std::vector<int> status(kCount);
  EXPECT_EQ(ks_sm3_batch(ctx, nullptr, 0, offsets.data(), kCount, digests.data(), digests.size(),
                         status.data()),
            KS_OK);
  EXPECT_EQ(memcmp(digests.data() + 32 * (kCount - 1), streamed, 32), 0);
  EXPECT_EQ(ks_sm2_sign_batch(ctx, key, nullptr, 0, nullptr, 0, offsets.data(), kCount,
                              KS_SM2_NONCE_DETERMINISTIC, sigs.data(), sigs.size(), status.data()),
            KS_OK);
  const std::vector<uint8_t> point = point_of(pub);
  for (size_t i = 0; i < kCount; ++i) pubs.insert(pubs.end(), point.begin(), point.end());
  EXPECT_EQ(ks_sm2_verify_batch(ctx, pubs.data(), nullptr, 0, nullptr, 0, offsets.data(), kCount,
                                sigs.data(), status.data()),
            KS_OK);
  EXPECT_EQ(ks_sm2_verify(pub, nullptr, 0, nullptr, 0, sigs.data() + 64 * 7), KS_OK);
  ks_ctx_free(ctx);
  ks_sm2_pubkey_free(pub);
  ks_sm2_key_free(key);
}

// Runs f in a child process and returns its exit status (or 128 + signal).
int in_child(const std::function<int()>& f) {
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) _exit(f());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Caps the address space at what is mapped now plus `headroom` bytes.
bool limit_address_space(size_t headroom) {
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == nullptr) return false;
  unsigned long pages = 0;
  const bool ok = fscanf(f, "%lu", &pages) == 1;
  fclose(f);
  if (!ok) return false;
  const rlim_t limit = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + headroom;
  const struct rlimit rl = {limit, limit};
  return setrlimit(RLIMIT_AS, &rl) == 0;
}

TEST(Hardening, BatchUnderAnAddressSpaceLimitReportsNoMemory) {
#if defined(KS_TEST_SANITIZER)
  GTEST_SKIP() << "sanitizer runtimes reserve terabytes of address space: no RLIMIT_AS here";
#endif
  const int code = in_child([] {
    ks_ctx_config config;
    ks_ctx_config_init(&config);
    config.backend = KS_BACKEND_CPU;
    config.cpu_threads = 1;
    ks_ctx* ctx = nullptr;
    if (ks_ctx_new(&config, &ctx) != KS_OK) return 10;
    // Caller buffers (untouched pages: all zeros, keys that do not parse)
    // exist before the limit; the batch's own per-item state cannot.
    constexpr size_t kCount = size_t(1) << 22;
    void* pubs = mmap(nullptr, 65 * kCount, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void* digests = mmap(nullptr, 32 * kCount, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void* sigs = mmap(nullptr, 64 * kCount, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pubs == MAP_FAILED || digests == MAP_FAILED || sigs == MAP_FAILED) return 11;
    if (!limit_address_space(size_t(16) << 20)) return 12;
    const int rc = ks_sm2_verify_digest_batch(ctx, static_cast<const uint8_t*>(pubs),
                                              static_cast<const uint8_t*>(digests), kCount,
                                              static_cast<const uint8_t*>(sigs), nullptr);
    return rc == KS_ERR_NO_MEMORY ? 0 : 20;
  });
  EXPECT_EQ(code, 0) << "0: KS_ERR_NO_MEMORY; 20: another status; >= 128: killed by a signal";
}

TEST(Hardening, ThreadsTheOsRefusesAreAnErrorNotAHang) {
#if defined(KS_TEST_SANITIZER)
  GTEST_SKIP() << "sanitizer runtimes reserve terabytes of address space: no RLIMIT_AS here";
#endif
  const int code = in_child([] {
    alarm(30);  // a hang (the old deadlock) dies by SIGALRM
    if (!limit_address_space(size_t(32) << 20)) return 12;
    ks_ctx_config config;
    ks_ctx_config_init(&config);
    config.backend = KS_BACKEND_CPU;
    config.cpu_threads = 256;  // 256 stacks of 8 MiB do not fit in 32 MiB
    ks_ctx* ctx = nullptr;
    const int rc = ks_ctx_new(&config, &ctx);
    return rc == KS_ERR_THREADS && ctx == nullptr ? 0 : 20;
  });
  EXPECT_EQ(code, 0) << "0: KS_ERR_THREADS; 20: another status; >= 128: killed by a signal";
}

// getrandom(2) failing (seccomp makes it return EIO): key generation reports
// KS_ERR_RANDOM and leaves zeros, not stack bytes, in the failed items.
TEST(Hardening, FailedRandomnessLeavesZerosInTheOutputs) {
  const int code = in_child([] {
    ks_ctx_config config;
    ks_ctx_config_init(&config);
    config.backend = KS_BACKEND_CPU;
    config.cpu_threads = 1;
    ks_ctx* ctx = nullptr;
    if (ks_ctx_new(&config, &ctx) != KS_OK) return 10;
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EIO & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 11;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) return 11;
    constexpr size_t kCount = 11;
    uint8_t priv[32 * kCount], pub[65 * kCount];
    int status[kCount];
    memset(priv, 0xAA, sizeof priv);
    memset(pub, 0xAA, sizeof pub);
    const int rc = ks_sm2_keygen_batch(ctx, kCount, priv, sizeof priv, pub, sizeof pub, status);
    if (rc != KS_ERR_BATCH_ITEMS) return 20;
    for (size_t i = 0; i < kCount; ++i)
      if (status[i] != KS_ERR_RANDOM) return 21;
    for (uint8_t b : priv)
      if (b != 0) return 22;
    for (uint8_t b : pub)
      if (b != 0) return 23;
    ks_sm2_key* key = nullptr;
    if (ks_sm2_key_generate(&key) != KS_ERR_RANDOM || key != nullptr) return 24;
    return 0;
  });
  EXPECT_EQ(code, 0) << "20-24: see the child's checks; >= 128: killed by a signal";
}

}  // namespace
