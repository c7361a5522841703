// kuaisuo-grpcd: the native gRPC front end of `kuaisuo serve` (issue 15),
// for SM2 signatures (the rows form on digests, and lists), Ed25519
// signatures (lists of messages) and SM3 Hash,
// where Python's transports cap a process near 2k requests/s. Same key
// directory, access file, proto and per-item statuses as `kuaisuo serve
// --grpc`; serve/README.md, "kuaisuo-grpcd". Its options: kUsage below
// (`kuaisuo-grpcd --help`).
//
// --workers N: N server processes on one port (gRPC sets SO_REUSEPORT, so
// the kernel spreads connections over them), each with its own engines on
// --devices, for hosts where one process's transport is the limit. The
// parent forwards SIGTERM / SIGINT / SIGHUP and exits when every worker
// has (non-zero if any did).
//
// SIGTERM / SIGINT: stop accepting, answer every accepted request, exit 0.
// SIGHUP: reload the key directory.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "key_store.h"
#include "mutex_mode.h"
#include "row_batcher.h"
#include "signer_service.h"

namespace kuaisuo::serve {
namespace {

struct Options {
  std::string keys, access, passin, listen = "127.0.0.1:50051", tls_cert, tls_key, tls_client_ca;
  std::string backend = "auto", devices = "0", audit_log;
  bool allow_plain = false, allow_insecure = false;
  unsigned threads = 0, calls_per_device = 0, finish_threads = 4, workers = 1;
  unsigned queues = std::clamp(std::thread::hardware_concurrency() / 2, 1u, 16u);
  size_t max_batch = 4096, max_queued = size_t{1} << 20, max_items = 4096;
  size_t max_batch_mib = 64;  // Ed25519's messages in one batch
  double max_delay_ms = 2.0;
};

// --help's text; the defaults are Options' above.
const char kUsage[] =
    "usage: kuaisuo-grpcd --keys DIR --access FILE [options]\n"
    "The native gRPC front end of kuaisuo serve: service kuaisuo.serve.v1.Signer\n"
    "(serve/proto/kuaisuo_serve.proto) for SM2 (rows and lists), Ed25519 (lists)\n"
    "and SM3 Hash; every call carries `authorization: Bearer TOKEN`. serve/README.md.\n"
    "  --keys DIR              the key directory: <key id>.pem|.der, PKCS#8 (required)\n"
    "  --access FILE           {\"tokens\": {\"<sha256 hex of a token>\": [\"key id\", ... or\n"
    "                          \"*\"]}} (required)\n"
    "  --passin SPEC           passphrase of the encrypted key files: pass:TEXT,\n"
    "                          env:VARIABLE or file:PATH (its first line)\n"
    "  --allow-plain           accept unencrypted key files\n"
    "  --listen HOST:PORT      (default 127.0.0.1:50051)\n"
    "  --tls-cert PEM          certificate chain; with --tls-key, the listener is TLS\n"
    "  --tls-key PEM           its private key\n"
    "  --tls-client-ca PEM     require client certificates from these CAs (mutual TLS)\n"
    "  --allow-insecure        allow a plain listener on a non-loopback address\n"
    "  --backend auto|cpu|gpu  (default auto)\n"
    "  --devices LIST          GPUs, one engine each: indices such as 0,1 or all (default 0)\n"
    "  --threads N             CPU threads of each engine (default 0: every CPU)\n"
    "  --max-batch N           most items in one batch call (default 4096)\n"
    "  --max-batch-mib N       MiB of Ed25519 messages one batch gathers; a larger\n"
    "                          message runs alone (default 64)\n"
    "  --max-delay-ms F        longest an item waits for its batch to fill (default 2)\n"
    "  --max-queued N          items accepted and unfinished before requests get\n"
    "                          'overloaded' (default 1048576)\n"
    "  --max-items N           items in one request (default 4096)\n"
    "  --calls-per-device N    batch calls in flight per engine (default 2; 1 with\n"
    "                          --backend cpu)\n"
    "  --finish-threads N      threads that answer finished batches (default 4)\n"
    "  --queues N              gRPC completion queues, a polling thread each, that parse\n"
    "                          and check calls (default: half the cores, at most 16)\n"
    "  --workers N             server processes sharing the port (default 1)\n"
    "  --audit-log FILE        audit lines, appended (default stderr)\n"
    "  -h, --help              print this and exit\n"
    "SIGTERM/SIGINT: stop accepting, answer every accepted request, exit 0.\n"
    "SIGHUP: reload the key directory.\n";

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "kuaisuo-grpcd: %s (kuaisuo-grpcd --help lists the options)\n",
               message.c_str());
  std::exit(2);
}

size_t whole(const std::string& flag, const std::string& text, size_t low) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-' || v < low) {
    usage_error(flag + ": a whole number >= " + std::to_string(low) + ", not '" + text + "'");
  }
  return static_cast<size_t>(v);
}

