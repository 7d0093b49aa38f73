// Gloo's rendezvous store (gloo/rendezvous/store.h) over the coordination
// key-value store. Gloo's Store API reports errors by throwing; this adapter
// throws gloo::IoException and keeps the Status that caused it, so the
// caller can return that instead of the exception's text.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_GLOO_STORE_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_GLOO_STORE_H_

#include <chrono>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gloo/rendezvous/store.h"
#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives::internal {

class GlooStore final : public gloo::rendezvous::Store {
 public:
  // `client` must outlive the store; `get` waits up to `timeout` for a key.
  GlooStore(coordination::CoordinationClient& client, absl::Duration timeout)
      : client_(client), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The first error the store threw for; OK if none.
  const absl::Status& error() const { return error_; }

 private:
  [[noreturn]] void Throw(absl::Status status);

  coordination::CoordinationClient& client_;
  const absl::Duration timeout_;
  absl::Status error_;
};

}  // namespace trainpkg::collectives::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_GLOO_STORE_H_
