#include "flags.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>

#include "util.h"

namespace kuaisuo::load {
namespace {

// Limits that keep the buffers below well inside memory and size_t.
constexpr uint64_t kMaxItems = uint64_t{1} << 20;
constexpr uint64_t kMaxPool = uint64_t{1} << 24;
constexpr uint64_t kMaxPoolMessageBytes = uint64_t{1} << 32;
constexpr double kMaxRequestsPerRate = 5e7;

bool parse_uint(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max) return false;
  *out = value;
  return true;
}

bool parse_double(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double value = strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(value)) return false;
  *out = value;
  return true;
}

bool parse_rates(const std::string& text, std::vector<double>* out) {
  std::vector<double> rates;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t comma = text.find(',', begin);
    if (comma == std::string::npos) comma = text.size();
    double rate = 0;
    if (!parse_double(text.substr(begin, comma - begin), &rate) || !(rate > 0)) return false;
    rates.push_back(rate);
    begin = comma + 1;
  }
  *out = std::move(rates);
  return true;
}

// Sets one flag; returns an error message, empty when the value is good.
std::string set_flag(const std::string& name, const std::string& value, Options* o) {
  const std::string bad = name + ": bad value '" + value + "'";
  if (name == "--address") {
    o->address = value;
  } else if (name == "--token-file") {
    o->token_file = value;
  } else if (name == "--op") {
    if (value != "sign-rows" && value != "verify-rows" && value != "ed25519-sign" &&
        value != "ed25519-verify") {
      return "--op: sign-rows, verify-rows, ed25519-sign or ed25519-verify, not '" + value + "'";
    }
    o->op = value;
  } else if (name == "--key-id") {
    o->key_id = value;
  } else if (name == "--items") {
    if (!parse_uint(value, 1, kMaxItems, &o->items)) return bad + " (1 to 1048576)";
  } else if (name == "--message-bytes") {
    if (!parse_uint(value, 0, 1 << 20, &o->message_bytes)) return bad + " (0 to 1048576)";
  } else if (name == "--rates") {
    if (!parse_rates(value, &o->rates)) return bad + " (positive rates such as 500,2000)";
  } else if (name == "--seconds") {
    if (!parse_double(value, &o->seconds) || !(o->seconds > 0)) return bad + " (positive)";
  } else if (name == "--warmup") {
    if (!parse_double(value, &o->warmup) || o->warmup < 0) return bad + " (0 or more)";
  } else if (name == "--channels") {
    if (!parse_uint(value, 1, 1024, &o->channels)) return bad + " (1 to 1024)";
  } else if (name == "--threads") {
    if (!parse_uint(value, 1, 256, &o->threads)) return bad + " (1 to 256)";
  } else if (name == "--pool") {
    if (!parse_uint(value, 1, kMaxPool, &o->pool)) return bad + " (1 to 16777216)";
  } else if (name == "--timeout-ms") {
    if (!parse_uint(value, 1, 3600 * 1000, &o->timeout_ms)) return bad + " (1 to 3600000)";
  } else if (name == "--arrivals") {
    if (value != "poisson" && value != "fixed") return "--arrivals: poisson or fixed";
    o->arrivals = value;
  } else if (name == "--seed") {
    if (!parse_uint(value, 0, UINT64_MAX, &o->seed)) return bad + " (an unsigned integer)";
    o->has_seed = true;
  } else if (name == "--cacert") {
    o->cacert = value;
  } else if (name == "--check-key") {
    o->check_key = value;
  } else if (name == "--json") {
    o->json = value;
  } else if (name == "--library") {
    if (value != "auto" && value != "cpu" && value != "gpu") return "--library: auto, cpu or gpu";
    o->library = value;
  } else {
    return "unknown flag " + name;
  }
  return "";
}

// HOST:PORT with a port in 1..65535, or a gRPC target with a scheme
// ("dns:///host:port", "unix:/path"), which gRPC itself resolves.
bool plausible_address(const std::string& address) {
  if (address.find(":/") != std::string::npos) return true;
  const size_t colon = address.rfind(':');
  uint64_t port = 0;
  return colon != std::string::npos && colon > 0 &&
         parse_uint(address.substr(colon + 1), 1, 65535, &port);
}

