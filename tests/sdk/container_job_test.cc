// Container mode end to end: images built with the packager's Builder from a
// busybox-static context, stored in the job home's image store, run by the
// local backend under real runc (1 chief + 2 workers, overrides, User,
// cancel, restartJobOnWorkerRestart). Needs root and runc; a sandbox where
// runc cannot start containers skips, saying why.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "packager/builder/builder.h"
#include "packager/builder/image_store.h"
#include "sdk/custom_job.h"
#include "tests/sdk/container_test_util.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using testing::ContainerTestBase;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Slurp;
using ::testing::UnorderedElementsAre;

class ContainerJobTest : public ContainerTestBase {};

TEST_F(ContainerJobTest, RunsAChiefAndTwoWorkersUnderRunc) {
  const std::string image = BuildImage("busy:1",
                                       "FROM scratch\n"
                                       "COPY bin/busybox /bin/busybox\n"
                                       "ENV GREETING=hi FROM_IMAGE=image\n"
                                       "WORKDIR /work\n"
                                       "ENTRYPOINT [\"/bin/busybox\", \"sh\", \"-c\"]\n");
  const std::string script =
      "d=\"$AIP_MODEL_DIR/../replicas\"; mkdir -p \"$d\"; "
      "f=\"$d/$(echo \"$TF_CONFIG\" | md5sum | cut -c1-8)\"; "
      "echo \"$TF_CONFIG\" > \"$f\"; echo \"$CLUSTER_SPEC\" >> \"$f\"; "
      "echo \"$GREETING $FROM_IMAGE $(pwd)\" >> \"$f\"; "
      "if touch /rootfs-probe 2>/dev/null; then echo rw >> \"$f\"; else echo ro >> \"$f\"; fi; "
      "echo tmp > /tmp/x && cat /tmp/x >> \"$f\"; echo \"hello from $CLOUD_ML_JOB_ID\"";
  jobspec::CustomJob spec = MakeContainerJob(image, {1, 2}, {script});
  spec.job_spec.worker_pool_specs[1].container_spec->env = {{"FROM_IMAGE", "pool"}};
  absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();

  std::vector<std::string> tasks;
  for (const fs::directory_entry& entry : fs::directory_iterator(output_dir() / "replicas")) {
    std::istringstream lines(Slurp(entry.path()));
    std::string tf_config, cluster_spec, info, rootfs, tmp;
    std::getline(lines, tf_config);
    std::getline(lines, cluster_spec);
    std::getline(lines, info);
    std::getline(lines, rootfs);
    std::getline(lines, tmp);
    nlohmann::json tf = nlohmann::json::parse(tf_config);
    std::string task = tf["task"]["type"].get<std::string>() + "-" +
                       std::to_string(tf["task"]["index"].get<int>());
    tasks.push_back(task);
    EXPECT_EQ(tf["cluster"]["worker"].size(), 2u);
    nlohmann::json cluster = nlohmann::json::parse(cluster_spec);
    EXPECT_EQ(cluster["cluster"]["workerpool1"].size(), 2u);
    EXPECT_EQ(info, task == "chief-0" ? "hi image /work" : "hi pool /work");
    EXPECT_EQ(rootfs, "ro");
    EXPECT_EQ(tmp, "tmp");
  }
  EXPECT_THAT(tasks, UnorderedElementsAre("chief-0", "worker-0", "worker-1"));
  EXPECT_THAT(Slurp(job_dir_ / "logs/workerpool1-1.log"), HasSubstr("hello from " + job_id_));
  EXPECT_THAT(log_.str(), HasSubstr("[workerpool0-0] hello from"));
  ExpectNothingLeft();
}

TEST_F(ContainerJobTest, CommandReplacesEntrypointAndArgsReplaceCmd) {
  const std::string image = BuildImage("echo:1",
                                       "FROM scratch\n"
                                       "COPY bin/busybox /bin/busybox\n"
                                       "ENTRYPOINT [\"/bin/busybox\", \"echo\", \"entry\"]\n"
                                       "CMD [\"cmd\"]\n");
  auto output_of = [&](std::vector<std::string> command, std::vector<std::string> args) {
    jobspec::CustomJob spec = MakeContainerJob(image, {1}, std::move(args));
    spec.job_spec.worker_pool_specs[0].container_spec->command = std::move(command);
    absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
    EXPECT_TRUE(done.ok() && done->state == jobspec::JobState::kSucceeded) << log_.str();
    return Slurp(job_dir_ / "logs/workerpool0-0.log");
  };
  EXPECT_EQ(output_of({}, {}), "entry cmd\n");
  EXPECT_EQ(output_of({}, {"a", "b"}), "entry a b\n");
  EXPECT_EQ(output_of({"/bin/busybox", "echo", "own"}, {}), "own\n");
  EXPECT_EQ(output_of({"/bin/busybox", "echo", "own"}, {"x"}), "own x\n");
}

