// A job of N ranks as threads of one process, for the communicator tests: a
// real coordination server on 127.0.0.1, a registered client per rank, and
// the communicator `make` builds on each rank's client (all ranks at once,
// as the transports' rendezvous needs).
//
//   ThreadJob job(3, [](coordination::CoordinationClient& client) {
//     return CreateShmCommunicator(client, {});
//   });
//   OnEveryRank(3, [&](int r) { ... job.comm(r).AllReduce(...) ... });
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_COLLECTIVES_THREAD_JOB_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_COLLECTIVES_THREAD_JOB_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/rank_names.h"

namespace trainpkg::collectives::testing {

// Short timeouts, so a test about a dead or hung rank ends in seconds.
inline coordination::CoordinationOptions FastOptions(
    absl::Duration heartbeat_timeout = absl::Seconds(2)) {
  return {.heartbeat_interval = absl::Milliseconds(100),
          .heartbeat_timeout = heartbeat_timeout,
          .rendezvous_timeout = absl::Seconds(5),
          .shutdown_timeout = absl::Seconds(2),
          .job_secret = ""};
}

template <typename Fn>
void OnEveryRank(int n, Fn fn) {
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(fn, r);
  for (auto& t : threads) t.join();
}

class ThreadJob {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Communicator>>(
      coordination::CoordinationClient& client)>;

  ThreadJob(int n, const Factory& make,
            const coordination::CoordinationOptions& options = FastOptions()) {
    std::vector<std::string> names;
    for (int r = 0; r < n; ++r) names.push_back(coordination::PlainRankName(r));
    auto server = coordination::CoordinationServer::Start("127.0.0.1:0", names, options);
    EXPECT_THAT(server, ::trainpkg::testing::IsOk());
    server_ = *std::move(server);
    clients_.resize(n);
    comms_.resize(n);
    OnEveryRank(n, [&](int r) {
      auto client = coordination::CoordinationClient::Create(server_->address(), r, names, options);
      ASSERT_THAT(client, ::trainpkg::testing::IsOk());
      clients_[r] = *std::move(client);
      ASSERT_THAT(clients_[r]->Register(), ::trainpkg::testing::IsOk());
      auto comm = make(*clients_[r]);
      ASSERT_THAT(comm, ::trainpkg::testing::IsOk());
      comms_[r] = *std::move(comm);
    });
  }

  Communicator& comm(int r) { return *comms_[r]; }
  // To make a rank go: reset() it.
  std::unique_ptr<Communicator>& comm_ptr(int r) { return comms_[r]; }
  std::unique_ptr<coordination::CoordinationClient>& client(int r) { return clients_[r]; }

 private:
  std::unique_ptr<coordination::CoordinationServer> server_;
  std::vector<std::unique_ptr<coordination::CoordinationClient>> clients_;
  std::vector<std::unique_ptr<Communicator>> comms_;
};

}  // namespace trainpkg::collectives::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_COLLECTIVES_THREAD_JOB_H_
