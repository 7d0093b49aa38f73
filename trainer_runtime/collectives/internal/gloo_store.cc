#include "trainer_runtime/collectives/internal/gloo_store.h"

#include <utility>

#include "gloo/common/error.h"

namespace trainpkg::collectives::internal {

void GlooStore::Throw(absl::Status status) {
  const std::string message(status.message());
  // Gloo sees only the exception's text; the first Status is kept whole for
  // the caller, which returns it in place of Gloo's message.
  if (error_.ok()) error_ = std::move(status);
  throw gloo::IoException(message);
}

void GlooStore::set(const std::string& key, const std::vector<char>& data) {
  absl::Status status = client_.Set(key, std::string(data.begin(), data.end()));
  if (!status.ok()) Throw(std::move(status));
}

std::vector<char> GlooStore::get(const std::string& key) {
  auto value = client_.Get(key, timeout_);
  if (!value.ok()) Throw(value.status());
  return std::vector<char>(value->begin(), value->end());
}

void GlooStore::wait(const std::vector<std::string>& keys) {
  wait(keys, absl::ToChronoMilliseconds(timeout_));
}

void GlooStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  // One deadline for all keys: Gloo's timeout bounds the whole wait.
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  for (const std::string& key : keys) {
    auto value = client_.Get(key, std::max(deadline - absl::Now(), absl::ZeroDuration()));
    if (!value.ok()) Throw(value.status());
  }
}

}  // namespace trainpkg::collectives::internal
