#include "jobspec/job_secret.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fmt/format.h"

namespace trainpkg::jobspec {

absl::StatusOr<std::string> NewJobSecret() {
  unsigned char bytes[32];
  size_t filled = 0;
  while (filled < sizeof(bytes)) {
    const ssize_t n = ::getrandom(bytes + filled, sizeof(bytes) - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::InternalError(
          fmt::format("making the job's {}: getrandom: {}", kJobSecretEnv, std::strerror(errno)));
    }
    filled += static_cast<size_t>(n);
  }
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  return hex;
}

void AddJobSecretToPools(CustomJobSpec& spec, const std::string& secret) {
  auto add = [&secret](std::vector<EnvVar>& env) {
    for (const EnvVar& var : env) {
      if (var.name == kJobSecretEnv) return;
    }
    env.push_back({.name = kJobSecretEnv, .value = secret});
  };
  for (WorkerPoolSpec& pool : spec.worker_pool_specs) {
    if (pool.container_spec.has_value()) add(pool.container_spec->env);
    if (pool.python_package_spec.has_value()) add(pool.python_package_spec->env);
  }
}

absl::Status ValidateJobSecret(std::string_view secret) {
  if (secret.size() < kMinJobSecretLength || secret.size() > kMaxJobSecretLength) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: {} characters; a job secret has {}..{} (e.g. `openssl rand -hex 32`, the same on "
        "every replica)",
        kJobSecretEnv, secret.size(), kMinJobSecretLength, kMaxJobSecretLength));
  }
  for (size_t i = 0; i < secret.size(); ++i) {
    const auto c = static_cast<unsigned char>(secret[i]);
    if (c <= 0x20 || c >= 0x7f) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: character {} is not printable ASCII (a job secret is sent as gRPC metadata)",
          kJobSecretEnv, i + 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::jobspec
