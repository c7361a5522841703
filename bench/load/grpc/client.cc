#include "client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>

namespace kuaisuo::load {
namespace {

// Slack between the end of a rate's setup and its first scheduled send.
constexpr auto kLead = std::chrono::milliseconds(50);
// How long the channels get to connect before the address counts as unusable.
constexpr auto kConnectLimit = std::chrono::seconds(10);

const char* code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    default: return "CODE_OTHER";
  }
}

void count_status(int32_t status, Tally* tally) {
  if (status == 0) {
    ++tally->items_ok;
  } else {
    ++tally->item_errors[status];
  }
}

// The reply's item statuses: rows of int32s, or a status per result.
void count_statuses(const pb::Reply& reply, bool rows, Tally* tally) {
  if (rows) {
    const std::string& statuses = reply.statuses();
    for (size_t i = 0; i + 4 <= statuses.size(); i += 4) {
      count_status(load_le32(&statuses[i]), tally);
    }
  } else {
    for (const pb::ItemResult& result : reply.results()) count_status(result.status(), tally);
  }
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& address,
                                            const std::shared_ptr<grpc::ChannelCredentials>& creds,
                                            int index) {
  grpc::ChannelArguments args;
  // Distinct arguments and a channel-local subchannel pool: otherwise
  // gRPC folds channels to one address onto one TCP connection.
  args.SetInt("kuaisuo.channel", index);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  // A sign-rows reply of 65536 items is 4.5 MB, over the 4 MB default.
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return grpc::CreateCustomChannel(address, creds, args);
}

}  // namespace

struct Call {
  RateRun* run = nullptr;
  Clock::time_point scheduled;
  size_t request = 0;
  grpc::ClientContext context;
  pb::Reply reply;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<pb::Reply>> rpc;
};

Client::Client(const Options& options, const std::string& token,
               const std::shared_ptr<grpc::ChannelCredentials>& creds,
               std::vector<std::string> requests)
    : options_(options),
      method_(std::string("/") + pb::Signer::service_full_name() +
              (options.sign() ? "/Sign" : "/Verify")),
      bearer_("Bearer " + token),
      timeout_(std::chrono::milliseconds(options.timeout_ms)),
      requests_(std::move(requests)) {
  for (uint64_t i = 0; i < options.channels; ++i) {
    channels_.push_back(make_channel(options.address, creds, static_cast<int>(i)));
    stubs_.push_back(std::make_unique<Stub>(channels_.back()));
  }
  // Static slices: each send takes a reference to these bytes, no copy.
  for (const std::string& request : requests_) {
    grpc::Slice slice(request.data(), request.size(), grpc::Slice::STATIC_SLICE);
    buffers_.emplace_back(&slice, 1);
  }
  for (uint64_t i = 0; i < options.threads; ++i) {
    queues_.push_back(std::make_unique<grpc::CompletionQueue>());
  }
  for (size_t i = 0; i < queues_.size(); ++i) pollers_.emplace_back([this, i] { poll(i); });
}

Client::~Client() {
  for (auto& queue : queues_) queue->Shutdown();
  for (auto& poller : pollers_) poller.join();
}

bool Client::connect() {
  const auto deadline = std::chrono::system_clock::now() + kConnectLimit;
  for (size_t i = 0; i < channels_.size(); ++i) {
    if (!channels_[i]->WaitForConnected(deadline)) {
      fprintf(stderr, "%s: cannot connect to %s (channel %zu of %zu) within %lld s\n", kTool,
              options_.address.c_str(), i + 1, channels_.size(),
              static_cast<long long>(kConnectLimit.count()));
      return false;
    }
  }
  return true;
}

void Client::run(RateRun* run, const std::vector<double>& offsets) {
  run->lags.reserve(offsets.size());
  run->start = Clock::now() + kLead;
  for (double offset : offsets) {
    const Clock::time_point scheduled =
        run->start + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(offset));
    sleep_until(scheduled);
    run->lags.push_back(std::max(0.0, seconds_between(scheduled, Clock::now())));
    launch(run, scheduled);
  }
  run->release();
  run->wait();
  run->end = Clock::now();
}

void Client::launch(RateRun* run, Clock::time_point scheduled) {
  auto call = std::make_unique<Call>();
  call->run = run;
  call->scheduled = scheduled;
  call->request = next_request_++ % buffers_.size();
  // gRPC takes system_clock deadlines: translate "scheduled + timeout".
  call->context.set_deadline(std::chrono::system_clock::now() +
                             (scheduled + timeout_ - Clock::now()));
  call->context.AddMetadata("authorization", bearer_);
  const uint64_t n = next_call_++;
  grpc::CompletionQueue* queue = queues_[n % queues_.size()].get();
  call->rpc = stubs_[n % stubs_.size()]->PrepareUnaryCall(&call->context, method_,
                                                           buffers_[call->request], queue);
  ++run->sent;
  if (!call->rpc) {  // not registered: no completion will come
    ++run->not_started;
    return;
  }
  run->outstanding.fetch_add(1, std::memory_order_relaxed);
  Call* raw = call.release();  // the poller deletes it
  raw->rpc->StartCall();
  raw->rpc->Finish(&raw->reply, &raw->status, raw);
}

void Client::poll(size_t index) {
  void* tag = nullptr;
  bool ok = false;
  while (queues_[index]->Next(&tag, &ok)) {
    const Clock::time_point now = Clock::now();  // first: the reply time
    auto* call = static_cast<Call*>(tag);
    RateRun* run = call->run;
    complete(&run->tallies[index], call, now);
    delete call;
    run->release();
  }
}

void Client::complete(Tally* tally, Call* call, Clock::time_point now) {
  const grpc::Status& status = call->status;
  if (!status.ok()) {
    fail(tally, status);
    return;
  }
  const pb::Reply& reply = call->reply;
  const bool rows = options_.rows();
  const size_t answered = rows ? reply.statuses().size() : reply.results_size() * size_t{4};
  if (answered != options_.items * 4) {
    ++tally->transport["bad reply"];
    return;
  }
  ++tally->ok;
  tally->latencies.push_back(seconds_between(call->scheduled, now));
  tally->last_ok = std::max(tally->last_ok, now);
  count_statuses(reply, rows, tally);
  RateRun* run = call->run;
  if (run->want_sample && !run->sample_claimed.exchange(true, std::memory_order_relaxed)) {
    run->sample.taken = true;
    run->sample.request = call->request;
    run->sample.statuses = reply.statuses();
    run->sample.value_rows = reply.value_rows();
  }
}

void Client::fail(Tally* tally, const grpc::Status& status) {
  const std::string name = code_name(status.error_code());
  switch (status.error_code()) {
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      ++tally->timeouts;
      return;
    case grpc::StatusCode::UNAVAILABLE:
      ++tally->transport[name];
      break;
    default:
      ++tally->refused[name];
      break;
  }
  tally->messages.emplace(name, status.error_message());
}

bool channel_credentials(const Options& o, std::shared_ptr<grpc::ChannelCredentials>* out) {
  if (o.cacert.empty()) {
    *out = grpc::InsecureChannelCredentials();
    return true;
  }
  grpc::SslCredentialsOptions ssl;
  if (!read_file(o.cacert, &ssl.pem_root_certs)) {
    fprintf(stderr, "%s: --cacert %s: %s\n", kTool, o.cacert.c_str(), strerror(errno));
    return false;
  }
  *out = grpc::SslCredentials(ssl);
  return true;
}

}  // namespace kuaisuo::load
