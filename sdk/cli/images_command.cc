#include "sdk/cli/images_command.h"

#include <fnmatch.h>

#include <optional>

#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "sdk/cli/exit_codes.h"
#include "sdk/image_builder.h"
#include "sdk/local_images.h"

namespace trainpkg::cli {
namespace {

using packager::builder::StoredImage;

void AddListFlags(CLI::App* command, ImagesFlags& flags) {
  command->add_flag("--no-trunc", flags.no_trunc, "Show full image IDs");
  command->add_flag("-q,--quiet", flags.quiet, "Print only image IDs");
  command
      ->add_option("--format", flags.format,
                   "table (the default) or json (one object per line, docker's keys)")
      ->check(CLI::IsMember({"table", "json"}));
  command
      ->add_option("--filter", flags.filters,
                   "reference=PATTERN (glob over NAME[:TAG], docker's familiar names) or "
                   "dangling=true|false (untagged images); repeatable, all must match")
      ->allow_extra_args(false);
}

struct Filters {
  std::vector<std::string> references;
  std::optional<bool> dangling;
};

absl::StatusOr<Filters> ParseFilters(const std::vector<std::string>& values) {
  Filters filters;
  for (const std::string& value : values) {
    const size_t eq = value.find('=');
    const std::string key = value.substr(0, eq);
    const std::string arg = eq == std::string::npos ? "" : value.substr(eq + 1);
    if (key == "reference" && !arg.empty()) {
      filters.references.push_back(arg);
    } else if (key == "dangling" && (arg == "true" || arg == "false")) {
      filters.dangling = arg == "true";
    } else {
      return absl::InvalidArgumentError(
          fmt::format("--filter \"{}\": expected reference=PATTERN or dangling=true|false", value));
    }
  }
  return filters;
}

bool MatchesReference(const StoredImage& image, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  const std::string with_tag = image.repository + ":" + image.tag;
  for (const std::string& pattern : patterns) {
    if (::fnmatch(pattern.c_str(), image.repository.c_str(), FNM_PATHNAME) == 0 ||
        ::fnmatch(pattern.c_str(), with_tag.c_str(), FNM_PATHNAME) == 0) {
      return true;
    }
  }
  return false;
}

int List(const ImagesFlags& flags, std::ostream& out, std::ostream& err) {
  absl::StatusOr<Filters> filters = ParseFilters(flags.filters);
  if (!filters.ok()) return ReportError(err, filters.status(), kExitUsage);
  const base::Environment& env = base::ProcessEnvironment();
  std::vector<StoredImage> rows;
  if (!filters->dangling.value_or(false)) {
    auto images = sdk::ListImages(env);
    if (!images.ok()) return ReportError(err, images.status(), kExitFailed);
    rows = *std::move(images);
  }
  if (filters->dangling.value_or(true) && filters->references.empty()) {
    auto dangling = sdk::ListDanglingImages(env);
    if (!dangling.ok()) return ReportError(err, dangling.status(), kExitFailed);
    rows.insert(rows.end(), dangling->begin(), dangling->end());
  }
  std::erase_if(rows, [&](const StoredImage& image) {
    return !MatchesReference(image, filters->references);
  });
  const std::string format =
      "{:<40} {:<16} {:<" + std::to_string(flags.no_trunc ? 71 : 12) + "} {:<20} {}\n";
  if (!flags.quiet && flags.format == "table") {
    out << fmt::format(fmt::runtime(format), "REPOSITORY", "TAG", "IMAGE ID", "CREATED", "SIZE");
  }
  for (const StoredImage& image : rows) {
    const std::string id =
        flags.no_trunc ? image.config_digest.ToString() : image.config_digest.hex().substr(0, 12);
    if (flags.quiet) {
      out << id << "\n";
    } else if (flags.format == "json") {
      nlohmann::json row = {{"ID", image.config_digest.ToString()},
                            {"Repository", image.repository},
                            {"Tag", image.tag},
                            {"Digest", image.manifest_digest.ToString()},
                            {"CreatedAt", image.created},
                            {"Size", sdk::HumanSize(image.size)},
                            {"VirtualSize", sdk::HumanSize(image.size)}};
      out << row.dump() << "\n";
    } else {
      out << fmt::format(fmt::runtime(format), image.repository, image.tag, id, image.created,
                         sdk::HumanSize(image.size));
    }
  }
  return kExitOk;
}

int Remove(const ImagesFlags& flags, std::ostream& out, std::ostream& err) {
  int code = kExitOk;
  for (const std::string& what : flags.images) {
    auto removed = sdk::RemoveImage(base::ProcessEnvironment(), what, flags.force);
    if (!removed.ok()) {
      code = ReportError(err, removed.status(), kExitFailed);
      continue;
    }
    for (const std::string& name : removed->untagged) out << "Untagged: " << name << "\n";
    for (const std::string& digest : removed->deleted) out << "Deleted: " << digest << "\n";
  }
  return code;
}

int Inspect(const ImagesFlags& flags, std::ostream& out, std::ostream& err) {
  int code = kExitOk;
  std::vector<std::string> objects;
  for (const std::string& what : flags.images) {
    auto inspected = sdk::InspectImage(base::ProcessEnvironment(), what);
    if (!inspected.ok()) {
      code = ReportError(err, inspected.status(), kExitFailed);
      continue;
    }
    objects.push_back(*std::move(inspected));
  }
  // A JSON array, as `docker image inspect` prints it ([] when none matched).
  out << "[";
  for (size_t i = 0; i < objects.size(); ++i) out << (i == 0 ? "\n" : ",\n") << objects[i];
  out << (objects.empty() ? "]\n" : "\n]\n");
  return code;
}

int Prune(const ImagesFlags& flags, bool system, std::istream& in, std::ostream& out,
          std::ostream& err) {
  if (!flags.force) {
    out << "WARNING! This will remove:\n";
    out << (flags.all ? "  - all images\n" : "  - all dangling images\n");
    if (system) {
      out << "  - the build cache\n  - unpacked root filesystems of images no longer stored\n";
    }
    out << "Are you sure you want to continue? [y/N] " << std::flush;
    std::string answer;
    std::getline(in, answer);
    if (answer != "y" && answer != "Y" && answer != "yes") return kExitOk;
  }
  sdk::PruneOptions options;
  options.all = flags.all;
  options.system = system;
  auto report = sdk::PruneImages(base::ProcessEnvironment(), options);
  if (!report.ok()) return ReportError(err, report.status(), kExitFailed);
  if (!report->untagged.empty() || !report->deleted.empty()) {
    out << "Deleted Images:\n";
    for (const std::string& name : report->untagged) out << "untagged: " << name << "\n";
    for (const std::string& digest : report->deleted) out << "deleted: " << digest << "\n";
    out << "\n";
  }
  if (system) {
    out << fmt::format("Deleted build cache objects: {}\n", report->build_cache_entries);
    for (const std::string& rootfs : report->rootfs) out << "deleted rootfs: " << rootfs << "\n";
  }
  out << fmt::format("Deleted blobs: {}\n", report->blobs);
  out << "Total reclaimed space: " << sdk::HumanSize(report->bytes) << "\n";
  return kExitOk;
}

}  // namespace

ImagesCommands AddImagesCommands(CLI::App& app, ImagesFlags& flags) {
  ImagesCommands commands;
  commands.images = app.add_subcommand("images", "List and manage the images of the local store");
  commands.images->require_subcommand(0, 1);
  commands.images->footer(
      "Examples:\n"
      "  trainpkg images --filter reference='trainer*' --format json\n"
      "  trainpkg images rm trainer:v1\n"
      "  trainpkg images prune -f   # dangling images; -a: every image\n"
      "Exit code: 0 done, 1 an image was not found or could not be removed, 2 invalid flags.");
  AddListFlags(commands.images, flags);
  commands.ls = commands.images->add_subcommand("ls", "List images (what `trainpkg images` does)");
  AddListFlags(commands.ls, flags);

  commands.rm = commands.images->add_subcommand(
      "rm",
      "Untag images; an image losing its last tag is deleted (its blobs no other image "
      "or the build cache needs)");
  commands.rm->add_option("IMAGE", flags.images, "NAME[:TAG], or an image ID (prefix)")->required();
  commands.rm->add_flag("-f,--force", flags.force,
                        "Remove every tag of an image given by ID (otherwise refused when it has "
                        "several)");

  commands.tag = commands.images->add_subcommand("tag", "Tag SOURCE (reference or ID) as TARGET");
  commands.tag->add_option("SOURCE_TARGET", flags.images, "SOURCE TARGET")->required()->expected(2);

  commands.inspect = commands.images->add_subcommand(
      "inspect", "Print images as a JSON array: Id, RepoTags, Digest, Manifest, Config");
  commands.inspect->add_option("IMAGE", flags.images, "NAME[:TAG], or an image ID (prefix)")
      ->required();

  commands.prune = commands.images->add_subcommand(
      "prune",
      "Delete dangling images (manifests no tag reaches) and blobs nothing references; "
      "prints what went and the space reclaimed");
  commands.prune->add_flag("-a,--all", flags.all, "Delete every image, tagged or not");
  commands.prune->add_flag("-f,--force", flags.force, "Do not prompt for confirmation");

  commands.system = app.add_subcommand("system", "Manage the trainpkg home");
  commands.system->require_subcommand(1);
  commands.system_prune = commands.system->add_subcommand(
      "prune",
      "Delete dangling images, the build cache ($TRAINPKG_HOME/build-cache) and the unpacked "
      "root filesystems ($TRAINPKG_HOME/rootfs) of images no longer stored; blobs a remaining "
      "image needs stay");
  commands.system_prune->add_flag("-a,--all", flags.all, "Delete every image too");
  commands.system_prune->add_flag("-f,--force", flags.force, "Do not prompt for confirmation");
  return commands;
}

int RunImagesCommand(const ImagesCommands& commands, const ImagesFlags& flags, std::istream& in,
                     std::ostream& out, std::ostream& err) {
  if (commands.system_prune->parsed()) return Prune(flags, true, in, out, err);
  if (commands.prune->parsed()) return Prune(flags, false, in, out, err);
  if (commands.rm->parsed()) return Remove(flags, out, err);
  if (commands.inspect->parsed()) return Inspect(flags, out, err);
  if (commands.tag->parsed()) {
    auto tagged = sdk::TagImage(base::ProcessEnvironment(), flags.images[0], flags.images[1]);
    if (!tagged.ok()) {
      return ReportError(err, tagged.status(),
                         absl::IsInvalidArgument(tagged.status()) ? kExitUsage : kExitFailed);
    }
    return kExitOk;
  }
  return List(flags, out, err);
}

}  // namespace trainpkg::cli
