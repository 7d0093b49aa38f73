#include "sdk/cli/backend_flags.h"

#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/bounded_file.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "sdk/auth/credentials.h"
#include "sdk/backend_table.h"
#include "sdk/cli/gcloud_config.h"
#include "sdk/ssh/host_list.h"
#include "sdk/vertex/vertex_resource_ids.h"

namespace trainpkg::cli {

void AddBackendFlags(CLI::App& command, BackendFlags& flags, BackendSet backends) {
  const bool k8s = backends == BackendSet::kAll;
  command
      .add_option("--backend", flags.backend,
                  absl::StrCat(k8s ? "Where the job runs: local, vertex, k8s, slurm or ssh"
                                   : "Where the trials run: local, vertex or slurm",
                               ". Default: vertex when --project or --region is given, else "
                               "`backend:` in $XDG_CONFIG_HOME/trainpkg/config.yaml "
                               "(~/.config/trainpkg/config.yaml), else local"))
      ->check(k8s ? CLI::IsMember({"local", "vertex", "k8s", "slurm", "ssh"})
                  : CLI::IsMember({"local", "vertex", "slurm"}));
  command.add_option("--project", flags.project,
                     "vertex (chooses it): the Google Cloud project. Default: "
                     "$CLOUDSDK_CORE_PROJECT, else `project:` in trainpkg's config.yaml, else "
                     "gcloud's core/project");
  command.add_option("--region", flags.region,
                     "vertex (chooses it): the region, e.g. us-central1. Default: "
                     "$CLOUDSDK_AI_REGION, else `region:` in trainpkg's config.yaml, else gcloud's "
                     "ai/region");
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
  if (!k8s) return;  // trials report through files: not over ssh yet
  command.add_option("--hosts", flags.hosts,
                     "ssh: the hosts and their slots, host1:4,host2:4 (horovodrun -H); replicas "
                     "fill them in order, the chief first");
  command.add_option("--hostfile", flags.hostfile,
                     "ssh: a file of hosts, one per line: host slots=N (Open MPI's hostfile)");
  command.add_flag("--no-copy", flags.no_copy,
                   "ssh: run the local: executables at the same path on every host (a shared "
                   "filesystem) instead of copying them into each host's ~/.cache/trainpkg/ssh");
  command.add_option("--ssh-config", flags.ssh_config,
                     "ssh: an ssh_config file instead of ~/.ssh/config (ssh -F)");
  command.add_option("--remote-trainpkg", flags.remote_trainpkg,
                     "ssh: the trainpkg on the hosts that runs container-image replicas with runc "
                     "(the same version as this one; default: trainpkg on the login's PATH)");
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
absl::Status RejectForeignFlags(const BackendFlags& flags, std::string_view chosen) {
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
  const std::pair<const char*, bool> ssh[] = {
      {"--hosts", !flags.hosts.empty()},
      {"--hostfile", !flags.hostfile.empty()},
      {"--no-copy", flags.no_copy},
      {"--ssh-config", !flags.ssh_config.empty()},
      {"--remote-trainpkg", !flags.remote_trainpkg.empty()}};
  for (const auto& [backend, list] :
       {std::pair{"vertex", std::span<const std::pair<const char*, bool>>(vertex)},
        std::pair{"k8s", std::span<const std::pair<const char*, bool>>(k8s)},
        std::pair{"slurm", std::span<const std::pair<const char*, bool>>(slurm)},
        std::pair{"ssh", std::span<const std::pair<const char*, bool>>(ssh)}}) {
    if (chosen == backend) continue;
    // A flag of another backend would be silently ignored: refused, naming it.
    for (const auto& [name, given] : list) {
      if (given) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": only applies with --backend ", backend));
      }
    }
  }
  return absl::OkStatus();
}

// A vertex setting and where it came from, for errors.
struct Setting {
  std::string value;
  std::string source;  // "--project", "CLOUDSDK_CORE_PROJECT", "project in FILE", ...
};

