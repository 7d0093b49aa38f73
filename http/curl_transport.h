// The libcurl HttpTransport: connection reuse across requests and threads,
// HTTP/2 when the server offers it over TLS, certificates verified against the
// system CAs plus a per-registry CA file like docker's certs.d.
#ifndef TRAINPKG_HTTP_CURL_TRANSPORT_H_
#define TRAINPKG_HTTP_CURL_TRANSPORT_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "http/http_transport.h"

namespace trainpkg::http {

struct CurlTransportOptions {
  // `<certs_dir>/<host[:port]>/ca.crt`, when present, is trusted for that
  // host in addition to the system CAs (docker's layout). Empty: none.
  std::filesystem::path certs_dir = "/etc/docker/certs.d";
  // Hosts ("host[:port]") whose certificates are not verified: docker's
  // insecure-registries. Empty by default.
  std::vector<std::string> insecure_registries;
  absl::Duration connect_timeout = absl::Seconds(30);
  // A transfer moving no bytes for this long fails with kTimeout.
  absl::Duration stall_timeout = absl::Seconds(60);
  std::string user_agent = "trainpkg/0.1";
  // PEM texts for clusters that name their own trust and identity (a
  // kubeconfig's certificate-authority-data, client-certificate-data,
  // client-key-data). When ca_pem is set it is the only trust root for every
  // host this transport reaches; the client pair, when set, is presented to
  // every server that asks.
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
};

// Failures: kConnect/kReset → Unavailable, kTimeout → DeadlineExceeded,
// kTlsHandshake/kTlsVerify → FailedPrecondition (naming the CA file that
// would be read), kAborted → the source's or sink's Status. Thread-safe.
std::unique_ptr<HttpTransport> MakeCurlTransport(CurlTransportOptions options);

}  // namespace trainpkg::http

#endif  // TRAINPKG_HTTP_CURL_TRANSPORT_H_
