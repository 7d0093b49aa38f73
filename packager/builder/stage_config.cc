#include "packager/builder/stage_config.h"

#include <cstdio>
#include <cstdlib>
#include <variant>

#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "packager/dockerfile/context_path.h"
#include "packager/dockerfile/port_spec.h"

namespace trainpkg::packager::builder {
namespace {

using namespace dockerfile;

std::vector<std::string> CommandArgs(const CommandLine& command, const StageConfig& stage) {
  if (command.exec_form) return command.args;
  std::vector<std::string> argv = stage.shell;
  argv.insert(argv.end(), command.args.begin(), command.args.end());
  return argv;
}

void SetEnv(std::vector<std::string>* env, const std::string& key, const std::string& value) {
  const std::string prefix = key + "=";
  for (std::string& entry : *env) {
    if (entry.rfind(prefix, 0) == 0) {
      entry = prefix + value;
      return;
    }
  }
  env->push_back(prefix + value);
}

std::string Healthcheck(const HealthcheckInstruction& hc) {
  nlohmann::json json = nlohmann::json::object();
  if (hc.none) {
    json["Test"] = {"NONE"};
    return json.dump();
  }
  nlohmann::json test = nlohmann::json::array();
  if (hc.test.exec_form) {
    test.push_back("CMD");
    for (const std::string& arg : hc.test.args) test.push_back(arg);
  } else {
    test.push_back("CMD-SHELL");
    test.push_back(hc.test.args.empty() ? "" : hc.test.args.front());
  }
  json["Test"] = test;
  // Nanoseconds: Docker's config holds Go time.Durations as integers.
  if (hc.interval.count() != 0) json["Interval"] = hc.interval.count();
  if (hc.timeout.count() != 0) json["Timeout"] = hc.timeout.count();
  if (hc.start_period.count() != 0) json["StartPeriod"] = hc.start_period.count();
  if (hc.start_interval.count() != 0) json["StartInterval"] = hc.start_interval.count();
  if (hc.retries != 0) json["Retries"] = hc.retries;
  return json.dump();
}

struct Applier {
  StageConfig* stage;
  oci::ContainerConfig& c() { return stage->image.config; }

  absl::Status operator()(const ArgInstruction&) { return absl::OkStatus(); }
  absl::Status operator()(const EnvInstruction& env) {
    for (const KeyValue& kv : env.vars) SetEnv(&c().env, kv.key, kv.value);
    return absl::OkStatus();
  }
  absl::Status operator()(const LabelInstruction& label) {
    for (const KeyValue& kv : label.labels) c().labels[kv.key] = kv.value;
    return absl::OkStatus();
  }
  absl::Status operator()(const WorkdirInstruction& workdir) {
    std::string base = c().working_dir.empty() ? "/" : c().working_dir;
    TP_ASSIGN_OR_RETURN(std::string dir, ResolveDestination(base, workdir.path));
    if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    c().working_dir = dir;
    return absl::OkStatus();
  }
  absl::Status operator()(const UserInstruction& user) {
    c().user = user.user;
    return absl::OkStatus();
  }
  absl::Status operator()(const ExposeInstruction& expose) {
    for (const std::string& text : expose.ports) {
      TP_ASSIGN_OR_RETURN(PortSpec spec, ParsePortSpec(text));
      // A range is one key per port, as Docker writes ExposedPorts.
      for (int port = spec.first; port <= spec.last; ++port) {
        c().exposed_ports.insert(fmt::format("{}/{}", port, spec.protocol));
      }
    }
    return absl::OkStatus();
  }
  absl::Status operator()(const VolumeInstruction& volume) {
    for (const std::string& path : volume.paths) c().volumes.insert(path);
    return absl::OkStatus();
  }
  absl::Status operator()(const CmdInstruction& cmd) {
    c().cmd = CommandArgs(cmd.command, *stage);
    stage->cmd_set_in_stage = true;
    return absl::OkStatus();
  }
  absl::Status operator()(const EntrypointInstruction& entrypoint) {
    c().entrypoint = CommandArgs(entrypoint.command, *stage);
    // The Dockerfile reference: ENTRYPOINT resets a CMD inherited from the
    // base; only a CMD of this stage survives it.
    if (!stage->cmd_set_in_stage) c().cmd.clear();
    return absl::OkStatus();
  }
  absl::Status operator()(const ShellInstruction& shell) {
    stage->shell = shell.shell;
    // Shell, Healthcheck and OnBuild are Docker's config fields, outside the OCI
    // spec: kept as extra fields so Docker reads them and a child build inherits them.
    c().unknown_fields["Shell"] = nlohmann::json(shell.shell).dump();
    return absl::OkStatus();
  }
  absl::Status operator()(const StopSignalInstruction& signal) {
    c().stop_signal = signal.signal;
    return absl::OkStatus();
  }
  absl::Status operator()(const HealthcheckInstruction& hc) {
    c().unknown_fields["Healthcheck"] = Healthcheck(hc);
    return absl::OkStatus();
  }
  absl::Status operator()(const MaintainerInstruction& maintainer) {
    stage->image.author = maintainer.name;
    return absl::OkStatus();
  }
  absl::Status operator()(const OnbuildInstruction& onbuild) {
    nlohmann::json list = nlohmann::json::array();
    auto it = c().unknown_fields.find("OnBuild");
    if (it != c().unknown_fields.end()) {
      list = base::ParseJson(it->second).value_or(nlohmann::json::value_t::discarded);
      if (!list.is_array()) list = nlohmann::json::array();
    }
    list.push_back(onbuild.trigger);
    c().unknown_fields["OnBuild"] = list.dump();
    return absl::OkStatus();
  }
  // The builder handles these itself.
  template <typename T>
  absl::Status operator()(const T&) {
    std::fprintf(stderr, "ApplyMetadata: not a metadata instruction\n");
    std::abort();
  }
};

}  // namespace

StageConfig StageConfigFromBase(const oci::ImageConfig& base) {
  StageConfig stage;
  stage.image = base;
  // A SHELL of the base image applies to this stage's RUN, as in Docker.
  auto it = base.config.unknown_fields.find("Shell");
  if (it != base.config.unknown_fields.end()) {
    nlohmann::json shell = base::ParseJson(it->second).value_or(nlohmann::json::value_t::discarded);
    if (shell.is_array() && !shell.empty()) {
      std::vector<std::string> argv;
      for (const auto& arg : shell) {
        if (arg.is_string()) argv.push_back(arg.get<std::string>());
      }
      if (argv.size() == shell.size()) stage.shell = argv;
    }
  }
  return stage;
}

absl::Status ApplyMetadata(const Instruction& instruction, StageConfig* stage) {
  return std::visit(Applier{stage}, instruction.body);
}

}  // namespace trainpkg::packager::builder
