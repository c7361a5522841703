#include "signer_service.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <string_view>

#include <grpcpp/server_builder.h>

namespace kuaisuo::serve {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Reply.statuses are little-endian int32s, written in place");

constexpr size_t kDigest = KS_SM2_DIGEST_BYTES, kSignature = KS_SM2_SIGNATURE_BYTES,
                 kPublicKey = 65;

int sign_digest_rows(ks_ctx* ctx, const void* key, const uint8_t* const* in, const uint64_t*,
                     size_t count, uint8_t* out, int* status) {
  return ks_sm2_sign_digest_batch(ctx, static_cast<const ks_sm2_key*>(key), in[0], count,
                                  KS_SM2_NONCE_RANDOM, out, count * kSignature, status);
}

int verify_digest_rows(ks_ctx* ctx, const void*, const uint8_t* const* in, const uint64_t*,
                       size_t count, uint8_t*, int* status) {
  return ks_sm2_verify_digest_batch(ctx, in[0], in[1], count, in[2], status);
}

constexpr size_t kEd25519PublicKey = KS_ED25519_PUBLIC_KEY_BYTES,
                 kEd25519Signature = KS_ED25519_SIGNATURE_BYTES;

// Ed25519 signs and verifies whole messages (RFC 8032 5.1.6: the message
// is hashed twice, with the nonce and with R), so they travel as items.
int ed25519_sign_rows(ks_ctx* ctx, const void* key, const uint8_t* const* in,
                      const uint64_t* offsets, size_t count, uint8_t* out, int* status) {
  return ks_ed25519_sign_batch(ctx, static_cast<const ks_ed25519_key*>(key), in[0],
                               offsets[count], offsets, count, out, count * kEd25519Signature,
                               status);
}

int ed25519_verify_rows(ks_ctx* ctx, const void*, const uint8_t* const* in,
                        const uint64_t* offsets, size_t count, uint8_t*, int* status) {
  return ks_ed25519_verify_batch(ctx, in[0], in[1], offsets[count], offsets, count, in[2],
                                 status);
}

const RowOp kSignDigestRows{"sm2-sign-digest-rows", {kDigest}, kSignature, sign_digest_rows};
const RowOp kVerifyDigestRows{"sm2-verify-digest-rows", {kPublicKey, kDigest, kSignature}, 0,
                              verify_digest_rows};
const RowOp kEd25519SignRows{"ed25519-sign", {RowOp::kVariable}, kEd25519Signature,
                             ed25519_sign_rows};
const RowOp kEd25519VerifyRows{"ed25519-verify",
                               {kEd25519PublicKey, RowOp::kVariable, kEd25519Signature}, 0,
                               ed25519_verify_rows};

const uint8_t* bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

grpc::Status invalid(const std::string& message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
}

grpc::Status unauthenticated() {
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "a bearer token this server knows is required");
}

grpc::Status unimplemented(const char* what) {
  return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                      std::string(what) + " is served by `kuaisuo serve`; "
                      "kuaisuo-grpcd serves SM2 and Ed25519 signatures and Hash");
}

std::string_view token(const grpc::ServerContext& ctx) {
  const auto& md = ctx.client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return {};
  return bearer_token(std::string_view(it->second.data(), it->second.size()));
}

// Rows calls each queue keeps requested, so that a burst of arrivals is
// taken without waiting for its polling thread to ask again.
constexpr unsigned kWaitingCalls = 16;

// A completion queue's tag: an event of one call.
class Event {
 public:
  virtual ~Event() = default;
  virtual void proceed(bool ok) = 0;
};

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

// Z_A of key under GB/T 32918.2's default ID (clause 5.5), as kuaisuo
// serve signs lists of messages; empty if the library cannot give it.
std::string za_of(const ks_sm2_key* key) {
  ks_sm2_pubkey* pub = nullptr;
  if (ks_sm2_key_public(key, &pub) != KS_OK) return {};
  std::string za(kDigest, '\0');
  const int rc = ks_sm2_za(pub, reinterpret_cast<const uint8_t*>(KS_SM2_DEFAULT_ID),
                           KS_SM2_DEFAULT_ID_BYTES, reinterpret_cast<uint8_t*>(za.data()));
  ks_sm2_pubkey_free(pub);
  return rc == KS_OK ? za : std::string();
}

