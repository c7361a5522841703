// The input pool (distinct valid items made with the library before the
// run) and the requests prebuilt from it, serialized once.
#ifndef KUAISUO_BENCH_LOAD_GRPC_POOL_H_
#define KUAISUO_BENCH_LOAD_GRPC_POOL_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

#include "flags.h"
#include "util.h"

namespace kuaisuo::load {

// count distinct items, each column one buffer. Item i's key is key
// i / kDigestsPerKey (the verify ops only; the sign ops need just the
// digests or messages).
struct Pool {
  size_t count = 0;
  std::vector<uint8_t> digests;      // SM2: count * 32
  size_t message_bytes = 0;
  std::vector<uint8_t> messages;     // Ed25519: count * message_bytes
  size_t key_bytes = kPublicKeyBytes;
  std::vector<uint8_t> public_keys;  // count * key_bytes: SM2's 04||x||y, Ed25519's 32
  std::vector<uint8_t> signatures;   // count * 64: SM2's r||s, Ed25519's R||S
};

// count items for o.op: random digests or messages and, for the verify
// ops, keys and signatures (checked locally); false, with a message, on a
// library error.
bool build_pool(const Options& o, size_t count, Pool* pool);

// Pool item of row t of window (request) j; windows wrap around the pool.
size_t pool_item(const Pool& pool, size_t items, size_t j, size_t t);

// Copies the `items` rows of window j of one pool column to out
// (items * width bytes).
void copy_window(const Pool& pool, const std::vector<uint8_t>& column, size_t width,
                 size_t items, size_t j, uint8_t* out);

// One serialized request per window: ceil(count / items) of them, so every
// pool item is sent and no item appears twice in one request (items <= count).
bool build_requests(const Options& o, const Pool& pool, std::vector<std::string>* out);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_POOL_H_
