// The command line: --help's text, the options and their checks.
#ifndef KUAISUO_BENCH_LOAD_GRPC_FLAGS_H_
#define KUAISUO_BENCH_LOAD_GRPC_FLAGS_H_

#include <stdint.h>

#include <string>
#include <vector>

namespace kuaisuo::load {

// --help's text.
extern const char kUsage[];

struct Options {
  std::string address;
  std::string token_file;
  std::string op = "sign-rows";
  std::string key_id = "gov";
  uint64_t items = 1024;
  uint64_t message_bytes = 64;
  std::vector<double> rates = {1000.0};
  double seconds = 3.0;
  double warmup = 1.0;
  uint64_t channels = 8;
  uint64_t threads = 4;
  uint64_t pool = 65536;
  uint64_t timeout_ms = 10000;
  std::string arrivals = "poisson";
  bool has_seed = false;
  uint64_t seed = 0;
  std::string cacert;
  std::string check_key;
  std::string json;
  std::string library;  // a backend: measure the library alone

  bool sign() const { return op == "sign-rows" || op == "ed25519-sign"; }
  bool ed25519() const { return op == "ed25519-sign" || op == "ed25519-verify"; }
  bool rows() const { return !ed25519(); }  // the reply carries statuses as rows
};

// Parses argv ("--name value" or "--name=value"); returns an error message or "".
std::string parse_flags(int argc, char** argv, Options* o);

// The bearer token: the file's text less trailing whitespace. It goes into
// an HTTP/2 header, so only printable ASCII is accepted.
bool read_token(const std::string& path, std::string* token);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_FLAGS_H_