// The first of flag, environment variable, trainpkg config, gcloud config
// that is set; gcloud's configuration is read only when it is needed.
absl::StatusOr<Setting> ResolveSetting(const std::string& flag_value, const char* flag,
                                       const base::Environment& env, const char* env_var,
                                       const std::string& user_value, const UserConfig& user,
                                       const char* user_key,
                                       std::optional<GcloudProperties>& gcloud,
                                       std::string GcloudProperties::*gcloud_field,
                                       const char* gcloud_name) {
  if (!flag_value.empty()) return Setting{flag_value, flag};
  // gcloud's own environment form of the property (CLOUDSDK_<SECTION>_<NAME>),
  // so a shell set up for gcloud works here unchanged.
  if (std::optional<std::string> value = env.Get(env_var); value.has_value() && !value->empty()) {
    return Setting{*value, env_var};
  }
  if (!user_value.empty()) {
    return Setting{user_value, absl::StrCat(user_key, ": in ", user.file.string())};
  }
  if (!gcloud.has_value()) {
    absl::StatusOr<GcloudProperties> read = ReadGcloudProperties(env);
    if (!read.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("reading gcloud's configuration for the default ", gcloud_name, ": ",
                       read.status().message()));
    }
    gcloud = *std::move(read);
  }
  if (!((*gcloud).*gcloud_field).empty()) {
    return Setting{(*gcloud).*gcloud_field,
                   absl::StrCat(gcloud_name, " in ", gcloud->file.string())};
  }
  return Setting{};
}

// InvalidArgument "SOURCE: MESSAGE", naming the value unless it came from the flag.
absl::Status SettingError(const Setting& setting, absl::string_view message) {
  if (setting.source.rfind("--", 0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(setting.source, ": ", message));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("\"", setting.value, "\" (from ", setting.source, "): ", message));
}

absl::Status ApplyVertexFlags(const BackendFlags& flags, const base::Environment& env,
                              const UserConfig& user, sdk::CustomJobOptions& options) {
  std::optional<GcloudProperties> gcloud;
  TP_ASSIGN_OR_RETURN(
      Setting project,
      ResolveSetting(flags.project, "--project", env, "CLOUDSDK_CORE_PROJECT", user.project, user,
                     "project", gcloud, &GcloudProperties::project, "core/project"));
  if (project.value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--project: required with --backend vertex (or CLOUDSDK_CORE_PROJECT, `project:` in ",
        UserConfigPath(env).string(), ", or gcloud config set project PROJECT)"));
  }
  TP_ASSIGN_OR_RETURN(
      Setting region,
      ResolveSetting(flags.region, "--region", env, "CLOUDSDK_AI_REGION", user.region, user,
                     "region", gcloud, &GcloudProperties::region, "ai/region"));
  if (region.value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--region: required with --backend vertex (or CLOUDSDK_AI_REGION, `region:` in ",
        UserConfigPath(env).string(), ", or gcloud config set ai/region REGION)"));
  }
  if (absl::Status status = sdk::vertex::ValidateVertexProject(project.value); !status.ok()) {
    return SettingError(project, status.message());
  }
  if (absl::Status status = sdk::vertex::ValidateVertexLocation(region.value); !status.ok()) {
    return SettingError(region, status.message());
  }
  absl::StatusOr<std::shared_ptr<sdk::auth::Credentials>> credentials =
      AccessTokenCredentialsFromFlags(flags.access_token, env, std::cin);
  if (!credentials.ok()) return credentials.status();
  options.vertex.project = project.value;
  options.vertex.location = region.value;
  options.vertex.endpoint = flags.endpoint;
  options.vertex.credentials = *std::move(credentials);
  return absl::OkStatus();
}

absl::Status ApplySlurmFlags(const BackendFlags& flags, const base::Environment&, const UserConfig&,
                             sdk::CustomJobOptions& options) {
  options.slurm.partition = flags.partition;
  options.slurm.sbatch_args = flags.sbatch_args;
  options.slurm.submit = flags.slurm_submit == "salloc" ? sdk::slurm::SlurmSubmit::kSalloc
                                                        : sdk::slurm::SlurmSubmit::kSbatch;
  return absl::OkStatus();
}

