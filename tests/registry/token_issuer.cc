#include "tests/registry/token_issuer.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <chrono>
#include <ctime>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/registry/run_tool.h"

namespace trainpkg::registry::testing {
namespace {

std::string Base64Url(std::string_view bytes) {
  return absl::WebSafeBase64Escape(std::string(bytes));
}

// "repository:team/app:pull,push" → {type, name, actions}.
nlohmann::json AccessFor(const std::string& scope) {
  size_t first = scope.find(':');
  size_t last = scope.rfind(':');
  if (first == std::string::npos || last == first) return nullptr;
  std::vector<std::string> actions = absl::StrSplit(scope.substr(last + 1), ',');
  return {{"type", scope.substr(0, first)},
          {"name", scope.substr(first + 1, last - first - 1)},
          {"actions", actions}};
}

void Refuse(httplib::Response& res, int status, const std::string& code,
            const std::string& message) {
  res.status = status;
  nlohmann::json body = {{"errors", {{{"code", code}, {"message", message}}}}};
  res.set_content(body.dump(), "application/json");
}

}  // namespace

struct TokenIssuer::Impl {
  TokenIssuerOptions options;
  std::filesystem::path dir;
  std::string x5c;  // base64 DER of the signing certificate
  EVP_PKEY* key = nullptr;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mu;
  std::vector<std::string> scopes;

  ~Impl() { EVP_PKEY_free(key); }

  std::string Sign(std::string_view input) {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t len = 0;
    std::string sig;
    if (EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
        EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()),
                       input.size()) == 1) {
      sig.resize(len);
      EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(input.data()), input.size());
      sig.resize(len);
    }
    EVP_MD_CTX_free(ctx);
    return sig;
  }

  // A signed JWT granting `wanted` (all of it for the user, nothing for
  // anonymous), expired when `expired`.
  std::string Token(const std::string& subject, const std::vector<std::string>& wanted, int serial,
                    bool expired) {
    int64_t now = static_cast<int64_t>(std::time(nullptr));
    if (expired) now -= 900;  // far past the registry's 60 s leeway
    nlohmann::json access = nlohmann::json::array();
    if (!subject.empty()) {
      for (const std::string& scope : wanted) {
        nlohmann::json a = AccessFor(scope);
        if (!a.is_null()) access.push_back(a);
      }
    }
    nlohmann::json header = {{"typ", "JWT"}, {"alg", "RS256"}, {"x5c", {x5c}}};
    nlohmann::json claims = {{"iss", kIssuer},
                             {"sub", subject},
                             {"aud", kService},
                             {"exp", now + options.expires_in},
                             {"nbf", now - 10},
                             {"iat", now},
                             {"jti", fmt::format("{}-{}", now, serial)},
                             {"access", access}};
    std::string input = Base64Url(header.dump()) + "." + Base64Url(claims.dump());
    return input + "." + Base64Url(Sign(input));
  }

  void Answer(TokenIssuer& self, httplib::Response& res, const std::string& subject,
              const std::vector<std::string>& wanted, bool offline) {
    {
      std::lock_guard<std::mutex> lock(mu);
      scopes.insert(scopes.end(), wanted.begin(), wanted.end());
    }
    int n = self.issued++;
    std::string token = Token(subject, wanted, n, n < options.expired_tokens);
    nlohmann::json body = {
        {"token", token}, {"access_token", token}, {"expires_in", options.expires_in}};
    if (offline && !subject.empty()) body["refresh_token"] = options.refresh_token;
    res.set_content(body.dump(), "application/json");
  }

  // Every "scope" value of `params`, each split at spaces.
  static std::vector<std::string> ScopesOf(const httplib::Params& params) {
    std::vector<std::string> out;
    auto [begin, end] = params.equal_range("scope");
    for (auto it = begin; it != end; ++it) {
      for (absl::string_view s : absl::StrSplit(it->second, ' ')) {
        if (!s.empty()) out.emplace_back(s);
      }
    }
    return out;
  }

  static std::string Value(const httplib::Params& params, const std::string& name) {
    auto it = params.find(name);
    return it == params.end() ? "" : it->second;
  }

  void Get(TokenIssuer& self, const httplib::Request& req, httplib::Response& res) {
    ++self.gets;
    if (req.get_param_value("service") != kService) {
      return Refuse(res, 400, "UNSUPPORTED", "unknown service");
    }
    std::string subject;
    std::string authorization = req.get_header_value("Authorization");
    if (!authorization.empty()) {
      std::string decoded;
      if (!authorization.starts_with("Basic ") ||
          !absl::Base64Unescape(authorization.substr(6), &decoded) ||
          decoded != options.username + ":" + options.password) {
        ++self.refused;
        return Refuse(res, 401, "UNAUTHORIZED", "invalid username or password");
      }
      subject = options.username;
    }
    Answer(self, res, subject, ScopesOf(req.params),
           req.get_param_value("offline_token") == "true");
  }

  void Post(TokenIssuer& self, const httplib::Request& req, httplib::Response& res) {
    ++self.posts;
    if (!options.oauth_post) return Refuse(res, 404, "NOT_FOUND", "no OAuth2 endpoint");
    httplib::Params form;
    httplib::detail::parse_query_text(req.body, form);
    if (Value(form, "service") != kService || Value(form, "client_id").empty()) {
      return Refuse(res, 400, "invalid_request", "service and client_id are required");
    }
    std::string grant = Value(form, "grant_type");
    bool ok = false;
    if (grant == "password") {
      ok = Value(form, "username") == options.username &&
           Value(form, "password") == options.password;
    } else if (grant == "refresh_token") {
      ok = Value(form, "refresh_token") == options.refresh_token;
    } else {
      return Refuse(res, 400, "unsupported_grant_type", "grant_type " + grant);
    }
    if (!ok) {
      ++self.refused;
      return Refuse(res, 401, "invalid_grant", "invalid credentials");
    }
    Answer(self, res, options.username, ScopesOf(form),
           grant == "password" && Value(form, "access_type") == "offline");
  }
};

