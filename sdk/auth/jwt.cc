#include "sdk/auth/jwt.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "absl/strings/escaping.h"

namespace trainpkg::sdk::auth {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

std::string Base64UrlEncode(std::string_view data) {
  std::string out;
  // JWS (RFC 7515) wants base64url without padding, which this writes.
  absl::WebSafeBase64Escape(absl::string_view(data.data(), data.size()), &out);
  return out;
}

absl::StatusOr<std::string> MakeRs256Jwt(const nlohmann::json& header,
                                         const nlohmann::json& payload,
                                         std::string_view private_key_pem) {
  std::unique_ptr<BIO, BioFree> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())));
  if (bio == nullptr) return absl::ResourceExhaustedError("allocating an OpenSSL BIO");
  std::unique_ptr<EVP_PKEY, PkeyFree> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return absl::InvalidArgumentError(
        "private_key: not a PEM private key (expected \"-----BEGIN PRIVATE KEY-----\")");
  }
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return absl::InvalidArgumentError("private_key: not an RSA key; RS256 needs one");
  }
  std::string signing_input =
      Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(payload.dump());
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  size_t size = 0;
  // The first EVP_DigestSign, with no buffer, reports the signature's size.
  if (ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return absl::InternalError("RS256: OpenSSL could not start the signature");
  }
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return absl::InternalError("RS256: OpenSSL could not sign");
  }
  signature.resize(size);
  return signing_input + "." + Base64UrlEncode(signature);
}

}  // namespace trainpkg::sdk::auth
