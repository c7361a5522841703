// The Signer service of python/kuaisuo/serve/kuaisuo_serve.proto in C++,
// for the rows form of SM2 on digests (Sign with digest_rows, Verify with
// the three row columns): per request O(1) work on the transport's thread,
// the rows batched by RowBatcher. The other calls (lists of items, Hash,
// Encrypt, Decrypt) answer UNIMPLEMENTED with a message naming `kuaisuo
// serve`, which serves every call. Refusals use the codes and texts of
// python/kuaisuo/serve/service.py; a request past the queue bound gets
// KS_ERR_OVERLOADED for each row (as the Python batcher answers).
#ifndef KUAISUO_SERVE_GRPCD_SIGNER_SERVICE_H_
#define KUAISUO_SERVE_GRPCD_SIGNER_SERVICE_H_

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

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
            size_t items, size_t ok);

 private:
  std::mutex mu_;
  std::FILE* out_;
};

class SignerService final : public v1::Signer::CallbackService {
 public:
  SignerService(RowBatcher* batcher, const KeyStore* keys, const Access* access, Limits limits,
                AuditLog* audit)
      : batcher_(batcher), keys_(keys), access_(access), limits_(limits), audit_(audit) {}

  grpc::ServerUnaryReactor* Sign(grpc::CallbackServerContext* ctx, const v1::SignRequest* req,
                                 v1::Reply* reply) override;
  grpc::ServerUnaryReactor* Verify(grpc::CallbackServerContext* ctx,
                                   const v1::VerifyRequest* req, v1::Reply* reply) override;
  grpc::ServerUnaryReactor* Hash(grpc::CallbackServerContext* ctx, const v1::HashRequest* req,
                                 v1::Reply* reply) override;
  grpc::ServerUnaryReactor* Encrypt(grpc::CallbackServerContext* ctx,
                                    const v1::CipherRequest* req, v1::Reply* reply) override;
  grpc::ServerUnaryReactor* Decrypt(grpc::CallbackServerContext* ctx,
                                    const v1::CipherRequest* req, v1::Reply* reply) override;

 private:
  std::string_view token(grpc::CallbackServerContext* ctx) const;
  grpc::Status admit(size_t rows, uint32_t timeout_ms, Clock::time_point* deadline) const;
  // Queues req (its done() finishes the call). Rows the batcher refuses
  // get its status each, and the call finishes at once.
  void submit(std::shared_ptr<RowRequest> req);

  RowBatcher* batcher_;
  const KeyStore* keys_;
  const Access* access_;
  Limits limits_;
  AuditLog* audit_;
};

}  // namespace kuaisuo::serve

#endif  // KUAISUO_SERVE_GRPCD_SIGNER_SERVICE_H_
