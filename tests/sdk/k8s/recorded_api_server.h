// A stand-in Kubernetes API server for the client tests: HTTPS on 127.0.0.1
// with a free port (cpp-httplib), a test CA it creates with the openssl tool
// (server certificate for IP 127.0.0.1, a client certificate for "alice"),
// optionally requiring client certificates, answering a script of recorded
// exchanges in order (testdata/api_exchanges.json): each names the request
// it expects (method, path, query parameters, headers, fields the JSON body
// must hold) and the reply. A request that does not match the next exchange
// is answered 500 and recorded as a mismatch.
#ifndef TRAINPKG_TESTS_SDK_K8S_RECORDED_API_SERVER_H_
#define TRAINPKG_TESTS_SDK_K8S_RECORDED_API_SERVER_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::k8s::testing {

struct RecordedApiServerOptions {
  std::filesystem::path dir{};  // where the CA and certificates are written
  nlohmann::json exchanges{};   // the array of {"request": ..., "response": ...}
  bool require_client_certificate = false;
};

class RecordedApiServer {
 public:
  RecordedApiServer();
  ~RecordedApiServer();  // Stop()
  RecordedApiServer(const RecordedApiServer&) = delete;
  RecordedApiServer& operator=(const RecordedApiServer&) = delete;

  absl::Status Start(const RecordedApiServerOptions& options);
  void Stop();

  std::string server() const;  // "https://127.0.0.1:<port>"
  std::filesystem::path ca_crt() const;
  std::filesystem::path client_crt() const;
  std::filesystem::path client_key() const;

  // How many exchanges were answered as recorded, and what did not match.
  size_t answered() const;
  std::vector<std::string> mismatches() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainpkg::sdk::k8s::testing

#endif  // TRAINPKG_TESTS_SDK_K8S_RECORDED_API_SERVER_H_
