// Key files: the server's key that --check-key reads, and --new-key's
// throwaway keys for a benchmark's server.
#ifndef KUAISUO_BENCH_LOAD_GRPC_KEYS_H_
#define KUAISUO_BENCH_LOAD_GRPC_KEYS_H_

#include <string>

#include "util.h"

namespace kuaisuo::load {

// The public half of the server's key, from its private key file.
bool load_check_key(const std::string& path, PubkeyPtr* out);

// A benchmark's throwaway server key, written where only its owner reads it.
int write_new_key(const std::string& path, bool ed25519);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_KEYS_H_
