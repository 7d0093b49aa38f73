#include "trainer_runtime/rpc_auth/job_auth.h"

#include <arpa/inet.h>

#include <utility>
#include <vector>

#include "fmt/format.h"
#include "grpcpp/support/client_interceptor.h"
#include "jobspec/job_secret.h"

namespace trainpkg::rpc_auth {
namespace {

// Equal contents, in a time that depends on the lengths only.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = diff | static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

// Adds the secret to the initial metadata of every call on the channel.
class SecretInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit SecretInterceptor(const std::string* secret) : secret_(secret) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace(kSecretMetadataKey, *secret_);
    }
    methods->Proceed();
  }

 private:
  const std::string* secret_;
};

class SecretInterceptorFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit SecretInterceptorFactory(std::string secret) : secret_(std::move(secret)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new SecretInterceptor(&secret_);
  }

 private:
  const std::string secret_;  // outlives the interceptors: the channel owns the factory
};

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  return ::inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

grpc::Status JobAuth::Check(const grpc::ServerContext& context) const {
  if (secret_.empty()) return grpc::Status::OK;
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kSecretMetadataKey);
  if (it == metadata.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        fmt::format("the call carries no job secret: every replica of this job "
                                    "must run with the job's {}",
                                    jobspec::kJobSecretEnv));
  }
  const std::string_view sent(it->second.data(), it->second.size());
  if (!ConstantTimeEquals(sent, secret_)) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        fmt::format("the call carries another job's secret: every replica of "
                                    "this job must run with the same {}",
                                    jobspec::kJobSecretEnv));
  }
  return grpc::Status::OK;
}

absl::Status JobAuth::CheckListenAddress(std::string_view address) const {
  if (!secret_.empty()) return absl::OkStatus();
  const size_t colon = address.rfind(':');
  const std::string_view host =
      colon == std::string_view::npos ? address : address.substr(0, colon);
  if (IsLoopbackHost(host)) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "refusing to serve on {} without authentication: set {} to the same random value on every "
      "replica (e.g. `openssl rand -hex 32`; trainpkg's backends set it for you), or listen on "
      "a loopback address",
      address, jobspec::kJobSecretEnv));
}

std::shared_ptr<grpc::Channel> JobAuth::Connect(const std::string& address,
                                                const grpc::ChannelArguments& args) const {
  if (secret_.empty()) {
    return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  }
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<SecretInterceptorFactory>(secret_));
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, grpc::InsecureChannelCredentials(), args, std::move(creators));
}

}  // namespace trainpkg::rpc_auth