TEST_F(ContainerJobTest, RunsAsTheImageUserResolvedInTheRootfs) {
  testing::WriteContextFile(context() / "etc/passwd",
                            "root:x:0:0:root:/root:/bin/sh\ntrainer:x:1234:2345::/tmp:/bin/sh\n");
  testing::WriteContextFile(context() / "etc/group",
                            "root:x:0:\nteam:x:2345:\nextra:x:77:trainer\n");
  const std::string image = BuildImage("user:1",
                                       "FROM scratch\n"
                                       "COPY bin/busybox /bin/busybox\n"
                                       "COPY etc/ /etc/\n"
                                       "USER trainer\n"
                                       "ENTRYPOINT [\"/bin/busybox\", \"sh\", \"-c\"]\n");
  absl::StatusOr<jobspec::CustomJob> done =
      RunJob(MakeContainerJob(image, {1}, {"echo $(id -u) $(id -g) $(id -G)"}));
  ASSERT_TRUE(done.ok() && done->state == jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_EQ(Slurp(job_dir_ / "logs/workerpool0-0.log"), "1234 2345 2345 77\n");
}

TEST_F(ContainerJobTest, AnUnknownImageFailsTheJobNamingTheField) {
  absl::StatusOr<jobspec::CustomJob> done =
      RunJob(MakeContainerJob("oci:" + (dir_.path() / "no-such-layout").string(), {1}, {}));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message,
              HasSubstr("jobSpec.workerPoolSpecs[0].containerSpec.imageUri: image \"oci:"));
}

TEST_F(ContainerJobTest, CancelLeavesNoContainerProcessOrBundle) {
  const std::string image = BuildImage("sleep:1",
                                       "FROM scratch\n"
                                       "COPY bin/busybox /bin/busybox\n"
                                       "ENTRYPOINT [\"/bin/busybox\", \"sleep\", \"600\"]\n");
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeContainerJob(image, {1, 2}, {}), Options());
  ASSERT_THAT(job, IsOk());
  job_dir_ = job->job_dir();
  ASSERT_THAT(job->Submit(), IsOk());
  const std::string prefix = "trainpkg-" + job->job_id() + "-";
  ASSERT_TRUE(
      testing::WaitFor([&] { return RuncContainers(prefix).size() == 3; }, absl::Seconds(20)))
      << log_.str();
  std::vector<int> pids = ContainerPids(prefix);
  ASSERT_EQ(pids.size(), 3u);
  job->Cancel();
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  EXPECT_THAT(RuncContainers(prefix), ::testing::IsEmpty());
  for (int pid : pids) EXPECT_TRUE(testing::ProcessGone(pid)) << pid;
  ExpectNothingLeft();
}

TEST_F(ContainerJobTest, RestartJobOnWorkerRestartResumesTheJob) {
  const std::string image = BuildImage("flaky:1",
                                       "FROM scratch\n"
                                       "COPY bin/busybox /bin/busybox\n"
                                       "ENTRYPOINT [\"/bin/busybox\", \"sh\", \"-c\"]\n");
  // The worker fails on its first run and passes once its "checkpoint" is
  // there; the chief waits for the worker's second run.
  const std::string script =
      "c=\"$AIP_CHECKPOINT_DIR\"; mkdir -p \"$c\"; "
      "if echo \"$TF_CONFIG\" | grep -q '\"type\": *\"worker\"'; then "
      "  if [ -e \"$c/failed-once\" ]; then touch \"$c/resumed\"; echo resumed; exit 0; fi; "
      "  touch \"$c/failed-once\"; exit 3; "
      "fi; until [ -e \"$c/resumed\" ]; do sleep 0.1; done; echo chief-done";
  jobspec::CustomJob spec = MakeContainerJob(image, {1, 1}, {script});
  spec.job_spec.scheduling.emplace().restart_job_on_worker_restart = true;
  absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_THAT(log_.str(),
              HasSubstr("The replica workerpool1-0 exited with a non-zero status of 3"));
  EXPECT_THAT(log_.str(), HasSubstr("Restarting all replicas (restart 1 of at most 3)"));
  EXPECT_THAT(Slurp(job_dir_ / "logs/workerpool1-0.log"), HasSubstr("resumed"));
  ExpectNothingLeft();

  // Off: the same failure fails the job, naming the replica.
  fs::remove_all(output_dir());
  spec.job_spec.scheduling->restart_job_on_worker_restart = false;
  done = RunJob(spec);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message,
              HasSubstr("The replica workerpool1-0 exited with a non-zero status of 3"));
  ExpectNothingLeft();
}

}  // namespace
}  // namespace trainpkg::sdk
