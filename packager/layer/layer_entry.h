// What goes into a layer: entries that map files of a source root (the build
// context) to paths in the image, plus whiteouts for deletion layers.
//
//   LayerSource src{.root = "/ctx", .entries = {
//       LayerEntry::Copy("app/bin", "/usr/local/bin/app", {.mode = 0755}),
//       LayerEntry::Copy("data", "/srv/data", {.owner = Owner{1000, 1000}}),
//       LayerEntry::Symlink("/lib64", "usr/lib64"),
//       LayerEntry::Extract("vendor/lib.tar.gz", "/opt/lib"),
//       LayerEntry::Content("/etc/app.conf", "lr: 0.1\n"),
//       LayerEntry::Whiteout("/etc/motd"),
//       LayerEntry::OpaqueWhiteout("/var/cache")}};
//   LayerSource tree = LayerSource::DirectoryTree("/rootfs");  // the whole tree at /
//
// Paths:
// - `source` is relative to `root` (a leading '/' is read as relative to it,
//   like a Dockerfile COPY source). It is resolved with symlinks followed; it
//   must stay inside `root`, lexically ("../x") and after resolution (a symlink
//   to "/etc"), otherwise WriteLayer fails with InvalidArgument naming it.
// - `destination` is the final path in the image: a file source lands exactly
//   there, a directory source's contents land under it (Dockerfile trailing-
//   slash rules are the caller's). It is normalised: leading '/', "." and ".."
//   are resolved lexically; one that climbs above "/" is InvalidArgument.
// Inside a copied directory symlinks are kept as symlinks (never followed),
// and files sharing an inode are kept as hardlinks. A Symlink entry makes a
// link at `destination` whose text is `target`, verbatim (it is never
// resolved, so it may point anywhere, like the links of a copied directory).
//
// Content (a Dockerfile COPY heredoc): a regular file at `destination` whose
// bytes are `content`, mode 0644 (`overrides.mode` wins), owner root
// (`overrides.owner` wins), mtime the layer's epoch; it reads nothing from
// `root`.
//
// Extract (Dockerfile ADD of a local archive): `source` is a tar archive
// (plain, gzip, bzip2, xz or zstd: see tar_archive.h) whose members land under
// `destination` like `tar -x` there: each member's permission bits (07777),
// numeric owner and mtime (under the layer's mtime policy) are kept, hardlinks
// between members stay hardlinks, symlinks keep their text. `overrides.owner`
// and `overrides.mode` still win. A member whose name climbs out of
// `destination`, that passes through a symlink member, that is a device or
// fifo, or that has a whiteout name is InvalidArgument naming the archive
// and the member. Member contents are staged in a temporary directory
// (LayerOptions::staging_dir, default $TMPDIR) while the layer is written.
#ifndef TRAINPKG_PACKAGER_LAYER_LAYER_ENTRY_H_
#define TRAINPKG_PACKAGER_LAYER_LAYER_ENTRY_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trainpkg::packager {

// Numeric owner of an entry (COPY --chown after name resolution).
struct Owner {
  uint32_t uid = 0;
  uint32_t gid = 0;
  friend bool operator==(const Owner&, const Owner&) = default;
};

// Per-entry overrides; absent fields take the reproducible defaults (root
// owner; modes 0755 for directories and executables, 0644 for other files).
struct EntryOverrides {
  std::optional<Owner> owner;    // --chown: every entry the copy produces
  std::optional<uint32_t> mode;  // --chmod: permission bits (& 07777) of files and dirs
  // Take each entry's permission bits (07777) and numeric owner from the
  // source as it is on disk instead of the defaults (a RUN's diff, where
  // `chmod`, `chown` and setuid bits are part of what the command did).
  // `owner` and `mode`, when set, still win.
  bool keep_attributes = false;
};

struct LayerEntry {
  enum class Kind {
    kCopy,            // copy `source` (file, directory or symlink target) to `destination`
    kWhiteout,        // delete `destination` from lower layers (".wh.<name>")
    kOpaqueWhiteout,  // hide every lower-layer child of `destination` (".wh..wh..opq")
    kSymlink,         // a symlink at `destination` whose text is `source`
    kExtract,         // the tar archive `source` unpacked under `destination`
    kContent,         // a file at `destination` holding `content`
  };

  static LayerEntry Copy(std::filesystem::path source, std::string destination,
                         EntryOverrides overrides = {}) {
    return LayerEntry{Kind::kCopy, std::move(source), std::move(destination), overrides, {}};
  }
  static LayerEntry Whiteout(std::string destination) {
    return LayerEntry{Kind::kWhiteout, {}, std::move(destination), {}, {}};
  }
  static LayerEntry Symlink(std::string destination, std::string target) {
    return LayerEntry{Kind::kSymlink, std::move(target), std::move(destination), {}, {}};
  }
  static LayerEntry Extract(std::filesystem::path archive, std::string destination,
                            EntryOverrides overrides = {}) {
    return LayerEntry{Kind::kExtract, std::move(archive), std::move(destination), overrides, {}};
  }
  static LayerEntry OpaqueWhiteout(std::string destination) {
    return LayerEntry{Kind::kOpaqueWhiteout, {}, std::move(destination), {}, {}};
  }
  static LayerEntry Content(std::string destination, std::string content,
                            EntryOverrides overrides = {}) {
    return LayerEntry{Kind::kContent, {}, std::move(destination), overrides, std::move(content)};
  }

  Kind kind = Kind::kCopy;
  std::filesystem::path
      source;  // kCopy: the source; kExtract: the archive; kSymlink: the link text
  std::string destination;
  EntryOverrides overrides;
  std::string content;  // kContent: the file's bytes
};

struct LayerSource {
  // The whole tree under `root` as the image root (a rootfs, a RUN diff).
  static LayerSource DirectoryTree(std::filesystem::path root) {
    LayerSource source{std::move(root), {}};
    source.entries.push_back(LayerEntry::Copy(".", "/"));
    return source;
  }

  std::filesystem::path root;  // the build context; must exist
  // Applied in order: a later entry for the same image path replaces an
  // earlier one (a layer never holds two entries for one path).
  std::vector<LayerEntry> entries;
};

}  // namespace trainpkg::packager

#endif  // TRAINPKG_PACKAGER_LAYER_LAYER_ENTRY_H_