TokenIssuer::TokenIssuer() : impl_(std::make_unique<Impl>()) {}
TokenIssuer::~TokenIssuer() { Stop(); }

absl::Status TokenIssuer::Start(const std::filesystem::path& dir,
                                const TokenIssuerOptions& options) {
  impl_->options = options;
  impl_->dir = dir;
  std::filesystem::create_directories(dir);
  std::string ca_key = (dir / "ca.key").string(), ca_crt = (dir / "ca.crt").string();
  std::string key = (dir / "signer.key").string(), csr = (dir / "signer.csr").string(),
              crt = (dir / "signer.crt").string();
  TP_RETURN_IF_ERROR(
      RunTool({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout",
               ca_key, "-out", ca_crt, "-subj", "/CN=trainpkg test token CA"})
          .status());
  TP_RETURN_IF_ERROR(RunTool({"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                              "-out", csr, "-subj", "/CN=trainpkg test token signer"})
                         .status());
  TP_RETURN_IF_ERROR(RunTool({"openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey",
                              ca_key, "-CAcreateserial", "-days", "2", "-out", crt})
                         .status());
  TP_ASSIGN_OR_RETURN(std::string der, RunTool({"openssl", "x509", "-in", crt, "-outform", "DER"}));
  impl_->x5c = absl::Base64Escape(der);
  TP_ASSIGN_OR_RETURN(std::string pem, base::ReadFile(key));
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  impl_->key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (impl_->key == nullptr) return absl::InternalError("reading the token signing key " + key);

  impl_->server.Get("/token", [this](const httplib::Request& req, httplib::Response& res) {
    impl_->Get(*this, req, res);
  });
  impl_->server.Post("/token", [this](const httplib::Request& req, httplib::Response& res) {
    impl_->Post(*this, req, res);
  });
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  if (impl_->port <= 0) return absl::InternalError("token issuer: cannot bind 127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  while (!impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return absl::OkStatus();
}

void TokenIssuer::Stop() {
  if (impl_->thread.joinable()) {
    impl_->server.stop();
    impl_->thread.join();
  }
}

RegistryTokenAuth TokenIssuer::RegistryAuth() const {
  return RegistryTokenAuth{fmt::format("http://127.0.0.1:{}/token", impl_->port), kService, kIssuer,
                           impl_->dir / "ca.crt"};
}

std::vector<std::string> TokenIssuer::Scopes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->scopes;
}

}  // namespace trainpkg::registry::testing
