#include "sdk/cli/images_command.h"

#include "fmt/format.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/image_builder.h"

namespace trainpkg::cli {
namespace {

std::string HumanSize(int64_t bytes) {
  if (bytes < 1000) return fmt::format("{}B", bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.1f}kB", bytes / 1e3);
  if (bytes < 1000LL * 1000 * 1000) return fmt::format("{:.1f}MB", bytes / 1e6);
  return fmt::format("{:.2f}GB", bytes / 1e9);
}

}  // namespace

CLI::App* AddImagesCommand(CLI::App& app, ImagesFlags& flags) {
  CLI::App* images = app.add_subcommand("images", "List the images of the local store");
  images->add_flag("--no-trunc", flags.no_trunc, "Show full image IDs");
  return images;
}

int RunImagesCommand(const ImagesFlags& flags, std::ostream& out, std::ostream& err) {
  auto images = sdk::ListImages(base::ProcessEnvironment());
  if (!images.ok()) return ReportError(err, images.status(), kExitFailed);
  std::string format =
      "{:<40} {:<16} {:<" + std::to_string(flags.no_trunc ? 71 : 12) + "} {:<20} {}\n";
  out << fmt::format(fmt::runtime(format), "REPOSITORY", "TAG", "IMAGE ID", "CREATED", "SIZE");
  for (const auto& image : *images) {
    std::string id =
        flags.no_trunc ? image.config_digest.ToString() : image.config_digest.hex().substr(0, 12);
    out << fmt::format(fmt::runtime(format), image.repository, image.tag, id, image.created,
                       HumanSize(image.size));
  }
  return kExitOk;
}

}  // namespace trainpkg::cli
