#include "sdk/cli/backend_flags.h"

#include <iostream>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/environment.h"
#include "sdk/auth/credentials.h"
#include "sdk/vertex/vertex_resource_ids.h"

namespace trainpkg::cli {

void AddBackendFlags(CLI::App& command, BackendFlags& flags, BackendSet backends) {
  const bool k8s = backends == BackendSet::kAll;
  command
      .add_option("--backend", flags.backend,
                  k8s ? "Where the job runs: local, vertex, k8s or slurm"
                      : "Where the trials run: local, vertex or slurm")
      ->check(k8s ? CLI::IsMember({"local", "vertex", "k8s", "slurm"})
                  : CLI::IsMember({"local", "vertex", "slurm"}))
      ->capture_default_str();
  command.add_option("--project", flags.project, "vertex: the Google Cloud project");
  command.add_option("--region", flags.region, "vertex: the region, e.g. us-central1");
  command.add_option("--endpoint", flags.endpoint,
                     "vertex: API endpoint (default https://REGION-aiplatform.googleapis.com; "
                     "http://127.0.0.1:PORT for `trainpkg serve`)");
  AddAccessTokenFlags(command, flags.access_token, "vertex");
  if (k8s) AddK8sFlags(command, flags.k8s);
  command.add_option("--partition", flags.partition,
                     "slurm: the partition (default: the cluster's default partition)");
  command.add_option(
      "--sbatch-arg", flags.sbatch_args,
      "slurm: one more sbatch option for every component, e.g. --sbatch-arg=--account=ml "
      "(repeatable)");
  command
      .add_option("--slurm-submit", flags.slurm_submit,
                  "slurm: sbatch (a batch job, started at Slurm's next scheduling pass) or salloc "
                  "(an allocation, started at once when the resources are free; the batch "
                  "script then runs on this host, which must be able to run srun)")
      ->check(CLI::IsMember({"sbatch", "salloc"}))
      ->capture_default_str();
}

void AddK8sFlags(CLI::App& command, K8sFlags& flags) {
  command.add_option("--kubeconfig", flags.kubeconfig,
                     "k8s: kubeconfig file (default $KUBECONFIG, else ~/.kube/config)");
  command.add_option("--context", flags.context, "k8s: kubeconfig context (default: current)");
  AddK8sObjectFlags(command, flags);
}

void AddK8sObjectFlags(CLI::App& command, K8sFlags& flags) {
  command.add_option("--namespace", flags.kubernetes_namespace,
                     "k8s: namespace (default: the context's, else default)");
  command
      .add_option("--k8s-kind", flags.kind,
                  "k8s: the workload: jobset, or tfjob / pytorchjob (Kubeflow training operator)")
      ->check(CLI::IsMember({"jobset", "tfjob", "pytorchjob"}))
      ->capture_default_str();
  command.add_flag("--no-node-selectors", flags.no_node_selectors,
                   "k8s: leave out the GKE node selectors derived from machineSpec");
}

absl::Status ApplyK8sFlags(const K8sFlags& flags, sdk::k8s::K8sBackendOptions& options) {
  absl::StatusOr<sdk::k8s::WorkloadKind> kind = sdk::k8s::ParseWorkloadKind(flags.kind);
  if (!kind.ok())
    return absl::InvalidArgumentError(absl::StrCat("--k8s-kind: ", kind.status().message()));
  options.kind = *kind;
  options.kubeconfig = flags.kubeconfig;
  options.context = flags.context;
  options.kubernetes_namespace = flags.kubernetes_namespace;
  options.node_selectors = !flags.no_node_selectors;
  return absl::OkStatus();
}

namespace {

// InvalidArgument naming the first flag of `flags` given without its backend.
absl::Status RejectForeignFlags(const BackendFlags& flags) {
  const std::pair<const char*, bool> vertex[] = {
      {"--project", !flags.project.empty()},
      {"--region", !flags.region.empty()},
      {"--endpoint", !flags.endpoint.empty()},
      {"--access-token-file", !flags.access_token.file.empty()}};
  const std::pair<const char*, bool> k8s[] = {
      {"--kubeconfig", !flags.k8s.kubeconfig.empty()},
      {"--context", !flags.k8s.context.empty()},
      {"--namespace", !flags.k8s.kubernetes_namespace.empty()},
      {"--k8s-kind", flags.k8s.kind != "jobset"},
      {"--no-node-selectors", flags.k8s.no_node_selectors}};
  const std::pair<const char*, bool> slurm[] = {{"--partition", !flags.partition.empty()},
                                                {"--sbatch-arg", !flags.sbatch_args.empty()},
                                                {"--slurm-submit", flags.slurm_submit != "sbatch"}};
  for (const auto& [backend, list] :
       {std::pair{"vertex", std::span<const std::pair<const char*, bool>>(vertex)},
        std::pair{"k8s", std::span<const std::pair<const char*, bool>>(k8s)},
        std::pair{"slurm", std::span<const std::pair<const char*, bool>>(slurm)}}) {
    if (flags.backend == backend) continue;
    for (const auto& [name, given] : list) {
      if (given) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": only applies with --backend ", backend));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyBackendFlags(const BackendFlags& flags, sdk::CustomJobOptions& options) {
  if (!flags.access_token.argv_token.empty()) {  // whatever the backend: the token is in ps
    return AccessTokenCredentialsFromFlags(flags.access_token, base::ProcessEnvironment(), std::cin)
        .status();
  }
  if (absl::Status status = RejectForeignFlags(flags); !status.ok()) return status;
  if (flags.backend == "k8s") {
    options.backend = sdk::JobBackendKind::kK8s;
    return ApplyK8sFlags(flags.k8s, options.k8s);
  }
  if (flags.backend == "slurm") {
    options.backend = sdk::JobBackendKind::kSlurm;
    options.slurm.partition = flags.partition;
    options.slurm.sbatch_args = flags.sbatch_args;
    options.slurm.submit = flags.slurm_submit == "salloc" ? sdk::slurm::SlurmSubmit::kSalloc
                                                          : sdk::slurm::SlurmSubmit::kSbatch;
    return absl::OkStatus();
  }
  if (flags.backend != "vertex") {
    options.backend = sdk::JobBackendKind::kLocal;
    return absl::OkStatus();
  }
  if (flags.project.empty()) {
    return absl::InvalidArgumentError("--project: required with --backend vertex");
  }
  if (flags.region.empty()) {
    return absl::InvalidArgumentError("--region: required with --backend vertex");
  }
  if (absl::Status status = sdk::vertex::ValidateVertexProject(flags.project); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--project: ", status.message()));
  }
  if (absl::Status status = sdk::vertex::ValidateVertexLocation(flags.region); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--region: ", status.message()));
  }
  absl::StatusOr<std::shared_ptr<sdk::auth::Credentials>> credentials =
      AccessTokenCredentialsFromFlags(flags.access_token, base::ProcessEnvironment(), std::cin);
  if (!credentials.ok()) return credentials.status();
  options.backend = sdk::JobBackendKind::kVertex;
  options.vertex.project = flags.project;
  options.vertex.location = flags.region;
  options.vertex.endpoint = flags.endpoint;
  options.vertex.credentials = *std::move(credentials);
  return absl::OkStatus();
}

}  // namespace trainpkg::cli
