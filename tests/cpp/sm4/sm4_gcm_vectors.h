// RFC 8998 appendix A.1: the SM4-GCM example of TLS_SM4_GCM_SM3, shared by
// the CPU (test_sm4_gcm.cc) and GPU (test_gpu_sm4.cc) tests.
#ifndef KS_TESTS_SM4_GCM_VECTORS_H_
#define KS_TESTS_SM4_GCM_VECTORS_H_

#include <stdint.h>

#include <vector>

#include "test_util.h"

namespace ks_test {

struct GcmExample {
  std::vector<uint8_t> key, iv, aad, pt, ct, tag;
};

inline GcmExample rfc8998_example() {
  return GcmExample{
      from_hex("0123456789abcdeffedcba9876543210"),
      from_hex("00001234567800000000abcd"),
      from_hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
      from_hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
               "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"),
      from_hex("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
               "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"),
      from_hex("83de3541e4c2b58177e065a9bf7b62ec"),
  };
}

}  // namespace ks_test

#endif  // KS_TESTS_SM4_GCM_VECTORS_H_