absl::Status ApplySshFlags(const BackendFlags& flags, const base::Environment&, const UserConfig&,
                           sdk::CustomJobOptions& options) {
  if (flags.hosts.empty() == flags.hostfile.empty()) {
    return absl::InvalidArgumentError(
        flags.hosts.empty() ? "--hosts: required with --backend ssh (or --hostfile FILE)"
                            : "--hostfile: give --hosts or --hostfile, not both");
  }
  absl::StatusOr<std::vector<sdk::ssh::SshHost>> hosts;
  if (!flags.hosts.empty()) {
    hosts = sdk::ssh::ParseHostList(flags.hosts);
    if (!hosts.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--hosts: ", hosts.status().message()));
    }
  } else {
    absl::StatusOr<std::string> text = base::ReadRegularFile(
        flags.hostfile, base::BoundedReadOptions{
                            .max_bytes = 1 << 20, .follow_symlinks = true, .what = "a hostfile"});
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--hostfile: ", text.status().message()));
    }
    hosts = sdk::ssh::ParseHostfile(*text, flags.hostfile);
    if (!hosts.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--hostfile: ", hosts.status().message()));
    }
  }
  options.ssh.hosts = *std::move(hosts);
  options.ssh.copy_executables = !flags.no_copy;
  options.ssh.ssh_config = flags.ssh_config;
  if (!flags.remote_trainpkg.empty()) options.ssh.remote_trainpkg = flags.remote_trainpkg;
  return absl::OkStatus();
}

absl::Status ApplyK8sBackendFlags(const BackendFlags& flags, const base::Environment&,
                                  const UserConfig&, sdk::CustomJobOptions& options) {
  return ApplyK8sFlags(flags.k8s, options.k8s);
}

// The options each backend takes from its flags (the local backend has none).
using ApplyFlags = absl::Status (*)(const BackendFlags&, const base::Environment&,
                                    const UserConfig&, sdk::CustomJobOptions&);
const std::map<sdk::JobBackendKind, ApplyFlags> kApplyFlags = {
    {sdk::JobBackendKind::kVertex, ApplyVertexFlags},
    {sdk::JobBackendKind::kK8s, ApplyK8sBackendFlags},
    {sdk::JobBackendKind::kSlurm, ApplySlurmFlags},
    {sdk::JobBackendKind::kSsh, ApplySshFlags},
};

}  // namespace

std::string ChooseBackend(const BackendFlags& flags, const UserConfig& user) {
  if (!flags.backend.empty()) return flags.backend;
  if (!flags.project.empty() || !flags.region.empty()) return "vertex";
  return user.backend.empty() ? "local" : user.backend;
}

absl::Status ApplyBackendFlags(const BackendFlags& flags, const base::Environment& env,
                               sdk::CustomJobOptions& options, BackendSet backends) {
  if (!flags.access_token.argv_token.empty()) {  // whatever the backend: the token is in ps
    return AccessTokenCredentialsFromFlags(flags.access_token, env, std::cin).status();
  }
  TP_ASSIGN_OR_RETURN(UserConfig user, ReadUserConfig(env));
  const std::string backend = ChooseBackend(flags, user);
  if (backends == BackendSet::kTuning && backend == "k8s") {  // only the file can say so
    return absl::InvalidArgumentError(
        absl::StrCat(user.file.string(),
                     ": backend: k8s does not run tuning trials (local, vertex or slurm "
                     "do); give --backend"));
  }
  if (absl::Status status = RejectForeignFlags(flags, backend); !status.ok()) return status;
  TP_ASSIGN_OR_RETURN(const sdk::BackendDriver* driver, sdk::BackendDriverNamed(backend));
  options.backend = driver->kind();
  auto apply = kApplyFlags.find(driver->kind());
  return apply == kApplyFlags.end() ? absl::OkStatus() : apply->second(flags, env, user, options);
}

}  // namespace trainpkg::cli
