#include "sdk/slurm/internal/batch_script.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "sdk/slurm/internal/slurm_resources.h"

namespace trainpkg::sdk::slurm::internal {
namespace {

constexpr int kParameterServerPool = 2;

// An #SBATCH option; sbatch strips double quotes around a value.
std::string Directive(const std::string& option) { return absl::StrCat("#SBATCH ", option, "\n"); }

// The waiting logic, after the steps are started (see batch_script.h).
constexpr char kWaitForSteps[] = R"(
# Stops the steps still running: SIGTERM through srun, then at most
# $grace_tenths/10 s for them to end (Slurm kills what is left once the
# script exits).
stop_steps() {
  local pid alive
  for pid in "${!pool_of[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for ((i = 0; i < grace_tenths; i++)); do
    alive=0
    for pid in "${!pool_of[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.1
  done
}

while ((judged > 0)); do
  wait -n -p done_pid
  rc=$?
  pool=${pool_of[$done_pid]}
  unset "pool_of[$done_pid]"
  if ((rc != 0)); then
    echo "trainpkg: the srun step of workerpool$pool exited with status $rc; stopping the others" >&2
    stop_steps
    exit 1
  fi
  if ((pool != 2)); then judged=$((judged - 1)); fi
done
stop_steps
exit 0
)";

}  // namespace

std::string ShellQuote(std::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(std::string(text), {{"'", "'\\''"}}), "'");
}

absl::StatusOr<std::string> MakeBatchScript(const BatchScriptRequest& request) {
  const SlurmBackendOptions& options = *request.options;
  std::vector<int> pools;
  std::vector<std::vector<std::string>> resources;  // per pool: --ntasks=N, then per-task options
  int64_t tasks = 0;
  for (size_t pool = 0; pool < request.spec.worker_pool_specs.size(); ++pool) {
    const jobspec::WorkerPoolSpec& spec = request.spec.worker_pool_specs[pool];
    if (spec.IsEmpty() || spec.replica_count == 0) continue;
    absl::StatusOr<std::vector<std::string>> pool_resources =
        PoolResourceOptions(request.spec, static_cast<int>(pool), options.gpu_types);
    if (!pool_resources.ok()) return pool_resources.status();
    pools.push_back(static_cast<int>(pool));
    resources.push_back(*std::move(pool_resources));
    tasks += spec.replica_count;
  }
  // Pools whose tasks all ask for the same resources share one plain job.
  bool same_shape = true;
  for (const std::vector<std::string>& pool_resources : resources) {
    same_shape = same_shape && std::equal(pool_resources.begin() + 1, pool_resources.end(),
                                          resources[0].begin() + 1, resources[0].end());
  }
  const bool het = pools.size() > 1 && !same_shape;

  std::string script = "#!/bin/bash\n";
  absl::StrAppend(&script, Directive(absl::StrCat("--job-name=trainpkg-", request.job_id)),
                  Directive(absl::StrCat("--output=\"", request.files.batch_log().string(), "\"")));
  for (size_t component = 0; component < (het ? pools.size() : 1); ++component) {
    if (component > 0) absl::StrAppend(&script, Directive("hetjob"));
    if (!options.partition.empty()) {
      absl::StrAppend(&script, Directive(absl::StrCat("--partition=", options.partition)));
    }
    for (const std::string& arg : options.sbatch_args) absl::StrAppend(&script, Directive(arg));
    std::vector<std::string> directives = resources[component];
    if (!het) directives[0] = absl::StrCat("--ntasks=", tasks);
    absl::StrAppend(&script, Directive(absl::StrJoin(directives, " ")));
  }
  absl::StrAppend(&script, "# trainpkg job ", request.job_id, ": one srun step per worker pool",
                  het ? " (a component each).\n" : ".\n", "set -u\n",
                  "task=", ShellQuote(request.task_program.string()), "\n",
                  "job_dir=", ShellQuote(request.files.job_dir().string()), "\n",
                  "grace_tenths=", absl::ToInt64Milliseconds(request.grace_period) / 100, "\n",
                  "declare -A pool_of=()\n", "judged=0\n");
  const std::string timeout =
      absl::StrCat("--rendezvous-timeout=", absl::ToInt64Seconds(options.rendezvous_timeout));
  for (size_t component = 0; component < pools.size(); ++component) {
    const int pool = pools[component];
    absl::StrAppend(&script, "srun ");
    if (het) {
      absl::StrAppend(&script, "--het-group=", component, " ");
    } else if (pools.size() > 1) {
      // Each step takes only its own tasks' share of the allocation.
      absl::StrAppend(&script, "--exact ", resources[component][0], " ");
      for (const std::string& option : resources[component]) {
        for (std::string_view per_task :
             {"--cpus-per-task=", "--mem-per-cpu=", "--gpus-per-task="}) {
          if (option.rfind(per_task, 0) == 0) absl::StrAppend(&script, option, " ");
        }
      }
    }
    absl::StrAppend(&script, "--kill-on-bad-exit=1 --export=ALL,", kPoolVariable, "=", pool,
                    " --output=", ShellQuote(request.files.log_pattern(pool).string()),
                    " \"$task\" \"$job_dir\" ", timeout, " &\n", "pool_of[$!]=", pool, "\n");
    if (pool != kParameterServerPool) absl::StrAppend(&script, "judged=$((judged + 1))\n");
  }
  absl::StrAppend(&script, kWaitForSteps);
  return script;
}

}  // namespace trainpkg::sdk::slurm::internal
