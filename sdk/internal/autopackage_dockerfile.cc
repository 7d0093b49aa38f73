#include "sdk/internal/autopackage_dockerfile.h"

#include <filesystem>

#include "absl/strings/str_replace.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::internal {
namespace {

constexpr char kWorkdir[] = "/usr/app";
constexpr char kHome[] = "/home";

// A JSON array: exec-form RUN/ENTRYPOINT, and COPY's form that takes any
// file name.
std::string JsonArray(const std::vector<std::string>& words) {
  return nlohmann::json(words).dump();
}

std::string PipInstall(std::vector<std::string> args) {
  std::vector<std::string> words = {"python3", "-m", "pip", "install", "--no-cache-dir"};
  words.insert(words.end(), args.begin(), args.end());
  return fmt::format("RUN {}\n", JsonArray(words));
}

std::string Copy(const std::string& from, const std::string& to) {
  return fmt::format("COPY {}\n", JsonArray({from, to}));
}

// The directory holding the main file ("." for the package's top).
std::string MainDir(const jobspec::Autopackaging& spec) {
  std::string dir = std::filesystem::path(MainFile(spec)).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

std::string MainFile(const jobspec::Autopackaging& spec) {
  if (!spec.script.empty()) return spec.script;
  return absl::StrReplaceAll(spec.python_module, {{".", "/"}}) + ".py";
}

std::vector<std::string> CopiedPaths(const jobspec::Autopackaging& spec,
                                     const PackageLayout& layout) {
  std::vector<std::string> paths;
  if (layout.has_setup_py) paths.push_back("setup.py");
  if (layout.has_requirements_txt) paths.push_back("requirements.txt");
  paths.insert(paths.end(), spec.extra_packages.begin(), spec.extra_packages.end());
  paths.insert(paths.end(), spec.extra_dirs.begin(), spec.extra_dirs.end());
  paths.push_back(MainDir(spec));
  return paths;
}

std::string AutopackageDockerfileBody(const jobspec::Autopackaging& spec,
                                      const PackageLayout& layout) {
  // Build args reach RUN only: Debian's Python is "externally managed"
  // (PEP 668), which pip >= 23 refuses to install into without the first.
  std::string out =
      "ARG PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore "
      "PIP_DISABLE_PIP_VERSION_CHECK=1\n";
  // gcloud: any user may write the working directory and $HOME.
  out += fmt::format("RUN {}\n", JsonArray({"mkdir", "-m", "777", "-p", kWorkdir, kHome}));
  out += fmt::format("WORKDIR {}\nENV HOME={}\nENV PYTHONDONTWRITEBYTECODE=1\n", kWorkdir, kHome);
  if (layout.has_setup_py) {
    // Only setup.py, as gcloud does: this installs what it requires.
    out += Copy("setup.py", "./setup.py") + PipInstall({"."});
  }
  if (layout.has_requirements_txt) {
    out +=
        Copy("requirements.txt", "./requirements.txt") + PipInstall({"-r", "./requirements.txt"});
  }
  for (const std::string& package : spec.extra_packages) {
    std::string name = "./" + std::filesystem::path(package).filename().string();
    out += Copy(package, name) + PipInstall({name});
  }
  for (const std::string& requirement : spec.requirements) {
    out += PipInstall({"--upgrade", requirement});
  }
  for (const std::string& dir : spec.extra_dirs) out += Copy(dir, dir);
  const std::string main_dir = MainDir(spec);
  // Only the main file's directory, as gcloud's local-run copies it.
  out += Copy(main_dir, main_dir);
  std::vector<std::string> entrypoint;
  // gcloud's entrypoint rule: a module runs with -m, a .py script with
  // python3, any other script with bash.
  if (!spec.python_module.empty()) {
    entrypoint = {"python3", "-m", spec.python_module};
  } else if (spec.script.ends_with(".py")) {
    entrypoint = {"python3", spec.script};
  } else {
    entrypoint = {"/bin/bash", spec.script};
  }
  out += fmt::format("ENTRYPOINT {}\n", JsonArray(entrypoint));
  return out;
}

}  // namespace trainpkg::sdk::internal