// SM3(prefix || item) per item on ctx, a status each: Hash (no prefix) and
// the digests e of messages under one key (prefix Z_A, clause 6.1 A1-A2).
std::vector<int> sm3_each(ks_ctx* ctx, std::string_view prefix,
                          const google::protobuf::RepeatedPtrField<std::string>& items,
                          std::string* digests) {
  const size_t count = static_cast<size_t>(items.size());
  std::string data;
  std::vector<uint64_t> offsets{0};
  offsets.reserve(count + 1);
  for (const std::string& item : items) {
    data.append(prefix);
    data += item;
    offsets.push_back(data.size());
  }
  digests->assign(count * KS_SM3_DIGEST_BYTES, '\0');
  std::vector<int> status(count);
  const int rc = ks_sm3_batch(ctx, bytes(data), data.size(), offsets.data(), count,
                              reinterpret_cast<uint8_t*>(digests->data()), digests->size(),
                              status.data());
  if (rc != KS_OK && rc != KS_ERR_BATCH_ITEMS) std::fill(status.begin(), status.end(), rc);
  return status;
}

// One ItemResult per status, in order, with the library's text for a
// failed one (values are the caller's to add).
void add_results(const std::vector<int32_t>& statuses, v1::Reply* reply) {
  for (int32_t s : statuses) {
    v1::ItemResult* result = reply->add_results();
    result->set_status(s);
    if (s != KS_OK) result->set_error(ks_strerror(s));
  }
}

// e = SM3(Z_A || M) per message under GB/T 32918.2's default ID, as
// kuaisuo serve verifies lists of messages, each under its own key; keys:
// 65 bytes per message. A status per message (a bad key fails its own).
std::vector<int> digest_messages(ks_ctx* ctx, const std::string& keys,
                                 const std::vector<std::string_view>& messages,
                                 std::string* digests) {
  const size_t count = messages.size();
  std::string data, ids;
  std::vector<uint64_t> offsets{0}, id_offsets{0};
  for (std::string_view m : messages) {
    data.append(m);
    offsets.push_back(data.size());
    ids.append(KS_SM2_DEFAULT_ID, KS_SM2_DEFAULT_ID_BYTES);
    id_offsets.push_back(ids.size());
  }
  digests->assign(count * kDigest, '\0');
  std::vector<int> status(count);
  const int rc = ks_sm2_digest_batch(ctx, bytes(keys), bytes(ids), ids.size(), id_offsets.data(),
                                     bytes(data), data.size(), offsets.data(), count,
                                     reinterpret_cast<uint8_t*>(digests->data()),
                                     digests->size(), status.data());
  if (rc != KS_OK && rc != KS_ERR_BATCH_ITEMS) std::fill(status.begin(), status.end(), rc);
  return status;
}


// A list's signature as kuaisuo serve answers it: SM2's r || s as DER
// (GB/T 32918.2 / GM/T 0009's SEQUENCE of two INTEGERs), Ed25519's as made.
int sm2_der(std::string_view raw, v1::ItemResult* result) {
  uint8_t der[KS_SM2_SIGNATURE_DER_MAX_BYTES];
  size_t len = 0;
  const int rc = ks_sm2_signature_to_der(bytes(raw), der, sizeof der, &len);
  if (rc == KS_OK) result->set_value(der, len);
  return rc == KS_OK ? KS_OK : KS_ERR_INTERNAL;
}

int as_made(std::string_view raw, v1::ItemResult* result) {
  result->set_value(raw.data(), raw.size());
  return KS_OK;
}

}  // namespace

void AuditLog::sign(const std::string& client_digest, const std::string& peer,
                    const std::string& key_id, const char* algorithm, bool digests,
                    size_t items, size_t ok) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  char line[1024];
  std::snprintf(line, sizeof line,
                "{\"time\": %lld.%03ld, \"event\": \"sign\", \"pid\": %d, \"client\": \"%.16s\", "
                "\"peer\": \"%s\", \"key_id\": \"%s\", \"algorithm\": \"%s\", \"digests\": %s, "
                "\"items\": %zu, \"ok\": %zu}\n",
                static_cast<long long>(now.tv_sec), now.tv_nsec / 1000000, int(getpid()),
                client_digest.c_str(), json_escaped(peer.substr(0, 256)).c_str(),
                key_id.c_str(), algorithm, digests ? "true" : "false", items, ok);
  std::lock_guard<std::mutex> lock(mu_);
  std::fputs(line, out_);
  std::fflush(out_);
}

