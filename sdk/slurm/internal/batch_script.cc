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
// srun passes a SIGTERM on to its step's tasks; `wait -n -p` (bash 5.1)
// says which step ended; parameter servers (pool 2) never end by
// themselves, so they are not waited for.
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

namespace {

// The job's worker pools and the options of each component (one for a
// plain job): --job-name on the first, then --partition, sbatch_args and
// the resources.
struct JobShape {
  std::vector<int> pools;
  std::vector<std::vector<std::string>> resources;  // per pool: --ntasks=N, per-task options
  bool het = false;
  std::vector<std::vector<std::string>> components;
};

absl::StatusOr<JobShape> MakeJobShape(const BatchScriptRequest& request) {
  const SlurmBackendOptions& options = *request.options;
  JobShape shape;
  int64_t tasks = 0;
  for (size_t pool = 0; pool < request.spec.worker_pool_specs.size(); ++pool) {
    const jobspec::WorkerPoolSpec& spec = request.spec.worker_pool_specs[pool];
    if (spec.IsEmpty() || spec.replica_count == 0) continue;
    absl::StatusOr<std::vector<std::string>> pool_resources =
        PoolResourceOptions(request.spec, static_cast<int>(pool), options.gpu_types);
    if (!pool_resources.ok()) return pool_resources.status();
    shape.pools.push_back(static_cast<int>(pool));
    shape.resources.push_back(*std::move(pool_resources));
    tasks += spec.replica_count;
  }
  // Pools whose tasks all ask for the same resources share one plain job.
  bool same_shape = true;
  for (const std::vector<std::string>& pool_resources : shape.resources) {
    same_shape = same_shape && std::equal(pool_resources.begin() + 1, pool_resources.end(),
                                          shape.resources[0].begin() + 1, shape.resources[0].end());
  }
  shape.het = shape.pools.size() > 1 && !same_shape;
  for (size_t component = 0; component < (shape.het ? shape.pools.size() : 1); ++component) {
    std::vector<std::string> component_options;
    if (component == 0) {
      component_options.push_back(absl::StrCat("--job-name=trainpkg-", request.job_id));
    }
    if (!options.partition.empty()) {
      component_options.push_back(absl::StrCat("--partition=", options.partition));
    }
    for (const std::string& arg : options.sbatch_args) component_options.push_back(arg);
    std::vector<std::string> resources = shape.resources[component];
    if (!shape.het) resources[0] = absl::StrCat("--ntasks=", tasks);
    component_options.insert(component_options.end(), resources.begin(), resources.end());
    shape.components.push_back(std::move(component_options));
  }
  return shape;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SallocArguments(const BatchScriptRequest& request) {
  absl::StatusOr<JobShape> shape = MakeJobShape(request);
  if (!shape.ok()) return shape.status();
  std::vector<std::string> argv = {"salloc"};
  for (size_t component = 0; component < shape->components.size(); ++component) {
    if (component > 0) argv.push_back(":");
    argv.insert(argv.end(), shape->components[component].begin(),
                shape->components[component].end());
  }
  argv.push_back("/bin/bash");
  argv.push_back(request.files.script().string());
  return argv;
}

absl::StatusOr<std::string> MakeBatchScript(const BatchScriptRequest& request) {
  absl::StatusOr<JobShape> job_shape = MakeJobShape(request);
  if (!job_shape.ok()) return job_shape.status();
  const std::vector<int>& pools = job_shape->pools;
  const std::vector<std::vector<std::string>>& resources = job_shape->resources;
  const bool het = job_shape->het;
  const SlurmBackendOptions& backend_options = *request.options;

  std::string script = "#!/bin/bash\n";
  for (size_t component = 0; component < job_shape->components.size(); ++component) {
    if (component > 0) absl::StrAppend(&script, Directive("hetjob"));
    const std::vector<std::string>& options = job_shape->components[component];
    // --job-name, --partition and each extra option on a line of its own,
    // then the resources on one line.
    const size_t resource_count = resources[component].size();
    for (size_t i = 0; i + resource_count < options.size(); ++i) {
      absl::StrAppend(&script, Directive(options[i]));
      if (component == 0 && i == 0) {
        absl::StrAppend(&script, Directive(absl::StrCat("--output=\"",
                                                        request.files.batch_log().string(), "\"")));
      }
    }
    absl::StrAppend(&script,
                    Directive(absl::StrJoin(options.end() - resource_count, options.end(), " ")));
  }
  absl::StrAppend(&script, "# trainpkg job ", request.job_id, ": one srun step per worker pool",
                  het ? " (a component each).\n" : ".\n", "set -u\n",
                  "task=", ShellQuote(request.task_program.string()), "\n",
                  "job_dir=", ShellQuote(request.files.job_dir().string()), "\n",
                  "grace_tenths=", absl::ToInt64Milliseconds(request.grace_period) / 100, "\n",
                  "declare -A pool_of=()\n", "judged=0\n");
  const std::string timeout = absl::StrCat(
      "--rendezvous-timeout=", absl::ToInt64Seconds(backend_options.rendezvous_timeout));
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
    // --kill-on-bad-exit: a failed task ends its step at once; --export=ALL:
    // the tasks get the batch environment (the job secret among it).
    absl::StrAppend(&script, "--kill-on-bad-exit=1 --export=ALL,", kPoolVariable, "=", pool,
                    " --output=", ShellQuote(request.files.log_pattern(pool).string()),
                    " \"$task\" \"$job_dir\" ", timeout, " &\n", "pool_of[$!]=", pool, "\n");
    if (pool != kParameterServerPool) absl::StrAppend(&script, "judged=$((judged + 1))\n");
  }
  absl::StrAppend(&script, kWaitForSteps);
  return script;
}

}  // namespace trainpkg::sdk::slurm::internal
