#include "packager/dockerfile/build_plan.h"

#include <functional>
#include <set>

#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/dockerfile/expand.h"
#include "packager/dockerfile/internal/parse_error.h"
#include "packager/dockerfile/shell_word.h"

namespace trainpkg::packager::dockerfile {
namespace {

// TARGETPLATFORM, TARGETOS, TARGETARCH, TARGETVARIANT and the BUILD* ones.
std::map<std::string, std::string> AutomaticArgs(const std::string& platform) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t slash = platform.find('/', start);
    parts.push_back(platform.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  // "linux/amd64" has no variant: TARGETVARIANT is then empty, as in BuildKit.
  parts.resize(3);
  std::map<std::string, std::string> out;
  // RUN runs natively here (no emulation), so the build platform is the target.
  for (const char* prefix : {"TARGET", "BUILD"}) {
    std::string p(prefix);
    out[p + "PLATFORM"] = platform;
    out[p + "OS"] = parts[0];
    out[p + "ARCH"] = parts[1];
    out[p + "VARIANT"] = parts[2];
  }
  return out;
}

// Docker's predefined proxy args: usable by RUN without an ARG.
const std::set<std::string>& ProxyArgs() {
  static const auto* kProxyArgs = new std::set<std::string>{
      "HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "FTP_PROXY",
      "ftp_proxy",  "NO_PROXY",   "no_proxy",    "ALL_PROXY",   "all_proxy"};
  return *kProxyArgs;
}

bool AlwaysConsumed(const std::string& name) {
  return ProxyArgs().count(name) != 0 || name == "SOURCE_DATE_EPOCH" ||
         name.rfind("BUILDKIT_", 0) == 0;
}

template <typename Map>
std::optional<std::string> Find(const Map& m, const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

// Declares the ARGs of an (expanded) ARG instruction in a stage scope.
void DeclareStageArgs(const ArgInstruction& arg, const BuildPlan& plan, const BuildOptions& options,
                      VarScope& scope) {
  for (const ArgInstruction::Arg& a : arg.args) {
    std::optional<std::string> value = Find(options.build_args, a.name);
    if (!value) value = a.default_value;
    if (!value) {
      if (auto global = Find(plan.global_scope.args(), a.name)) value = *global;
    }
    scope.SetArg(a.name, value);
  }
}

absl::StatusOr<VarScope> GlobalScope(const Dockerfile& df, const BuildOptions& options) {
  VarScope scope;
  const std::map<std::string, std::string> automatic = AutomaticArgs(options.platform);
  for (const auto& [k, v] : automatic) scope.SetArg(k, v);
  for (const Instruction& instr : df.global_args) {
    TP_ASSIGN_OR_RETURN(Instruction e, ExpandInstruction(instr, scope, df.escape, df.path));
    for (const ArgInstruction::Arg& a : std::get<ArgInstruction>(e.body).args) {
      std::optional<std::string> value = Find(options.build_args, a.name);
      if (!value) value = a.default_value;
      // A global `ARG TARGETARCH` without a default keeps the automatic value
      // rather than unsetting it.
      if (!value) value = Find(automatic, a.name);
      scope.SetArg(a.name, value);
    }
  }
  return scope;
}

int StageByName(const Dockerfile& df, const std::string& name) {
  // Stage names are matched case-insensitively, as Docker does (the parser
  // stores them lower-cased).
  std::string lower = absl::AsciiStrToLower(name);
  for (const Stage& s : df.stages) {
    if (!s.name.empty() && s.name == lower) return s.index;
  }
  return -1;
}

absl::StatusOr<BaseImage> ResolveBase(const Dockerfile& df, const Stage& stage,
                                      const VarScope& global) {
  TP_ASSIGN_OR_RETURN(Instruction e, ExpandInstruction(stage.from, global, df.escape, df.path));
  const auto& from = std::get<FromInstruction>(e.body);
  BaseImage base;
  base.platform = from.platform;
  int named = StageByName(df, from.image);
  if (named >= stage.index) {
    return internal::LineError(
        df.path, stage.from.lines, "FROM",
        fmt::format("stage '{}' is defined at line {}, after this FROM; FROM can only use "
                    "earlier stages",
                    from.image, df.stages[named].from.lines.first_line));
  }
  if (named >= 0) {
    base.kind = BaseImage::Kind::kStage;
    base.stage = named;
  } else if (from.image == "scratch") {
    base.kind = BaseImage::Kind::kScratch;
  } else if (from.image.rfind("oci:", 0) == 0) {
    base.kind = BaseImage::Kind::kOciLayout;
    std::string rest = from.image.substr(4);
    size_t colon = rest.find(':');
    base.oci_dir = rest.substr(0, colon);
    if (colon != std::string::npos) base.oci_ref = rest.substr(colon + 1);
    if (base.oci_dir.empty()) {
      return internal::LineError(
          df.path, stage.from.lines, "FROM",
          fmt::format("'{}' names no directory; write oci:DIR[:TAG]", from.image));
    }
  } else {
    base.kind = BaseImage::Kind::kRegistry;
    base.reference = from.image;
  }
  return base;
}

absl::StatusOr<CopyFrom> ResolveCopyFrom(const Dockerfile& df, const Stage& stage,
                                         const Instruction& instr, const std::string& from) {
  auto error = [&](std::string message) {
    return internal::LineError(df.path, instr.lines, instr.keyword, message);
  };
  CopyFrom out;
  if (!from.empty() && from.find_first_not_of("0123456789") == std::string::npos) {
    // The length bound keeps std::stoi from overflowing on a long digit string.
    if (from.size() > 6 || std::stoi(from) >= static_cast<int>(df.stages.size())) {
      return error(fmt::format("--from={}: no stage has that index; stages are 0 to {}", from,
                               df.stages.size() - 1));
    }
    out.stage = std::stoi(from);
  } else {
    out.stage = StageByName(df, from);
  }
  if (out.stage == stage.index) {
    return error(fmt::format("--from={} names this stage; a stage can't copy from itself", from));
  }
  // A --from that names no stage is an image reference, as in Docker.
  if (out.stage < 0) {
    out.kind = CopyFrom::Kind::kImage;
    out.image = from;
  }
  return out;
}

// The COPY --from of every stage, expanded with ARG values only.
absl::Status ResolveCopies(const Dockerfile& df, const BuildOptions& options, BuildPlan& plan) {
  for (const Stage& stage : df.stages) {
    VarScope scope;
    VarLookup lookup = [&scope](std::string_view n) { return scope.Lookup(n); };
    for (size_t i = 0; i < stage.instructions.size(); ++i) {
      const Instruction& instr = stage.instructions[i];
      if (std::holds_alternative<ArgInstruction>(instr.body)) {
        TP_ASSIGN_OR_RETURN(Instruction e, ExpandInstruction(instr, scope, df.escape, df.path));
        DeclareStageArgs(std::get<ArgInstruction>(e.body), plan, options, scope);
      }
      const auto* copy = std::get_if<CopyInstruction>(&instr.body);
      if (copy == nullptr || copy->from.empty()) continue;
      absl::StatusOr<std::string> from = ExpandWord(copy->from, lookup, df.escape);
      if (!from.ok()) {
        return internal::LineError(df.path, instr.lines, instr.keyword,
                                   fmt::format("--from: {}", std::string(from.status().message())));
      }
      TP_ASSIGN_OR_RETURN(CopyFrom source, ResolveCopyFrom(df, stage, instr, *from));
      plan.stages[stage.index].copy_from[i] = source;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> SelectTarget(const Dockerfile& df, const std::string& target) {
  if (target.empty()) return static_cast<int>(df.stages.size()) - 1;
  int index = StageByName(df, target);
  if (index >= 0) return index;
  std::vector<std::string_view> names;
  for (const Stage& s : df.stages) {
    if (!s.name.empty()) names.push_back(s.name);
  }
  std::string near(base::ClosestMatch(target, names).value_or(""));
  std::string list;
  for (std::string_view n : names) list += (list.empty() ? "" : ", ") + std::string(n);
  return absl::InvalidArgumentError(
      fmt::format("{}: target stage '{}' could not be found{}; named stages: {}", df.path, target,
                  near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near),
                  list.empty() ? "none" : list));
}

// Depth-first from the target: dependencies first; a stage met again while
// still open closes a cycle.
absl::Status OrderStages(const Dockerfile& df, BuildPlan& plan) {
  std::vector<int> state(df.stages.size(), 0);  // 0 new, 1 open, 2 done
  std::vector<int> path;
  std::function<absl::Status(int)> visit = [&](int i) -> absl::Status {
    if (state[i] == 2) return absl::OkStatus();
    if (state[i] == 1) {
      std::string chain;
      bool in = false;
      for (int p : path) {
        in = in || p == i;
        if (in)
          chain += fmt::format("{} -> ",
                               df.stages[p].name.empty() ? std::to_string(p) : df.stages[p].name);
      }
      chain += df.stages[i].name.empty() ? std::to_string(i) : df.stages[i].name;
      return internal::LineError(df.path, df.stages[i].from.lines, "FROM",
                                 fmt::format("circular dependency between stages: {}", chain));
    }
    state[i] = 1;
    path.push_back(i);
    for (int d : plan.stages[i].depends_on) TP_RETURN_IF_ERROR(visit(d));
    path.pop_back();
    state[i] = 2;
    plan.order.push_back(i);
    return absl::OkStatus();
  };
  return visit(plan.target);
}

void WarnUnusedBuildArgs(const Dockerfile& df, const BuildOptions& options, BuildPlan& plan) {
  std::set<std::string> declared;
  auto declare = [&](const Instruction& instr) {
    if (const auto* arg = std::get_if<ArgInstruction>(&instr.body)) {
      for (const ArgInstruction::Arg& a : arg->args) declared.insert(a.name);
    }
  };
  for (const Instruction& instr : df.global_args) declare(instr);
  for (int i : plan.order) {
    for (const Instruction& instr : df.stages[i].instructions) declare(instr);
  }
  std::string unused;
  for (const auto& [name, value] : options.build_args) {
    if (declared.count(name) == 0 && !AlwaysConsumed(name))
      unused += (unused.empty() ? "" : " ") + name;
  }
  if (!unused.empty()) {
    plan.warnings.push_back(fmt::format(
        "{}: one or more build-args [{}] were not consumed; declare them with ARG in a stage "
        "that is built",
        df.path, unused));
  }
}

}  // namespace

absl::StatusOr<BuildPlan> PlanBuild(const Dockerfile& df, const BuildOptions& options) {
  BuildPlan plan;
  TP_ASSIGN_OR_RETURN(plan.global_scope, GlobalScope(df, options));
  plan.stages.resize(df.stages.size());
  for (const Stage& stage : df.stages) {
    TP_ASSIGN_OR_RETURN(plan.stages[stage.index].base, ResolveBase(df, stage, plan.global_scope));
  }
  TP_RETURN_IF_ERROR(ResolveCopies(df, options, plan));
  for (PlannedStage& s : plan.stages) {
    std::set<int> deps;
    if (s.base.kind == BaseImage::Kind::kStage) deps.insert(s.base.stage);
    for (const auto& [i, from] : s.copy_from) {
      if (from.kind == CopyFrom::Kind::kStage) deps.insert(from.stage);
    }
    s.depends_on.assign(deps.begin(), deps.end());
  }
  TP_ASSIGN_OR_RETURN(plan.target, SelectTarget(df, options.target));
  TP_RETURN_IF_ERROR(OrderStages(df, plan));
  WarnUnusedBuildArgs(df, options, plan);
  return plan;
}

absl::StatusOr<ExpandedStage> ExpandStage(const Dockerfile& df, const BuildPlan& plan,
                                          const BuildOptions& options, int stage,
                                          const std::vector<std::string>& base_env) {
  ExpandedStage out;
  for (const std::string& kv : base_env) {
    size_t eq = kv.find('=');
    out.scope.SetEnv(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
  }
  for (const Instruction& instr : df.stages.at(stage).instructions) {
    TP_ASSIGN_OR_RETURN(Instruction e, ExpandInstruction(instr, out.scope, df.escape, df.path));
    if (const auto* arg = std::get_if<ArgInstruction>(&e.body)) {
      DeclareStageArgs(*arg, plan, options, out.scope);
    } else if (const auto* env = std::get_if<EnvInstruction>(&e.body)) {
      for (const KeyValue& kv : env->vars) out.scope.SetEnv(kv.key, kv.value);
    } else if (std::holds_alternative<RunInstruction>(e.body)) {
      // Docker: an ENV of the same name always overrides an ARG, so such an ARG
      // is not passed again (the ENV is already in the environment).
      auto hidden = [&out](const std::string& name) {
        for (const auto& [env_name, env_value] : out.scope.env()) {
          if (env_name == name) return true;
        }
        return false;
      };
      std::vector<std::string>& args = out.run_args[out.instructions.size()];
      for (const auto& [name, value] : out.scope.args()) {
        if (value && !hidden(name)) args.push_back(fmt::format("{}={}", name, *value));
      }
      for (const auto& [name, value] : options.build_args) {
        if (ProxyArgs().count(name) == 0 || out.scope.args().contains(name) || hidden(name)) {
          continue;
        }
        out.run_proxy_args[out.instructions.size()].push_back(fmt::format("{}={}", name, value));
      }
    }
    out.instructions.push_back(std::move(e));
  }
  return out;
}

}  // namespace trainpkg::packager::dockerfile