// A list's items on their way through the batcher as rows of op: each
// item that passed its checks is one row, the others keep the status that
// refused them.
struct SignerService::ListRows {
  ListRows(size_t items, const RowOp& op)
      : op(op), status(items, KS_OK), columns(op.in_widths.size()) {}
  void add(size_t item, std::initializer_list<std::string_view> row) {
    rows.push_back(item);
    size_t c = 0;
    for (std::string_view v : row) {
      if (op.in_widths[c] == RowOp::kVariable) offsets.push_back(offsets.back() + v.size());
      columns[c++].append(v);
    }
  }
  // After the batch: each row's status to its item.
  void settle() {
    for (size_t r = 0; r < rows.size(); ++r) status[rows[r]] = row_status[r];
  }
  const RowOp& op;
  std::vector<int32_t> status;  // per item
  std::vector<size_t> rows;     // row -> item
  std::vector<std::string> columns;
  std::vector<uint64_t> offsets{0};  // the kVariable column's, if op has one
  std::vector<int32_t> row_status;
  std::string row_values;
};

template <class Request>
struct SignerService::Method {
  using Requester = void (v1::Signer::AsyncService::*)(
      grpc::ServerContext*, Request*, grpc::ServerAsyncResponseWriter<v1::Reply>*,
      grpc::CompletionQueue*, grpc::ServerCompletionQueue*, void*);
  Requester request;
  Answer (SignerService::*handle)(Call<Request>*);
};

// One call on one queue; its tag is itself. The first event says a call
// arrived (not ok: the server stopped accepting), the second that its
// answer went out (not ok: the client had gone). Either ends it.
template <class Request>
class SignerService::Call final : public Event {
 public:
  Call(SignerService* service, Queue* queue, const Method<Request>& method)
      : service_(service), queue_(queue), method_(method) {}

  void proceed(bool ok) override {
    if (!ok || answering_) {
      delete this;
      return;
    }
    answering_ = true;
    service_->accept(queue_, method_);  // a fresh call takes this one's place
    if (Answer answer = (service_->*method_.handle)(this)) finish(*answer);
  }
  // Sends the reply (or only the status when it is not OK); any thread.
  void finish(const grpc::Status& status) { writer.Finish(reply, status, this); }

  grpc::ServerContext ctx;
  // The request and reply live on the call's arena: a list of 1,024 items
  // is some 4,000 strings and messages, each a malloc and a free otherwise,
  // often on different threads (an H200 host, 1,024-message Ed25519 lists:
  // 1.8 -> 0.9 ms of server CPU a request; docs/design/0006,
  // bench/results/h200-2026-11-29-s28-grpcd-ed25519-sign-ab-*.json).
  google::protobuf::Arena arena;
  Request& request = *google::protobuf::Arena::CreateMessage<Request>(&arena);
  v1::Reply& reply = *google::protobuf::Arena::CreateMessage<v1::Reply>(&arena);
  grpc::ServerAsyncResponseWriter<v1::Reply> writer{&ctx};

 private:
  SignerService* service_;
  Queue* queue_;
  const Method<Request>& method_;
  bool answering_ = false;  // only its queue's thread reads and writes it
};

struct SignerService::Queue {
  std::unique_ptr<grpc::ServerCompletionQueue> cq;
  std::mutex mu;  // closed, and requesting calls on cq: never after its Shutdown()
  bool closed = false;
  std::thread thread;
};

SignerService::SignerService(RowBatcher* batcher, ks_ctx* inline_ctx, const KeyStore* keys,
                             const Access* access, Limits limits, AuditLog* audit)
    : batcher_(batcher),
      inline_ctx_(inline_ctx),
      keys_(keys),
      access_(access),
      limits_(limits),
      audit_(audit) {}

SignerService::~SignerService() { stop(); }

void SignerService::add_to(grpc::ServerBuilder* builder, unsigned queues) {
  builder->RegisterService(&service_);
  for (unsigned i = 0; i < std::max(1u, queues); ++i) {
    queues_.push_back(std::make_unique<Queue>());
    queues_.back()->cq = builder->AddCompletionQueue();
  }
}

