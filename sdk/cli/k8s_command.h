// `trainpkg k8s render`: print the Kubernetes objects `trainpkg run
// --backend k8s` would create for a job, without a cluster.
#ifndef TRAINPKG_SDK_CLI_K8S_COMMAND_H_
#define TRAINPKG_SDK_CLI_K8S_COMMAND_H_

#include <ostream>

#include "CLI/CLI.hpp"
#include "sdk/cli/backend_flags.h"
#include "sdk/cli/job_from_flags.h"

namespace trainpkg::cli {

struct K8sRenderFlags {
  RunFlags job;  // the job flags of `trainpkg run`
  K8sFlags k8s;  // --namespace (no kubeconfig is read: default "default"), --k8s-kind,
                 // --no-node-selectors
  bool no_pull_secret = false;       // no Secret, and the pods name none
  bool include_pull_secret = false;  // print the Secret, registry passwords included
};

// Declares `trainpkg k8s` and its `render` subcommand; returns `render`.
CLI::App* AddK8sCommand(CLI::App& app, K8sRenderFlags& flags);

// Validates the job and prints the manifests as a JSON "v1" List (what
// `kubectl apply -f` takes). When docker's config.json has credentials for
// the images' registries, the pods name the image pull Secret <name>-registry;
// the Secret itself, which holds those credentials, is printed only with
// --include-pull-secret, else `err` says how to create it. With
// --no-pull-secret the pods name none. Returns 0, or 2 when the job cannot be
// rendered.
int K8sRenderCommand(const K8sRenderFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_K8S_COMMAND_H_
