#include "tests/sdk/k8s/recorded_api_server.h"

#include <openssl/ssl.h>

#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "httplib.h"
#include "tests/registry/run_tool.h"

namespace trainpkg::sdk::k8s::testing {
namespace {

using nlohmann::json;
using registry::testing::RunTool;

// A key and a certificate signed by the CA in `dir`, with `extensions`
// (openssl x509 -extfile syntax) when not empty.
absl::Status MakeSigned(const std::filesystem::path& dir, const std::string& name,
                        const std::string& subject, const std::string& extensions) {
  const std::string key = (dir / (name + ".key")).string(), csr = (dir / (name + ".csr")).string(),
                    crt = (dir / (name + ".crt")).string(), ext = (dir / (name + ".ext")).string();
  TP_RETURN_IF_ERROR(RunTool({"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                              "-out", csr, "-subj", subject})
                         .status());
  std::vector<std::string> sign = {"openssl",
                                   "x509",
                                   "-req",
                                   "-in",
                                   csr,
                                   "-CA",
                                   (dir / "ca.crt").string(),
                                   "-CAkey",
                                   (dir / "ca.key").string(),
                                   "-CAcreateserial",
                                   "-days",
                                   "2",
                                   "-out",
                                   crt};
  if (!extensions.empty()) {
    FILE* f = std::fopen(ext.c_str(), "w");
    if (f == nullptr) return absl::InternalError("writing " + ext);
    std::fputs(extensions.c_str(), f);
    std::fclose(f);
    sign.insert(sign.end(), {"-extfile", ext});
  }
  return RunTool(sign).status();
}

}  // namespace

struct RecordedApiServer::Impl {
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
  int port = 0;
  std::filesystem::path dir;
  json exchanges;
  mutable std::mutex mu;
  size_t next = 0;                      // guarded by mu
  std::vector<std::string> mismatches;  // guarded by mu

  // Why `req` is not what `want` describes; "" when it is.
  static std::string Mismatch(const httplib::Request& req, const json& want) {
    if (req.method != want.value("method", "")) {
      return absl::StrCat("method ", req.method, ", want ", want.value("method", ""));
    }
    if (req.path != want.value("path", "")) {
      return absl::StrCat("path ", req.path, ", want ", want.value("path", ""));
    }
    const json query = want.value("query", json::object());
    for (const auto& [name, value] : query.items()) {
      if (req.get_param_value(name.c_str()) != value.get<std::string>()) {
        return absl::StrCat("query ", name, "=", req.get_param_value(name.c_str()), ", want ",
                            value.get<std::string>());
      }
    }
    const json headers = want.value("headers", json::object());
    for (const auto& [name, value] : headers.items()) {
      if (req.get_header_value(name.c_str()) != value.get<std::string>()) {
        return absl::StrCat("header ", name, ": \"", req.get_header_value(name.c_str()),
                            "\", want \"", value.get<std::string>(), "\"");
      }
    }
    if (want.contains("body")) {
      json body = json::parse(req.body, nullptr, false);
      json patched = body.is_object() ? body : json::object();
      patched.merge_patch(want["body"]);
      if (body != patched) return absl::StrCat("body lacks ", want["body"].dump());
    }
    return "";
  }

  void Handle(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    if (next >= exchanges.size()) {
      mismatches.push_back(absl::StrCat("unexpected ", req.method, " ", req.path));
      res.status = 500;
      return;
    }
    const json& exchange = exchanges[next];
    if (std::string why = Mismatch(req, exchange["request"]); !why.empty()) {
      mismatches.push_back(absl::StrCat("exchange ", next, ": ", why));
      res.status = 500;
      return;
    }
    ++next;
    const json& reply = exchange["response"];
    res.status = reply.value("status", 200);
    const json& body = reply["body"];
    if (body.is_string()) {
      res.set_content(body.get<std::string>(), "text/plain");
    } else {
      res.set_content(body.dump(), "application/json");
    }
  }
};

RecordedApiServer::RecordedApiServer() : impl_(std::make_unique<Impl>()) {}
RecordedApiServer::~RecordedApiServer() { Stop(); }

absl::Status RecordedApiServer::Start(const RecordedApiServerOptions& options) {
  impl_->dir = options.dir;
  impl_->exchanges = options.exchanges;
  std::filesystem::create_directories(options.dir);
  const std::filesystem::path& dir = options.dir;
  TP_RETURN_IF_ERROR(RunTool({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                              "2", "-keyout", (dir / "ca.key").string(), "-out",
                              (dir / "ca.crt").string(), "-subj", "/CN=trainpkg test cluster CA"})
                         .status());
  TP_RETURN_IF_ERROR(
      MakeSigned(dir, "server", "/CN=kube-apiserver", "subjectAltName=IP:127.0.0.1\n"));
  TP_RETURN_IF_ERROR(
      MakeSigned(dir, "client", "/O=system:masters/CN=alice", "extendedKeyUsage=clientAuth\n"));
  const std::string ca = (dir / "ca.crt").string();
  impl_->server = std::make_unique<httplib::SSLServer>(
      (dir / "server.crt").c_str(), (dir / "server.key").c_str(),
      options.require_client_certificate ? ca.c_str() : nullptr);
  if (!impl_->server->is_valid()) return absl::InternalError("the HTTPS server did not set up TLS");
  // Without a session id context OpenSSL refuses to resume a session when it
  // verifies client certificates, and a client reconnecting fails its handshake.
  static constexpr unsigned char kSessionContext[] = "trainpkg-test-apiserver";
  SSL_CTX_set_session_id_context(impl_->server->ssl_context(), kSessionContext,
                                 sizeof(kSessionContext) - 1);
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    impl_->Handle(req, res);
  };
  impl_->server->Get(".*", handler);
  impl_->server->Post(".*", handler);
  impl_->server->Delete(".*", handler);
  impl_->port = impl_->server->bind_to_any_port("127.0.0.1");
  if (impl_->port <= 0) return absl::InternalError("binding 127.0.0.1 failed");
  impl_->thread = std::thread([this] { impl_->server->listen_after_bind(); });
  return absl::OkStatus();
}

void RecordedApiServer::Stop() {
  if (impl_->server != nullptr) impl_->server->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string RecordedApiServer::server() const {
  return absl::StrCat("https://127.0.0.1:", impl_->port);
}
std::filesystem::path RecordedApiServer::ca_crt() const { return impl_->dir / "ca.crt"; }
std::filesystem::path RecordedApiServer::client_crt() const { return impl_->dir / "client.crt"; }
std::filesystem::path RecordedApiServer::client_key() const { return impl_->dir / "client.key"; }

size_t RecordedApiServer::answered() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->next;
}

std::vector<std::string> RecordedApiServer::mismatches() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->mismatches;
}

}  // namespace trainpkg::sdk::k8s::testing