Options parse(int argc, char** argv) {
  Options o;
  std::map<std::string, std::string*> text = {
      {"--keys", &o.keys},           {"--access", &o.access},     {"--passin", &o.passin},
      {"--listen", &o.listen},       {"--tls-cert", &o.tls_cert}, {"--tls-key", &o.tls_key},
      {"--tls-client-ca", &o.tls_client_ca}, {"--backend", &o.backend},
      {"--devices", &o.devices},     {"--audit-log", &o.audit_log}};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
  }
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--allow-plain") { o.allow_plain = true; continue; }
    if (flag == "--allow-insecure") { o.allow_insecure = true; continue; }
    if (i + 1 >= argc) usage_error(flag + ": unknown, or missing its value");
    const std::string value = argv[++i];
    if (auto it = text.find(flag); it != text.end()) {
      *it->second = value;
    } else if (flag == "--threads") {
      o.threads = static_cast<unsigned>(whole(flag, value, 0));
    } else if (flag == "--calls-per-device") {
      o.calls_per_device = static_cast<unsigned>(whole(flag, value, 1));
    } else if (flag == "--queues") {
      o.queues = static_cast<unsigned>(whole(flag, value, 1));
    } else if (flag == "--workers") {
      o.workers = static_cast<unsigned>(whole(flag, value, 1));
    } else if (flag == "--finish-threads") {
      o.finish_threads = static_cast<unsigned>(whole(flag, value, 1));
    } else if (flag == "--max-batch") {
      o.max_batch = whole(flag, value, 1);
    } else if (flag == "--max-batch-mib") {
      o.max_batch_mib = std::min<size_t>(whole(flag, value, 1), size_t{1} << 20);
    } else if (flag == "--max-queued") {
      o.max_queued = whole(flag, value, 1);
    } else if (flag == "--max-items") {
      o.max_items = whole(flag, value, 1);
    } else if (flag == "--max-delay-ms") {
      char* end = nullptr;
      o.max_delay_ms = std::strtod(value.c_str(), &end);
      if (*end != '\0' || !(o.max_delay_ms >= 0)) usage_error("--max-delay-ms: >= 0");
    } else {
      usage_error(flag + ": unknown");
    }
  }
  if (o.keys.empty() || o.access.empty()) usage_error("--keys and --access are required");
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "gpu") {
    usage_error("--backend: auto, cpu or gpu");
  }
  if (o.workers > 1 && o.listen.size() >= 2 && o.listen.compare(o.listen.size() - 2, 2, ":0") == 0) {
    usage_error("--workers share one fixed port (gRPC listens with SO_REUSEPORT), not port 0");
  }
  return o;
}

std::vector<int> device_list(const std::string& spec) {
  std::vector<int> out;
  if (spec == "all") {
    for (int d = 0; d < std::max(1, ks_gpu_device_count()); ++d) out.push_back(d);
    return out;
  }
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    out.push_back(static_cast<int>(whole("--devices", item, 0)));
  }
  if (out.empty()) usage_error("--devices: 'all' or indices such as 0,1");
  return out;
}

// The context config asks for, or exit with the library's reason.
ks_ctx* open_context(const ks_ctx_config& config, const std::string& what) {
  ks_ctx* ctx = nullptr;
  if (const int rc = ks_ctx_new(&config, &ctx); rc != KS_OK) {
    std::fprintf(stderr, "kuaisuo-grpcd: %s: %s\n", what.c_str(), ks_strerror(rc));
    std::exit(1);
  }
  return ctx;
}

// One context per GPU of --devices (one CPU context for --backend cpu).
std::vector<ks_ctx*> open_contexts(const Options& o) {
  std::vector<ks_ctx*> contexts;
  const std::vector<int> devices = o.backend == "cpu" ? std::vector<int>{0} : device_list(o.devices);
  for (int device : devices) {
    ks_ctx_config config;
    ks_ctx_config_init(&config);
    config.backend = o.backend == "cpu" ? KS_BACKEND_CPU
                     : o.backend == "gpu" ? KS_BACKEND_GPU : KS_BACKEND_AUTO;
    config.gpu_device = device;
    config.cpu_threads = o.threads;
    contexts.push_back(open_context(config, "device " + std::to_string(device)));
  }
  return contexts;
}

// The CPU, on the calling thread: for the calls SignerService answers
// without the batcher (Hash).
ks_ctx* open_inline_context() {
  ks_ctx_config config;
  ks_ctx_config_init(&config);
  config.backend = KS_BACKEND_CPU;
  config.cpu_threads = 1;
  return open_context(config, "CPU context");
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) usage_error(path + ": cannot be read");
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address.rfind("localhost:", 0) == 0 ||
         address.rfind("[::1]:", 0) == 0;
}