void SignerService::start() {
  using Service = v1::Signer::AsyncService;
  static const Method<v1::SignRequest> kSign{&Service::RequestSign, &SignerService::sign};
  static const Method<v1::VerifyRequest> kVerify{&Service::RequestVerify, &SignerService::verify};
  static const Method<v1::HashRequest> kHash{&Service::RequestHash, &SignerService::hash};
  static const Method<v1::CipherRequest> kEncrypt{&Service::RequestEncrypt,
                                                  &SignerService::encrypt};
  static const Method<v1::CipherRequest> kDecrypt{&Service::RequestDecrypt,
                                                  &SignerService::decrypt};
  for (auto& queue : queues_) {
    for (unsigned i = 0; i < kWaitingCalls; ++i) {
      accept(queue.get(), kSign);
      accept(queue.get(), kVerify);
    }
    accept(queue.get(), kHash);
    accept(queue.get(), kEncrypt);
    accept(queue.get(), kDecrypt);
    queue->thread = std::thread(&SignerService::poll, this, queue.get());
  }
}

void SignerService::stop() {
  for (auto& queue : queues_) {
    {
      std::lock_guard<std::mutex> lock(queue->mu);
      if (queue->closed) continue;
      queue->closed = true;
    }
    queue->cq->Shutdown();
  }
  for (auto& queue : queues_) {
    if (queue->thread.joinable()) queue->thread.join();
  }
}

template <class Request>
void SignerService::accept(Queue* queue, const Method<Request>& method) {
  std::lock_guard<std::mutex> lock(queue->mu);
  if (queue->closed) return;
  auto* call = new Call<Request>(this, queue, method);
  (service_.*method.request)(&call->ctx, &call->request, &call->writer, queue->cq.get(),
                             queue->cq.get(), call);
}

// Runs until the queue is shut down and drained: every call it holds ends.
void SignerService::poll(Queue* queue) {
  void* tag = nullptr;
  bool ok = false;
  while (queue->cq->Next(&tag, &ok)) static_cast<Event*>(tag)->proceed(ok);
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

SignerService::Answer SignerService::sign(Call<v1::SignRequest>* call) {
  const v1::SignRequest& req = call->request;
  const std::string_view client = token(call->ctx);
  std::string digest = client.empty() ? std::string() : Access::token_digest(client);
  const std::vector<std::string>* grant = digest.empty() ? nullptr : access_->grant(digest);
  if (grant == nullptr) return unauthenticated();
  SigningKey key = keys_->get(req.key_id());
  if (!key || !Access::permits(*grant, req.key_id())) {
    // One answer for "no such key" and "not yours": ids are not probed.
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "key id '" + req.key_id().substr(0, 128) +
                            "' is not available to this client");
  }
  if (key.ed25519) return sign_ed25519_items(call, std::move(key.ed25519), std::move(digest));
  if (req.digest_rows().empty() && req.items_size() > 0) {
    return sign_items(call, std::move(key.sm2), std::move(digest));
  }
  if (req.digest_rows().size() % kDigest != 0) {
    return invalid("digest_rows: a multiple of 32 bytes (SM2 digests e)");
  }
  auto rows = std::make_shared<RowRequest>();
  rows->count = req.digest_rows().size() / kDigest;
  if (grpc::Status s = admit(rows->count, req.timeout_ms(), &rows->deadline); !s.ok()) return s;
  v1::Reply& reply = call->reply;
  reply.mutable_statuses()->resize(rows->count * sizeof(int32_t));
  reply.mutable_value_rows()->resize(rows->count * kSignature);
  rows->op = &kSignDigestRows;
  rows->key = std::shared_ptr<const void>(key.sm2, key.sm2.get());
  rows->columns = {bytes(req.digest_rows())};
  rows->statuses = reinterpret_cast<int32_t*>(reply.mutable_statuses()->data());
  rows->values = reinterpret_cast<uint8_t*>(reply.mutable_value_rows()->data());
  rows->done = [this, call, client = std::move(digest), count = rows->count] {
    const auto* statuses = reinterpret_cast<const int32_t*>(call->reply.statuses().data());
    audit_->sign(client, call->ctx.peer(), call->request.key_id(), "sm2", true, count,
                 count_ok(statuses, count));
    call->finish(grpc::Status::OK);
  };
  submit(std::move(rows));
  return std::nullopt;
}

