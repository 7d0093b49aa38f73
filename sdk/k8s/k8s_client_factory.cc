#include "sdk/k8s/k8s_client_factory.h"

#include "base/clock.h"
#include "http/curl_transport.h"
#include "http/retry_transport.h"

namespace trainpkg::sdk::k8s {
namespace {

// "host:port" of "https://host:port/path".
std::string Authority(std::string_view url) {
  if (size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    url.remove_prefix(scheme + 3);
  }
  return std::string(url.substr(0, url.find('/')));
}

}  // namespace

std::shared_ptr<http::HttpTransport> MakeClusterTransport(const ClusterAccess& access) {
  http::CurlTransportOptions options;
  options.certs_dir.clear();
  options.ca_pem = access.ca_pem;
  options.client_cert_pem = access.client_cert_pem;
  options.client_key_pem = access.client_key_pem;
  // Unverified TLS for that one server only, as the kubeconfig asks.
  if (access.insecure_skip_tls_verify) options.insecure_registries = {Authority(access.server)};
  std::shared_ptr<http::HttpTransport> curl = http::MakeCurlTransport(std::move(options));
  return std::make_shared<http::RetryTransport>(std::move(curl), http::RetryPolicy{},
                                                base::RealClock());
}

std::shared_ptr<K8sClient> MakeK8sClient(const ClusterAccess& access,
                                         std::shared_ptr<http::HttpTransport> transport) {
  if (transport == nullptr) transport = MakeClusterTransport(access);
  return std::make_shared<K8sClient>(K8sClientOptions{
      .server = access.server, .transport = std::move(transport), .token = access.token});
}

}  // namespace trainpkg::sdk::k8s
