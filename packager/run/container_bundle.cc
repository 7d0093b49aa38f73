#include "packager/run/container_bundle.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "packager/run/seccomp_profile.h"

namespace trainpkg::packager::run {
namespace {

using Json = nlohmann::json;

constexpr uint64_t kMaxNoFile = 1048576;

// RLIMIT_NOFILE for the container: this process's hard limit (capped), as
// raising it needs CAP_SYS_RESOURCE, which sandboxes may withhold.
uint64_t NoFileLimit() {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_max == RLIM_INFINITY) {
    return kMaxNoFile;
  }
  return std::min<uint64_t>(limit.rlim_max, kMaxNoFile);
}

// Docker's default set (moby oci/caps/defaults.go) without CAP_MKNOD (no
// device nodes) and CAP_NET_RAW (no raw sockets, no packet spoofing), and
// without CAP_SETFCAP when `protect_host_files`.
std::vector<std::string> Capabilities(bool protect_host_files) {
  std::vector<std::string> caps = {"CAP_CHOWN",   "CAP_DAC_OVERRIDE",     "CAP_FSETID",
                                   "CAP_FOWNER",  "CAP_SETGID",           "CAP_SETUID",
                                   "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
                                   "CAP_KILL",    "CAP_AUDIT_WRITE"};
  if (!protect_host_files) caps.push_back("CAP_SETFCAP");
  return caps;
}

Json Mount(std::string destination, std::string type, std::string source,
           std::vector<std::string> options) {
  return Json{{"destination", std::move(destination)},
              {"type", std::move(type)},
              {"source", std::move(source)},
              {"options", std::move(options)}};
}

absl::StatusOr<Json> Device(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("device {}", path.string()));
  }
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
    return absl::InvalidArgumentError(fmt::format("{} is not a device node", path.string()));
  }
  return Json{{"path", path.string()},
              {"type", S_ISCHR(st.st_mode) ? "c" : "b"},
              {"major", major(st.st_rdev)},
              {"minor", minor(st.st_rdev)},
              {"fileMode", st.st_mode & 0777},
              {"uid", 0},
              {"gid", 0}};
}

}  // namespace

absl::Status WriteContainerBundle(const ContainerBundle& bundle) {
  std::error_code ec;
  const std::filesystem::path made =
      bundle.private_tmp ? bundle.bundle_dir / "tmp" : bundle.bundle_dir;
  std::filesystem::create_directories(made, ec);
  if (ec) {
    return absl::PermissionDeniedError(fmt::format("creating {}: {}", made.string(), ec.message()));
  }
  if (bundle.private_tmp) {
    // Sticky and world-writable, as /tmp is: the command may run as any user.
    std::filesystem::permissions(made, std::filesystem::perms(01777), ec);
  }

  const std::vector<std::string> caps = Capabilities(bundle.protect_host_files);
  Json user{{"uid", bundle.user.uid}, {"gid", bundle.user.gid}};
  if (!bundle.user.additional_gids.empty()) user["additionalGids"] = bundle.user.additional_gids;
  Json process{
      {"terminal", false},
      {"user", user},
      {"args", bundle.args},
      {"env", bundle.env},
      {"cwd", bundle.cwd},
      {"capabilities", {{"bounding", caps}, {"effective", caps}, {"permitted", caps}}},
      {"rlimits",
       Json::array(
           {{{"type", "RLIMIT_NOFILE"}, {"hard", NoFileLimit()}, {"soft", NoFileLimit()}}})},
      // No setuid binary or file capability in the image can raise the
      // privileges of what RUN starts.
      {"noNewPrivileges", true},
  };
  Json mounts = Json::array({
      Mount("/proc", "proc", "proc", {}),
      Mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}),
      Mount("/dev/pts", "devpts", "devpts",
            {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}),
      bundle.shared_shm.empty()
          ? Mount("/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777"})
          : Mount("/dev/shm", "bind", bundle.shared_shm.string(),
                  {"rbind", "rw", "nosuid", "noexec", "nodev"}),
      Mount("/dev/mqueue", "mqueue", "mqueue", {"nosuid", "noexec", "nodev"}),
      Mount("/sys", "sysfs", "sysfs", {"nosuid", "noexec", "nodev", "ro"}),
  });
  if (bundle.private_tmp) {
    mounts.push_back(Mount("/tmp", "bind", (bundle.bundle_dir / "tmp").string(),
                           {"rbind", "rw", "nosuid", "nodev"}));
  }
  for (const std::filesystem::path& path : bundle.bind_mounts) {
    mounts.push_back(
        Mount(path.string(), "bind", path.string(), {"rbind", "rw", "nosuid", "nodev"}));
  }
  for (const ReadOnlyFile& file : bundle.readonly_files) {
    mounts.push_back(
        Mount(file.destination, "bind", file.source.string(), {"bind", "ro", "nosuid", "nodev"}));
  }
  Json devices = Json::array();
  // Every device denied first; the rules after it allow only the devices the
  // caller passed in.
  Json allowed = Json::array({{{"allow", false}, {"access", "rwm"}}});
  for (const std::filesystem::path& path : bundle.devices) {
    TP_ASSIGN_OR_RETURN(Json device, Device(path));
    allowed.push_back({{"allow", true},
                       {"type", device["type"]},
                       {"major", device["major"]},
                       {"minor", device["minor"]},
                       {"access", "rwm"}});
    devices.push_back(std::move(device));
  }
  Json namespaces =
      Json::array({{{"type", "pid"}}, {{"type", "ipc"}}, {{"type", "mount"}}, {{"type", "uts"}}});
  if (!bundle.network_namespace.empty()) {
    namespaces.push_back({{"type", "network"}, {"path", bundle.network_namespace.string()}});
  }
  Json config{
      {"ociVersion", "1.0.2"},
      {"hostname", bundle.hostname},
      {"process", process},
      {"root", {{"path", bundle.rootfs.string()}, {"readonly", bundle.readonly_rootfs}}},
      {"mounts", mounts},
      {"linux",
       {{"namespaces", std::move(namespaces)},
        {"seccomp", SeccompProfile({.forbid_set_id_modes = bundle.protect_host_files})},
        {"devices", devices},
        {"resources", {{"devices", allowed}}},
        // Docker's defaults (moby oci/defaults.go): kernel and hardware details a
        // build has no reason to read, and /proc knobs it must not turn.
        {"maskedPaths",
         {"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
          "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
          "/proc/scsi"}},
        {"readonlyPaths",
         {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}}}},
  };
  return base::WriteFileAtomic(bundle.bundle_dir / "config.json", config.dump(2));
}

}  // namespace trainpkg::packager::run