void SignerService::submit_list(std::shared_ptr<ListRows> list, std::shared_ptr<const void> key,
                                Clock::time_point deadline, std::function<void()> reply) {
  const RowOp* op = &list->op;
  auto rows = std::make_shared<RowRequest>();
  rows->op = op;
  rows->key = std::move(key);
  rows->count = list->rows.size();
  rows->deadline = deadline;
  list->row_status.resize(rows->count);
  list->row_values.resize(rows->count * op->out_width);
  for (const std::string& column : list->columns) rows->columns.push_back(bytes(column));
  rows->offsets = list->offsets.data();
  rows->statuses = list->row_status.data();
  rows->values = op->out_width ? reinterpret_cast<uint8_t*>(list->row_values.data()) : nullptr;
  rows->done = [list, reply = std::move(reply)] {
    list->settle();
    reply();
  };
  submit(std::move(rows));
}

// kuaisuo serve's list form for an SM2 key: 32-byte digests e (others get
// KS_ERR_LENGTH), or messages hashed here with Z_A; DER signatures back.
SignerService::Answer SignerService::sign_items(Call<v1::SignRequest>* call, Sm2Key key,
                                                std::string client) {
  const v1::SignRequest& req = call->request;
  const size_t count = static_cast<size_t>(req.items_size());
  Clock::time_point deadline;
  if (grpc::Status s = admit(count, req.timeout_ms(), &deadline); !s.ok()) return s;
  auto list = std::make_shared<ListRows>(count, kSignDigestRows);
  if (req.digests()) {
    for (size_t i = 0; i < count; ++i) {
      const std::string& e = req.items(static_cast<int>(i));
      if (e.size() == kDigest) {
        list->add(i, {e});
      } else {
        list->status[i] = KS_ERR_LENGTH;
      }
    }
  } else {
    const std::string za = za_of(key.get());  // once: every message is under this key
    if (za.empty()) {
      return grpc::Status(grpc::StatusCode::INTERNAL, "the key's public half is unavailable");
    }
    std::string digests;
    const std::vector<int> status = sm3_each(inline_ctx_, za, req.items(), &digests);
    for (size_t i = 0; i < count; ++i) {
      if (status[i] == KS_OK) {
        list->add(i, {std::string_view(digests).substr(i * kDigest, kDigest)});
      } else {
        list->status[i] = status[i];
      }
    }
  }
  submit_list(list, std::shared_ptr<const void>(key, key.get()), deadline,
              [this, call, list, client = std::move(client)] {
                answer_signed(call, *list, client, "sm2", sm2_der);
              });
  return std::nullopt;
}

// kuaisuo serve's list form for an Ed25519 key: messages (RFC 8032's pure
// Ed25519), 64-byte signatures back; digests are SM2's alone.
SignerService::Answer SignerService::sign_ed25519_items(Call<v1::SignRequest>* call,
                                                        Ed25519Key key, std::string client) {
  const v1::SignRequest& req = call->request;
  if (!req.digest_rows().empty()) return invalid("digest rows are signed by SM2 keys only");
  if (req.digests()) return invalid("ed25519 keys sign messages, not digests");
  const size_t count = static_cast<size_t>(req.items_size());
  Clock::time_point deadline;
  if (grpc::Status s = admit(count, req.timeout_ms(), &deadline); !s.ok()) return s;
  auto list = std::make_shared<ListRows>(count, kEd25519SignRows);
  for (size_t i = 0; i < count; ++i) list->add(i, {req.items(static_cast<int>(i))});
  submit_list(list, std::shared_ptr<const void>(key, key.get()), deadline,
              [this, call, list, client = std::move(client)] {
                answer_signed(call, *list, client, "ed25519", as_made);
              });
  return std::nullopt;
}

