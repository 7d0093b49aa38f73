#include "tests/test_util/runc_bundle.h"

#include <fstream>

#include "nlohmann/json.hpp"
#include "tests/test_util/file.h"

namespace trainpkg::testing {

ShellResult RunBundleWithRunc(const std::filesystem::path& bundle_dir, const std::string& id,
                              const std::vector<std::string>& args) {
  const std::filesystem::path config_path = bundle_dir / "config.json";
  nlohmann::json config = nlohmann::json::parse(Slurp(config_path));
  config["process"]["terminal"] = false;
  if (!args.empty()) config["process"]["args"] = args;
  nlohmann::json namespaces = nlohmann::json::array();
  for (const auto& ns : config["linux"]["namespaces"]) {
    if (ns["type"] != "network") namespaces.push_back(ns);
  }
  config["linux"]["namespaces"] = namespaces;
  std::ofstream(config_path) << config.dump();
  ShellResult run = Sh("cd " + ShellQuote(bundle_dir.string()) + " && runc run " + ShellQuote(id));
  Sh("runc delete -f " + ShellQuote(id));
  return run;
}

}  // namespace trainpkg::testing
