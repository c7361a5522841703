#include "signer_service.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

namespace kuaisuo::serve {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Reply.statuses are little-endian int32s, written in place");

constexpr size_t kDigest = KS_SM2_DIGEST_BYTES, kSignature = KS_SM2_SIGNATURE_BYTES,
                 kPublicKey = 65;

int sign_digest_rows(ks_ctx* ctx, const void* key, const uint8_t* const* in, size_t count,
                     uint8_t* out, int* status) {
  return ks_sm2_sign_digest_batch(ctx, static_cast<const ks_sm2_key*>(key), in[0], count,
                                  KS_SM2_NONCE_RANDOM, out, count * kSignature, status);
}

int verify_digest_rows(ks_ctx* ctx, const void*, const uint8_t* const* in, size_t count,
                       uint8_t*, int* status) {
  return ks_sm2_verify_digest_batch(ctx, in[0], in[1], count, in[2], status);
}

const RowOp kSignDigestRows{"sm2-sign-digest-rows", {kDigest}, kSignature, sign_digest_rows};
const RowOp kVerifyDigestRows{"sm2-verify-digest-rows", {kPublicKey, kDigest, kSignature}, 0,
                              verify_digest_rows};

const uint8_t* bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* ctx, const grpc::Status& status) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

grpc::Status invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

grpc::ServerUnaryReactor* unauthenticated(grpc::CallbackServerContext* ctx) {
  return finish(ctx, grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                  "a bearer token this server knows is required"));
}

grpc::ServerUnaryReactor* unimplemented(grpc::CallbackServerContext* ctx, const char* what) {
  return finish(ctx, grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                  std::string(what) + " is served by `kuaisuo serve`; "
                                  "kuaisuo-grpcd serves the rows form of SM2 on digests"));
}

// JSON string contents: the peer text comes from the transport.
std::string json_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

size_t count_ok(const int32_t* statuses, size_t count) {
  return static_cast<size_t>(std::count(statuses, statuses + count, KS_OK));
}

}  // namespace

void AuditLog::sign(const std::string& client_digest, const std::string& peer,
                    const std::string& key_id, size_t items, size_t ok) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  char line[1024];
  std::snprintf(line, sizeof line,
                "{\"time\": %lld.%03ld, \"event\": \"sign\", \"pid\": %d, \"client\": \"%.16s\", "
                "\"peer\": \"%s\", \"key_id\": \"%s\", \"algorithm\": \"sm2\", \"digests\": true, "
                "\"items\": %zu, \"ok\": %zu}\n",
                static_cast<long long>(now.tv_sec), now.tv_nsec / 1000000, int(getpid()),
                client_digest.c_str(), json_escaped(peer.substr(0, 256)).c_str(),
                key_id.c_str(), items, ok);
  std::lock_guard<std::mutex> lock(mu_);
  std::fputs(line, out_);
  std::fflush(out_);
}

std::string_view SignerService::token(grpc::CallbackServerContext* ctx) const {
  const auto& md = ctx->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return {};
  return bearer_token(std::string_view(it->second.data(), it->second.size()));
}

grpc::Status SignerService::admit(size_t rows, uint32_t timeout_ms,
                                  Clock::time_point* deadline) const {
  if (rows > limits_.max_items) {
    return invalid(std::to_string(rows) + " items; a request carries at most " +
                   std::to_string(limits_.max_items));
  }
  const auto timeout = timeout_ms ? std::min(std::chrono::milliseconds(timeout_ms),
                                             limits_.max_timeout)
                                  : limits_.max_timeout;
  *deadline = Clock::now() + timeout;
  return grpc::Status::OK;
}

void SignerService::submit(std::shared_ptr<RowRequest> req) {
  RowRequest* r = req.get();
  const int rc = batcher_->submit(req);  // a copy: req stays alive if refused
  if (rc != KS_OK) {  // overloaded or shutting down: every row says so
    std::fill(r->statuses, r->statuses + r->count, rc);
    if (r->values != nullptr) std::memset(r->values, 0, r->count * r->op->out_width);
    r->done();
  }
}

