#include "registry/oci/digest_builder.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::oci {

struct DigestBuilder::Context {
  EVP_MD_CTX* ctx = nullptr;
  ~Context() { EVP_MD_CTX_free(ctx); }
};

namespace {

[[noreturn]] void OpenSslFailure(const char* what) {
  std::fprintf(stderr, "trainpkg: OpenSSL %s failed\n", what);
  std::abort();
}

const EVP_MD* EvpFor(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::kSha512 ? EVP_sha512() : EVP_sha256();
}

}  // namespace

DigestBuilder::DigestBuilder(DigestAlgorithm algorithm)
    : algorithm_(algorithm), context_(std::make_unique<Context>()) {
  context_->ctx = EVP_MD_CTX_new();
  if (context_->ctx == nullptr) OpenSslFailure("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(context_->ctx, EvpFor(algorithm), nullptr) != 1) {
    OpenSslFailure("EVP_DigestInit_ex");
  }
}

DigestBuilder::~DigestBuilder() = default;
DigestBuilder::DigestBuilder(DigestBuilder&&) noexcept = default;
DigestBuilder& DigestBuilder::operator=(DigestBuilder&&) noexcept = default;

void DigestBuilder::Update(std::string_view data) {
  if (finished_ || context_ == nullptr) {
    std::fprintf(stderr, "trainpkg: DigestBuilder::Update after Finish or move\n");
    std::abort();
  }
  if (data.empty()) return;
  if (EVP_DigestUpdate(context_->ctx, data.data(), data.size()) != 1) {
    OpenSslFailure("EVP_DigestUpdate");
  }
  size_ += static_cast<int64_t>(data.size());
}

Digest DigestBuilder::Finish() {
  if (finished_ || context_ == nullptr) {
    std::fprintf(stderr, "trainpkg: DigestBuilder::Finish called twice or after move\n");
    std::abort();
  }
  finished_ = true;
  std::array<unsigned char, EVP_MAX_MD_SIZE> raw{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->ctx, raw.data(), &length) != 1) {
    OpenSslFailure("EVP_DigestFinal_ex");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[raw[i] >> 4]);
    hex.push_back(kHex[raw[i] & 0xf]);
  }
  absl::StatusOr<Digest> digest = Digest::FromHex(algorithm_, hex);
  if (!digest.ok()) OpenSslFailure("digest length");
  return *std::move(digest);
}

Digest ComputeDigest(std::string_view data, DigestAlgorithm algorithm) {
  DigestBuilder builder(algorithm);
  builder.Update(data);
  return builder.Finish();
}

absl::StatusOr<DigestAndSize> DigestFile(const std::filesystem::path& path,
                                         DigestAlgorithm algorithm) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  DigestBuilder builder(algorithm);
  constexpr size_t kBufferSize = size_t{1} << 20;
  std::unique_ptr<char[]> buffer = std::make_unique_for_overwrite<char[]>(kBufferSize);
  for (;;) {
    ssize_t n = ::read(fd, buffer.get(), kBufferSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return base::ErrnoToStatus(err, fmt::format("reading {}", path.string()));
    }
    if (n == 0) break;
    builder.Update(std::string_view(buffer.get(), static_cast<size_t>(n)));
  }
  ::close(fd);
  DigestAndSize result;
  result.size = builder.size();
  result.digest = builder.Finish();
  return result;
}

}  // namespace trainpkg::oci
