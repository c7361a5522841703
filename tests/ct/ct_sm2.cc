// Runs SM2 key generation and signing with secrets marked undefined (see
// core/secure.h). Under valgrind, any branch or address that depends on a
// private key or nonce is an error. Prints "N passed, 0 failed" when the
// operations themselves succeed (valgrind's exit code carries the verdict
// on timing).
#include <stdio.h>
#include <string.h>

#include "core/os_random.h"
#include "core/secure.h"
#include "scheme/sm2.h"

namespace {

int failures = 0, passes = 0;

void expect(bool ok, const char* what) {
  if (ok) {
    ++passes;
  } else {
    ++failures;
    fprintf(stderr, "ct_sm2: %s failed\n", what);
  }
}

bool is_ok(ks::sm2::Error e) { return ks::ct_public(e) == ks::sm2::Error::kOk; }

}  // namespace

// A deliberately leaky computation: a branch on a secret byte. Run with
// --leak, valgrind must report it (ctest expects that run to fail), which
// shows the harness would catch a real leak.
int leak_on_purpose() {
  uint8_t secret[1];
  if (!ks::os_random(secret, 1)) return 2;
  volatile int sink = 0;
  if (secret[0] & 1) sink = 1;  // secret-dependent branch
  printf("leak run: %d\n", int(sink));
  return 0;
}

int main(int argc, char** argv) {
  using namespace ks::sm2;
  if (argc > 1 && strcmp(argv[1], "--leak") == 0) return leak_on_purpose();
  uint8_t e[32];
  if (!ks::os_random(e, sizeof e)) return 2;
  ks::ct_declassify(e, sizeof e);  // the digest is public

  for (int round = 0; round < 3; ++round) {
    PrivateKey key;  // d from os_random: secret
    expect(is_ok(generate_key(key)), "generate_key");
    uint8_t sig[64];
    expect(is_ok(sign_digest(sig, key, e, Nonce::kRandom)), "sign_digest (random k)");
    expect(is_ok(sign_digest(sig, key, e, Nonce::kDeterministic)), "sign_digest (RFC 6979 k)");
    uint8_t msg[100] = {1, 2, 3};
    expect(is_ok(sign_message(sig, key, reinterpret_cast<const uint8_t*>(kDefaultId),
                              kDefaultIdBytes, msg, sizeof msg, Nonce::kRandom)),
           "sign_message");
    // A private key loaded from bytes: secret as well.
    uint8_t d[32];
    private_key_to_bytes(d, key);
    ks::ct_poison(d, sizeof d);
    PrivateKey loaded;
    expect(is_ok(private_key_from_bytes(loaded, d)), "private_key_from_bytes");
    // Verification of our own signature (public inputs) as a sanity check.
    ks::ct_declassify(sig, sizeof sig);
    expect(is_ok(verify_message(key.pub, reinterpret_cast<const uint8_t*>(kDefaultId),
                                kDefaultIdBytes, msg, sizeof msg, sig)),
           "verify_message");
  }
  printf("%d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