std::shared_ptr<grpc::ServerCredentials> credentials(const Options& o) {
  if (o.tls_cert.empty() != o.tls_key.empty()) usage_error("--tls-cert and --tls-key go together");
  if (o.tls_cert.empty()) {
    if (!o.tls_client_ca.empty()) usage_error("--tls-client-ca needs --tls-cert and --tls-key");
    if (!loopback(o.listen) && !o.allow_insecure) {
      usage_error("a plain listener on " + o.listen + " needs --allow-insecure (or TLS)");
    }
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions ssl(
      o.tls_client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!o.tls_client_ca.empty()) ssl.pem_root_certs = read_text(o.tls_client_ca);
  ssl.pem_key_cert_pairs.push_back({read_text(o.tls_key), read_text(o.tls_cert)});
  return grpc::SslServerCredentials(ssl);
}

void report_key_errors(const std::vector<std::string>& errors) {
  for (const std::string& e : errors) std::fprintf(stderr, "kuaisuo-grpcd: key %s\n", e.c_str());
}

// Blocks the signals in every thread (the gRPC and engine threads start
// later and inherit the mask) so that sigwait() below takes them.
sigset_t serve_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int run(const Options& o) {
  const sigset_t signals = serve_signals();
  std::string error, passphrase;
  if (!o.passin.empty()) {
    auto p = read_passphrase(o.passin, &error);
    if (!p) usage_error(error);
    passphrase = *p;
  }
  auto access = Access::from_file(o.access, &error);
  if (!access) usage_error(error);
  KeyStore keys(o.keys, passphrase, o.allow_plain);
  report_key_errors(keys.load());
  std::FILE* audit_out = o.audit_log.empty() ? stderr : std::fopen(o.audit_log.c_str(), "a");
  if (audit_out == nullptr) usage_error(o.audit_log + ": cannot be opened for appending");
  AuditLog audit(audit_out);

  std::vector<ks_ctx*> contexts = open_contexts(o);
  BatcherConfig config;
  config.max_batch = o.max_batch;
  config.max_batch_bytes = o.max_batch_mib << 20;
  config.max_delay = std::chrono::microseconds(static_cast<long long>(o.max_delay_ms * 1000));
  config.max_queued = o.max_queued;
  // Two calls a GPU: one gathers its rows while the other's batch runs.
  config.calls_per_context = o.calls_per_device ? o.calls_per_device : o.backend == "cpu" ? 1 : 2;
  config.finish_threads = o.finish_threads;
  RowBatcher batcher(contexts, config);
  ks_ctx* inline_ctx = open_inline_context();
  SignerService service(&batcher, inline_ctx, &keys, &*access,
                        Limits{o.max_items, std::chrono::milliseconds(60000)}, &audit);

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(o.listen, credentials(o), &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<size_t>(
      size_t{1} << 30, o.max_items * (65 + 32 + 64) + (1 << 16))));
  service.add_to(&builder, o.queues);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "kuaisuo-grpcd: cannot listen on %s\n", o.listen.c_str());
    return 1;
  }
  service.start();
  std::fprintf(stderr, "kuaisuo-grpcd: %zu keys, %zu engine(s) x %u calls, %u queues, "
               "listening on %s (port %d, %s)\n", keys.size(), contexts.size(),
               config.calls_per_context, o.queues, o.listen.c_str(), port,
               o.tls_cert.empty() ? "plain" : "TLS");
  for (;;) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGHUP) {
      report_key_errors(keys.load());
      std::fprintf(stderr, "kuaisuo-grpcd: reloaded, %zu keys\n", keys.size());
      continue;
    }
    break;
  }
  std::fprintf(stderr, "kuaisuo-grpcd: draining\n");
  // New calls are refused; accepted ones run (their rows are queued in the
  // batcher, which keeps running) and are answered before Shutdown returns.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(60));
  batcher.close();
  service.stop();
  for (ks_ctx* ctx : contexts) ks_ctx_free(ctx);
  ks_ctx_free(inline_ctx);
  std::fprintf(stderr, "kuaisuo-grpcd: stopped\n");
  return 0;
}

// Forks o.workers servers before any thread or device exists, forwards the
// service signals to them and waits for all.
int supervise(const Options& o) {
  sigset_t set = serve_signals();
  sigaddset(&set, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::vector<pid_t> children;
  for (unsigned i = 0; i < o.workers; ++i) {
    const pid_t pid = fork();
    if (pid == 0) std::_Exit(run(o));
    if (pid < 0) {
      std::perror("kuaisuo-grpcd: fork");
      for (pid_t c : children) kill(c, SIGTERM);
      break;
    }
    children.push_back(pid);
  }
  int status = 0, alive = static_cast<int>(children.size());
  while (alive > 0) {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig != SIGCHLD) {
      for (pid_t c : children) kill(c, sig);
      continue;
    }
    int child_status = 0;
    while (waitpid(-1, &child_status, WNOHANG) > 0) {
      --alive;
      if (WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0) continue;
      if (status == 0) {  // a worker failed (a port it could not bind, say): stop the rest
        for (pid_t c : children) kill(c, SIGTERM);
      }
      status = 1;
    }
  }
  return children.size() == o.workers ? status : 1;
}

}  // namespace
}  // namespace kuaisuo::serve

int main(int argc, char** argv) {
  kuaisuo::serve::release_mode_mutexes();
  const kuaisuo::serve::Options o = kuaisuo::serve::parse(argc, argv);
  return o.workers > 1 ? kuaisuo::serve::supervise(o) : kuaisuo::serve::run(o);
}
