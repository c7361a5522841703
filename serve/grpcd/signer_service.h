// The Signer service of serve/proto/kuaisuo_serve.proto in C++,
// for SM2: the rows form on digests (Sign with digest_rows, Verify with the
// three row columns), per request O(1) work on the thread that polled it,
// the rows batched by RowBatcher; kuaisuo serve's lists of items (digests
// or messages, DER signatures), checked and hashed on that thread and
// batched as the same rows; its lists for Ed25519 (whole messages, batched
// as rows with a variable-length column); and Hash (SM3 of each item, on
// the CPU). Encrypt and Decrypt answer UNIMPLEMENTED with a message naming
// `kuaisuo serve`, which serves every call. Refusals use the codes and texts of
// serve/python/kuaisuo_serve/service.py; a request past the queue bound gets
// KS_ERR_OVERLOADED for each row (as the Python batcher answers).
#ifndef KUAISUO_SERVE_GRPCD_SIGNER_SERVICE_H_
#define KUAISUO_SERVE_GRPCD_SIGNER_SERVICE_H_

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "key_store.h"
#include "kuaisuo_serve.grpc.pb.h"
#include "row_batcher.h"

namespace kuaisuo::serve {

struct Limits {
  size_t max_items = 4096;                      // rows in one request
  std::chrono::milliseconds max_timeout{60000};  // a client's timeout is capped here
};

// One JSON line per signing request (never key bytes or data), to a file
// or stderr; lines from concurrent requests never interleave.
class AuditLog {
 public:
  explicit AuditLog(std::FILE* out) : out_(out) {}
  void sign(const std::string& client_digest, const std::string& peer, const std::string& key_id,
            const char* algorithm, bool digests, size_t items, size_t ok);

 private:
  std::mutex mu_;
  std::FILE* out_;
};

// Serves the Signer calls on gRPC's completion-queue API: `queues`
// completion queues, one polling thread each, every call parsed and
// checked on the thread that polled it and answered from RowBatcher's
// finishing threads. gRPC 1.51's callback API ran every call through one
// shared set of "nexting" threads, which held a process near 50-75k
// single-item requests/s on an H200 host (docs/design/0006;
// bench/results/h200-2026-11-29-s25-grpcd-sign-single.json).
class SignerService {
 public:
  // inline_ctx: a one-thread CPU context for work done on the polling
  // thread (Hash); not owned, as the others.
  SignerService(RowBatcher* batcher, ks_ctx* inline_ctx, const KeyStore* keys,
                const Access* access, Limits limits, AuditLog* audit);
  ~SignerService();
  SignerService(const SignerService&) = delete;
  SignerService& operator=(const SignerService&) = delete;

  // Before builder->BuildAndStart(): registers the service and its queues.
  void add_to(grpc::ServerBuilder* builder, unsigned queues);
  // After BuildAndStart(): accepts calls and starts the polling threads.
  void start();
  // After the server's Shutdown() returned (every accepted call answered):
  // drains the queues and joins their threads.
  void stop();

 private:
  template <class Request>
  class Call;
  template <class Request>
  struct Method;
  struct Queue;
  struct ListRows;
  // An answer now, or nullopt when the rows were queued (their done()
  // finishes the call).
  using Answer = std::optional<grpc::Status>;

  template <class Request>
  void accept(Queue* queue, const Method<Request>& method);
  void poll(Queue* queue);

  Answer sign(Call<v1::SignRequest>* call);
  Answer sign_items(Call<v1::SignRequest>* call, Sm2Key key, std::string client);
  Answer sign_ed25519_items(Call<v1::SignRequest>* call, Ed25519Key key, std::string client);
  Answer verify(Call<v1::VerifyRequest>* call);
  Answer verify_items(Call<v1::VerifyRequest>* call);
  Answer verify_ed25519_items(Call<v1::VerifyRequest>* call);
  Answer hash(Call<v1::HashRequest>* call);
  Answer encrypt(Call<v1::CipherRequest>* call);
  Answer decrypt(Call<v1::CipherRequest>* call);

  bool known_client(const grpc::ServerContext& ctx) const;
  grpc::Status admit(size_t rows, uint32_t timeout_ms, Clock::time_point* deadline) const;
  // Queues req. Rows the batcher refuses get its status each, and req's
  // done() runs at once.
  void submit(std::shared_ptr<RowRequest> req);
  // Queues a list's checked items as rows of its op; reply() runs when
  // their statuses (and values) are in.
  void submit_list(std::shared_ptr<ListRows> list, std::shared_ptr<const void> key,
                   Clock::time_point deadline, std::function<void()> reply);
  // A signature's bytes as made by the library into a list's result: its
  // status (KS_OK, or why it could not be written).
  using EncodeSignature = int (*)(std::string_view raw, v1::ItemResult* result);
  void answer_signed(Call<v1::SignRequest>* call, ListRows& list, const std::string& client,
                     const char* algorithm, EncodeSignature encode);
  static void answer_verified(Call<v1::VerifyRequest>* call, const ListRows& list);

  RowBatcher* batcher_;
  ks_ctx* inline_ctx_;
  const KeyStore* keys_;
  const Access* access_;
  Limits limits_;
  AuditLog* audit_;
  v1::Signer::AsyncService service_;
  std::vector<std::unique_ptr<Queue>> queues_;
};

}  // namespace kuaisuo::serve

#endif  // KUAISUO_SERVE_GRPCD_SIGNER_SERVICE_H_