// After a list's rows ran: each signature into the reply as encode writes
// it, the audit line, the answer.
void SignerService::answer_signed(Call<v1::SignRequest>* call, ListRows& list,
                                  const std::string& client, const char* algorithm,
                                  EncodeSignature encode) {
  add_results(list.status, &call->reply);
  const size_t width = list.op.out_width;
  for (size_t r = 0; r < list.rows.size(); ++r) {
    v1::ItemResult* result = call->reply.mutable_results(static_cast<int>(list.rows[r]));
    if (result->status() != KS_OK) continue;
    const int rc = encode(std::string_view(list.row_values).substr(r * width, width), result);
    if (rc != KS_OK) {  // never for a signature the library made; said if it were
      list.status[list.rows[r]] = rc;
      result->set_status(rc);
      result->set_error(ks_strerror(rc));
    }
  }
  audit_->sign(client, call->ctx.peer(), call->request.key_id(), algorithm,
               call->request.digests(), list.status.size(),
               count_ok(list.status.data(), list.status.size()));
  call->finish(grpc::Status::OK);
}

// kuaisuo serve's list form of SM2 verification: (04||x||y, digest or
// message, DER signature) per item, checked in its order: the key's and
// digest's lengths (KS_ERR_LENGTH), the DER, then the key itself.
SignerService::Answer SignerService::verify_items(Call<v1::VerifyRequest>* call) {
  const v1::VerifyRequest& req = call->request;
  if (req.algorithm() == "ed25519" && !req.digests()) return verify_ed25519_items(call);
  if (req.algorithm() != "sm2") {
    return invalid("no verification for algorithm '" + req.algorithm().substr(0, 64) + "'" +
                   (req.digests() ? " on digests" : ""));
  }
  const size_t count = static_cast<size_t>(req.items_size());
  Clock::time_point deadline;
  if (grpc::Status s = admit(count, req.timeout_ms(), &deadline); !s.ok()) return s;
  auto list = std::make_shared<ListRows>(count, kVerifyDigestRows);
  std::string sigs(count * kSignature, '\0');  // r || s per item, one buffer
  auto sig = [&sigs](size_t i) {
    return std::string_view(sigs).substr(i * kSignature, kSignature);
  };
  std::string keys;
  std::vector<std::string_view> messages;
  std::vector<size_t> hashed;  // the items whose messages are hashed here
  for (size_t i = 0; i < count; ++i) {
    const v1::VerifyItem& item = req.items(static_cast<int>(i));
    const bool digest_ok = !req.digests() || item.data().size() == kDigest;
    if (item.public_key().size() != kPublicKey || !digest_ok) {
      list->status[i] = KS_ERR_LENGTH;
      continue;
    }
    const int der = ks_sm2_signature_from_der(bytes(item.signature()), item.signature().size(),
                                              reinterpret_cast<uint8_t*>(&sigs[i * kSignature]));
    if (der != KS_OK) {
      list->status[i] = der;
    } else if (req.digests()) {
      list->add(i, {item.public_key(), item.data(), sig(i)});
    } else {
      keys += item.public_key();
      messages.push_back(item.data());
      hashed.push_back(i);
    }
  }
  if (!hashed.empty()) {
    std::string digests;
    const std::vector<int> status = digest_messages(inline_ctx_, keys, messages, &digests);
    for (size_t h = 0; h < hashed.size(); ++h) {
      const size_t i = hashed[h];
      if (status[h] == KS_OK) {
        list->add(i, {std::string_view(keys).substr(h * kPublicKey, kPublicKey),
                      std::string_view(digests).substr(h * kDigest, kDigest), sig(i)});
      } else {
        list->status[i] = status[h];
      }
    }
  }
  submit_list(list, nullptr, deadline, [call, list] { answer_verified(call, *list); });
  return std::nullopt;
}

// kuaisuo serve's list form of Ed25519 verification: (32-byte key, message,
// 64-byte signature) per item, other lengths KS_ERR_LENGTH; the library
// checks the rest (include/kuaisuo.h's verification rules).
SignerService::Answer SignerService::verify_ed25519_items(Call<v1::VerifyRequest>* call) {
  const v1::VerifyRequest& req = call->request;
  const size_t count = static_cast<size_t>(req.items_size());
  Clock::time_point deadline;
  if (grpc::Status s = admit(count, req.timeout_ms(), &deadline); !s.ok()) return s;
  auto list = std::make_shared<ListRows>(count, kEd25519VerifyRows);
  for (size_t i = 0; i < count; ++i) {
    const v1::VerifyItem& item = req.items(static_cast<int>(i));
    if (item.public_key().size() != kEd25519PublicKey ||
        item.signature().size() != kEd25519Signature) {
      list->status[i] = KS_ERR_LENGTH;
    } else {
      list->add(i, {item.public_key(), item.data(), item.signature()});
    }
  }
  submit_list(list, nullptr, deadline, [call, list] { answer_verified(call, *list); });
  return std::nullopt;
}