grpc::ServerUnaryReactor* SignerService::Sign(grpc::CallbackServerContext* ctx,
                                              const v1::SignRequest* req, v1::Reply* reply) {
  const std::string_view client = token(ctx);
  std::string digest = client.empty() ? std::string() : Access::token_digest(client);
  const std::vector<std::string>* grant = digest.empty() ? nullptr : access_->grant(digest);
  if (grant == nullptr) return unauthenticated(ctx);
  Sm2Key key = keys_->get(req->key_id());
  if (key == nullptr || !Access::permits(*grant, req->key_id())) {
    // One answer for "no such key" and "not yours": ids are not probed.
    return finish(ctx, grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                    "key id '" + req->key_id().substr(0, 128) +
                                        "' is not available to this client"));
  }
  if (req->digest_rows().empty() && req->items_size() > 0) {
    return unimplemented(ctx, "signing a list of items");
  }
  if (req->digest_rows().size() % kDigest != 0) {
    return finish(ctx, invalid("digest_rows: a multiple of 32 bytes (SM2 digests e)"));
  }
  auto rows = std::make_shared<RowRequest>();
  rows->count = req->digest_rows().size() / kDigest;
  if (grpc::Status s = admit(rows->count, req->timeout_ms(), &rows->deadline); !s.ok()) {
    return finish(ctx, s);
  }
  reply->mutable_statuses()->resize(rows->count * sizeof(int32_t));
  reply->mutable_value_rows()->resize(rows->count * kSignature);
  rows->op = &kSignDigestRows;
  rows->key = std::shared_ptr<const void>(key, key.get());
  rows->columns = {bytes(req->digest_rows())};
  rows->statuses = reinterpret_cast<int32_t*>(reply->mutable_statuses()->data());
  rows->values = reinterpret_cast<uint8_t*>(reply->mutable_value_rows()->data());
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  rows->done = [this, reactor, ctx, reply, id = req->key_id(),
                client = std::move(digest), count = rows->count] {
    audit_->sign(client, ctx->peer(), id, count,
                 count_ok(reinterpret_cast<const int32_t*>(reply->statuses().data()), count));
    reactor->Finish(grpc::Status::OK);
  };
  submit(std::move(rows));
  return reactor;
}

grpc::ServerUnaryReactor* SignerService::Verify(grpc::CallbackServerContext* ctx,
                                                const v1::VerifyRequest* req, v1::Reply* reply) {
  const std::string_view client = token(ctx);
  if (client.empty() || access_->grant(Access::token_digest(client)) == nullptr) {
    return unauthenticated(ctx);
  }
  const std::string &keys = req->public_key_rows(), &digests = req->digest_rows(),
                    &sigs = req->signature_rows();
  if (keys.empty() && digests.empty() && sigs.empty() && req->items_size() > 0) {
    return unimplemented(ctx, "verifying a list of items");
  }
  const size_t count = digests.size() / kDigest;
  if (digests.size() % kDigest != 0 || sigs.size() != count * kSignature ||
      !(keys.size() == count * kPublicKey || (keys.size() == kPublicKey && count > 0))) {
    return finish(ctx, invalid("rows: count * 65 bytes of public keys (or one key for every "
                               "row), count * 32 of digests, count * 64 of signatures"));
  }
  auto rows = std::make_shared<RowRequest>();
  rows->count = count;
  if (grpc::Status s = admit(count, req->timeout_ms(), &rows->deadline); !s.ok()) {
    return finish(ctx, s);
  }
  // One key for every row: the batch call takes a key per row.
  std::shared_ptr<std::string> spread;
  if (keys.size() != count * kPublicKey) {
    spread = std::make_shared<std::string>();
    spread->reserve(count * kPublicKey);
    for (size_t i = 0; i < count; ++i) spread->append(keys);
  }
  reply->mutable_statuses()->resize(count * sizeof(int32_t));
  rows->op = &kVerifyDigestRows;
  rows->columns = {bytes(spread ? *spread : keys), bytes(digests), bytes(sigs)};
  rows->statuses = reinterpret_cast<int32_t*>(reply->mutable_statuses()->data());
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  rows->done = [reactor, spread] { reactor->Finish(grpc::Status::OK); };
  submit(std::move(rows));
  return reactor;
}

grpc::ServerUnaryReactor* SignerService::Hash(grpc::CallbackServerContext* ctx,
                                              const v1::HashRequest*, v1::Reply*) {
  return unimplemented(ctx, "Hash");
}

grpc::ServerUnaryReactor* SignerService::Encrypt(grpc::CallbackServerContext* ctx,
                                                 const v1::CipherRequest*, v1::Reply*) {
  return unimplemented(ctx, "Encrypt");
}

grpc::ServerUnaryReactor* SignerService::Decrypt(grpc::CallbackServerContext* ctx,
                                                 const v1::CipherRequest*, v1::Reply*) {
  return unimplemented(ctx, "Decrypt");
}

}  // namespace kuaisuo::serve
