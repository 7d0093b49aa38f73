#include "tests/trainer_runtime/chief_and_workers_env.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::testing {
namespace {

// A free port on 127.0.0.1 (bound, read, released).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

jobspec::WorkerPoolSpec Pool(int64_t replicas, const std::string& image) {
  jobspec::WorkerPoolSpec pool;
  pool.machine_spec.emplace().machine_type = "n1-standard-4";
  pool.container_spec.emplace().image_uri = image;
  pool.replica_count = replicas;
  return pool;
}

}  // namespace

std::vector<std::map<std::string, std::string>> ChiefAndTwoWorkersEnv(const std::string& job_id,
                                                                      const std::string& image) {
  jobspec::ClusterEnvRequest request;
  request.spec.worker_pool_specs = {Pool(1, image), Pool(2, image)};
  request.job_id = job_id;
  request.addresses = {
      {fmt::format("127.0.0.1:{}", FreePort())},
      {fmt::format("127.0.0.1:{}", FreePort()), fmt::format("127.0.0.1:{}", FreePort())}};
  std::vector<std::map<std::string, std::string>> envs;
  for (int rank = 0; rank < 3; ++rank) {
    request.replica = rank == 0 ? jobspec::ReplicaRef{0, 0} : jobspec::ReplicaRef{1, rank - 1};
    auto env = jobspec::MakeClusterEnv(request);
    EXPECT_THAT(env, IsOk());
    envs.push_back(env.ok() ? *std::move(env) : std::map<std::string, std::string>{});
  }
  return envs;
}

std::vector<std::string> EnvStrings(const std::map<std::string, std::string>& env) {
  std::vector<std::string> vars;
  for (const auto& [name, value] : env) vars.push_back(name + "=" + value);
  return vars;
}

}  // namespace trainpkg::testing