// Checks the flags together; returns an error message or "".
std::string check_options(const Options& o) {
  if (!o.library.empty()) {
    return o.ed25519() ? "--library runs sign-rows and verify-rows" : "";
  }
  if (o.address.empty()) return "--address HOST:PORT is required";
  if (!plausible_address(o.address)) return "--address: HOST:PORT, not '" + o.address + "'";
  if (o.token_file.empty()) return "--token-file FILE is required";
  if (o.sign() && o.key_id.empty()) return "--op " + o.op + " needs a --key-id";
  if (!o.check_key.empty() && o.op != "sign-rows") {
    return "--check-key applies to --op sign-rows only";
  }
  if (o.ed25519() && std::max(o.pool, o.items) * o.message_bytes > kMaxPoolMessageBytes) {
    return "--pool (or --items) x --message-bytes: more than 4 GiB of messages";
  }
  for (double rate : o.rates) {
    if (rate * std::max(o.seconds, o.warmup) > kMaxRequestsPerRate) {
      return "--rates x --seconds: more than 5e7 requests in one run";
    }
  }
  return "";
}

}  // namespace

const char kUsage[] =
    "usage: kuaisuo-grpc-load --address HOST:PORT --token-file FILE [options]\n"
    "  --op sign-rows|verify-rows|ed25519-sign|ed25519-verify   (default sign-rows)\n"
    "  --key-id ID                  the sign ops: the server's key (default gov)\n"
    "  --message-bytes N            the ed25519 ops: bytes a message (default 64)\n"
    "  --items N                    items per request (default 1024)\n"
    "  --rates R1,R2,...            offered requests/s, one run each (default 1000)\n"
    "  --seconds S                  per rate (default 3)\n"
    "  --warmup S                   unrecorded run at the first rate (default 1; 0: none)\n"
    "  --channels C                 distinct TCP connections, round robin (default 8)\n"
    "  --threads T                  completion-queue polling threads (default 4)\n"
    "  --pool P                     distinct items in the input pool (default 65536)\n"
    "  --timeout-ms MS              per request, from its scheduled send (default 10000)\n"
    "  --arrivals poisson|fixed     (default poisson)\n"
    "  --seed N                     of the arrival schedule\n"
    "  --cacert FILE                TLS with these roots (default: plaintext)\n"
    "  --check-key FILE             sign-rows: the server key (PKCS#8/SEC1, PEM or DER);\n"
    "                               verify the first ok reply of each rate on the CPU\n"
    "  --json FILE                  parameters, host and rows as JSON\n"
    "  --library auto|cpu|gpu       no server: --threads threads share one context and call\n"
    "                               the op's batch function on --items pool rows each, in\n"
    "                               page-locked buffers, closed loop for --seconds (the\n"
    "                               rate a server's engines can reach; prints one JSON line)\n"
    "   or: kuaisuo-grpc-load --new-key FILE [ed25519]\n"
    "  writes a fresh SM2 (or Ed25519) key (PKCS#8 PEM, unencrypted, mode 0600) for a\n"
    "  benchmark's server (kuaisuo-grpcd --allow-plain) where the Python CLI is not\n"
    "  installed\n";

std::string parse_flags(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string name = argv[i];
    std::string value;
    if (name.compare(0, 2, "--") != 0) return "unexpected argument '" + name + "'";
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return name + " needs a value";
    }
    std::string error = set_flag(name, value, o);
    if (!error.empty()) return error;
  }
  return check_options(*o);
}

bool read_token(const std::string& path, std::string* token) {
  if (!read_file(path, token)) {
    fprintf(stderr, "%s: --token-file %s: %s\n", kTool, path.c_str(), strerror(errno));
    return false;
  }
  while (!token->empty() && strchr(" \t\r\n\f\v", token->back()) != nullptr) token->pop_back();
  if (token->empty()) {
    fprintf(stderr, "%s: --token-file %s: empty token\n", kTool, path.c_str());
    return false;
  }
  for (unsigned char c : *token) {
    if (c < 0x20 || c > 0x7e) {
      fprintf(stderr, "%s: --token-file %s: the token is not printable ASCII\n", kTool,
              path.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace kuaisuo::load
