#include "sdk/cli/k8s_command.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/environment.h"
#include "base/terminal_text.h"
#include "jobspec/validation.h"
#include "registry/auth/docker_config.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/run_command.h"
#include "sdk/k8s/image_pull_secret.h"
#include "sdk/k8s/job_manifests.h"

namespace trainpkg::cli {

CLI::App* AddK8sCommand(CLI::App& app, K8sRenderFlags& flags) {
  CLI::App* k8s = app.add_subcommand("k8s", "Kubernetes: see what `run --backend k8s` creates");
  k8s->require_subcommand(1);
  CLI::App* render = k8s->add_subcommand(
      "render", "Print the Kubernetes objects (JSON List) that run the job, without a cluster");
  render->footer(
      "Objects: a headless Service (jobset) and the JobSet, TFJob or PyTorchJob. When docker's "
      "config.json has credentials for the images' registries, the pods name the image pull "
      "secret <job id>-registry, which is printed only with --include-pull-secret (it holds those "
      "credentials); otherwise create it yourself (stderr says how). No kubeconfig is read: the "
      "namespace is --namespace, else default. `kubectl apply -f` takes the output.");
  AddJobSpecFlags(*render, flags.job);
  AddK8sObjectFlags(*render, flags.k8s);
  CLI::Option* none =
      render->add_flag("--no-pull-secret", flags.no_pull_secret,
                       "Name no image pull secret (the nodes can pull the images by themselves)");
  render
      ->add_flag("--include-pull-secret", flags.include_pull_secret,
                 "Print the image pull secret too, with the registry credentials of docker's "
                 "config.json in it (anyone who sees the output can use them)")
      ->excludes(none);
  return render;
}

int K8sRenderCommand(const K8sRenderFlags& flags, std::ostream& out, std::ostream& err) {
  absl::StatusOr<FlagJob> flag_job = JobFromFlags(flags.job, absl::Now());
  if (!flag_job.ok()) return ReportError(err, flag_job.status(), kExitUsage);
  if (flag_job->autopackaging.has_value()) {
    return ReportError(err,
                       absl::InvalidArgumentError(
                           "--worker-pool-spec #1: local-package-path builds an image, which "
                           "render does not do: build and push it with `trainpkg run --backend "
                           "k8s ...,output-image-uri=REF` or `trainpkg build`, then give "
                           "container-image-uri=REF"),
                       kExitUsage);
  }
  const jobspec::CustomJob* job = &flag_job->job;
  if (absl::Status status = jobspec::ValidateCustomJob(*job); !status.ok()) {
    return ReportError(err, status, kExitUsage);
  }
  sdk::k8s::K8sBackendOptions options;
  if (absl::Status status = ApplyK8sFlags(flags.k8s, options); !status.ok()) {
    return ReportError(err, status, kExitUsage);
  }
  sdk::k8s::RenderRequest request{.job = *job};
  request.name =
      flags.job.job_id.empty() ? sdk::k8s::DefaultJobName(absl::Now()) : flags.job.job_id;
  request.kubernetes_namespace =
      options.kubernetes_namespace.empty() ? "default" : options.kubernetes_namespace;
  request.kind = options.kind;
  request.node_selectors = options.node_selectors;
  if (!flags.no_pull_secret) {
    registry::DockerKeychain keychain(base::ProcessEnvironment());
    absl::StatusOr<sdk::k8s::RegistryCredentials> credentials =
        sdk::k8s::CollectRegistryCredentials(job->job_spec, keychain);
    if (!credentials.ok()) return ReportError(err, credentials.status(), kExitUsage);
    request.pull_credentials = *std::move(credentials);
  }
  request.include_pull_secret = flags.include_pull_secret;
  absl::StatusOr<sdk::k8s::JobManifests> manifests = sdk::k8s::RenderJobManifests(request);
  if (!manifests.ok()) return ReportError(err, manifests.status(), kExitUsage);
  out << base::TerminalSafe(
             manifests->List().dump(2, ' ', false, nlohmann::json::error_handler_t::replace),
             base::TextLayout::kJson)
      << "\n";
  if (!manifests->pull_secret.has_value() && !manifests->pull_secret_name.empty()) {
    std::vector<std::string> registries;
    for (const auto& entry : request.pull_credentials) registries.push_back(entry.first);
    err << absl::StrCat(
        "note: the pods pull with the image pull secret ", manifests->pull_secret_name,
        " (registries ", absl::StrJoin(registries, ", "),
        "), which is not printed: it would hold your registry credentials. Create it with\n"
        "  kubectl create secret generic ",
        manifests->pull_secret_name, " --namespace ", request.kubernetes_namespace,
        " --type=kubernetes.io/dockerconfigjson --from-file=.dockerconfigjson=FILE\n"
        "(FILE: a docker config.json with those registries' auths), or pass "
        "--include-pull-secret to print it here.\n");
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