void SignerService::answer_verified(Call<v1::VerifyRequest>* call, const ListRows& list) {
  add_results(list.status, &call->reply);
  call->finish(grpc::Status::OK);
}

bool SignerService::known_client(const grpc::ServerContext& ctx) const {
  const std::string_view client = token(ctx);
  return !client.empty() && access_->grant(Access::token_digest(client)) != nullptr;
}

SignerService::Answer SignerService::verify(Call<v1::VerifyRequest>* call) {
  if (!known_client(call->ctx)) return unauthenticated();
  const v1::VerifyRequest& req = call->request;
  const std::string &keys = req.public_key_rows(), &digests = req.digest_rows(),
                    &sigs = req.signature_rows();
  if (keys.empty() && digests.empty() && sigs.empty() && req.items_size() > 0) {
    return verify_items(call);
  }
  const size_t count = digests.size() / kDigest;
  if (digests.size() % kDigest != 0 || sigs.size() != count * kSignature ||
      !(keys.size() == count * kPublicKey || (keys.size() == kPublicKey && count > 0))) {
    return invalid("rows: count * 65 bytes of public keys (or one key for every row), "
                   "count * 32 of digests, count * 64 of signatures");
  }
  auto rows = std::make_shared<RowRequest>();
  rows->count = count;
  if (grpc::Status s = admit(count, req.timeout_ms(), &rows->deadline); !s.ok()) return s;
  // One key for every row: the batch call takes a key per row.
  std::shared_ptr<std::string> spread;
  if (keys.size() != count * kPublicKey) {
    spread = std::make_shared<std::string>();
    spread->reserve(count * kPublicKey);
    for (size_t i = 0; i < count; ++i) spread->append(keys);
  }
  call->reply.mutable_statuses()->resize(count * sizeof(int32_t));
  rows->op = &kVerifyDigestRows;
  rows->columns = {bytes(spread ? *spread : keys), bytes(digests), bytes(sigs)};
  rows->statuses = reinterpret_cast<int32_t*>(call->reply.mutable_statuses()->data());
  rows->done = [call, spread] { call->finish(grpc::Status::OK); };
  submit(std::move(rows));
  return std::nullopt;
}

// Hashed here, on the polling thread, through the one-thread CPU context:
// a short item's SM3 takes well under a microsecond and a request is
// bounded by max_items and the receive limit; batching across requests
// would pay only for a GPU's batches of many thousands of items.
SignerService::Answer SignerService::hash(Call<v1::HashRequest>* call) {
  if (!known_client(call->ctx)) return unauthenticated();
  const v1::HashRequest& req = call->request;
  if (!req.algorithm().empty() && req.algorithm() != "sm3") {
    return invalid("no hash '" + req.algorithm().substr(0, 64) + "' (sm3 is served)");
  }
  const size_t count = static_cast<size_t>(req.items_size());
  Clock::time_point deadline;
  if (grpc::Status s = admit(count, req.timeout_ms(), &deadline); !s.ok()) return s;
  if (count == 0) return grpc::Status::OK;
  std::string digests;
  const std::vector<int> statuses = sm3_each(inline_ctx_, {}, req.items(), &digests);
  add_results(statuses, &call->reply);
  for (size_t i = 0; i < count; ++i) {
    if (statuses[i] != KS_OK) continue;
    call->reply.mutable_results(static_cast<int>(i))
        ->set_value(digests.substr(i * KS_SM3_DIGEST_BYTES, KS_SM3_DIGEST_BYTES));
  }
  return grpc::Status::OK;
}

SignerService::Answer SignerService::encrypt(Call<v1::CipherRequest>*) {
  return unimplemented("Encrypt");
}

SignerService::Answer SignerService::decrypt(Call<v1::CipherRequest>*) {
  return unimplemented("Decrypt");
}

}  // namespace kuaisuo::serve
