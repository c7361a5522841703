// The gRPC client: channels, completion queues and their polling threads;
// it launches a rate's requests at their scheduled times and tallies the
// replies.
#ifndef KUAISUO_BENCH_LOAD_GRPC_CLIENT_H_
#define KUAISUO_BENCH_LOAD_GRPC_CLIENT_H_

#include <stddef.h>
#include <stdint.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "flags.h"
#include "kuaisuo_serve.grpc.pb.h"
#include "rate_run.h"
#include "util.h"

namespace kuaisuo::load {

namespace pb = ::kuaisuo::serve::v1;
// Requests leave as prebuilt bytes; replies arrive parsed.
using Stub = grpc::TemplatedGenericStub<grpc::ByteBuffer, pb::Reply>;

struct Call;  // one request in flight (client.cc)

class Client {
 public:
  Client(const Options& options, const std::string& token,
         const std::shared_ptr<grpc::ChannelCredentials>& creds,
         std::vector<std::string> requests);
  ~Client();

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Connects every channel up front, so that a rate's first requests do
  // not pay for the handshakes; false (with a message) if one cannot.
  bool connect();

  // Issues one request at start + each offset, never waiting for replies,
  // then waits for every reply (or deadline).
  void run(RateRun* run, const std::vector<double>& offsets);

 private:
  void launch(RateRun* run, Clock::time_point scheduled);
  void poll(size_t index);
  void complete(Tally* tally, Call* call, Clock::time_point now);
  static void fail(Tally* tally, const grpc::Status& status);

  const Options& options_;
  const std::string method_;
  const std::string bearer_;
  const std::chrono::milliseconds timeout_;
  const std::vector<std::string> requests_;  // serialized; buffers_ point into them
  std::vector<grpc::ByteBuffer> buffers_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<Stub>> stubs_;
  std::vector<std::unique_ptr<grpc::CompletionQueue>> queues_;
  std::vector<std::thread> pollers_;
  uint64_t next_call_ = 0;     // the sender's: round robin over channels and queues
  uint64_t next_request_ = 0;  // the sender's: round robin over windows, across rates
};

// Plaintext, or TLS with --cacert's roots; false, with a message, where
// the file cannot be read.
bool channel_credentials(const Options& o, std::shared_ptr<grpc::ChannelCredentials>* out);

}  // namespace kuaisuo::load

#endif  // KUAISUO_BENCH_LOAD_GRPC_CLIENT_H_
