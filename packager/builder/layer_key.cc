#include "packager/builder/layer_key.h"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <utility>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/digest_builder.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

std::string Sha256Hex(std::string_view text) {
  oci::DigestBuilder builder(oci::DigestAlgorithm::kSha256);
  builder.Update(text);
  return builder.Finish().hex();
}

// The context path an entry's source resolves to ("." for the root), or ""
// when it leaves the context (WriteLayer then reports it).
std::string ResolvedRel(const BuildContext& ctx, const fs::path& source) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(ctx.root() / source.relative_path(), ec);
  if (ec) return "";
  fs::path inside = resolved.lexically_relative(ctx.root());
  if (inside.empty() || *inside.begin() == "..") return "";
  return inside.generic_string();
}

// Every option that changes a layer's compressed bytes.
std::string CompressionText(const LayerOptions& options) {
  return fmt::format("compression {} level {} block {} zstd-level {}",
                     static_cast<int>(options.compression), options.gzip_level,
                     options.gzip_block_size, options.zstd_level);
}

}  // namespace

std::string CompressedLayerKey(const oci::Digest& diff_id, const LayerOptions& options) {
  return Sha256Hex(fmt::format("trainpkg-compressed-layer v1\ndiff_id {}\n{}\n", diff_id.ToString(),
                               CompressionText(options)));
}

std::string RunLayerKey(std::string_view parent_chain, std::string_view instruction,
                        const std::vector<std::string>& args, const std::vector<std::string>& env,
                        std::string_view cwd, std::string_view user, const LayerOptions& options,
                        const std::vector<std::string>& files,
                        const std::vector<std::string>& sandbox) {
  // v2: the zstd level is part of the key (v1 left it out, so a zstd -19
  // build reused a RUN layer compressed at another level). v3: without
  // SOURCE_DATE_EPOCH the layer keeps the command's mtimes (v2 layers had 0).
  std::string text = fmt::format(
      "trainpkg-run-key v3\nparent {}\ninstruction {}\nepoch {} policy {} {}\ncwd {}\nuser {}\n",
      parent_chain, instruction, options.source_date_epoch.value_or(-1),
      static_cast<int>(options.mtime_policy), CompressionText(options), cwd, user);
  // Lengths first, so that no two lists serialise alike.
  for (const std::string& arg : args) text += fmt::format("arg {} {}\n", arg.size(), arg);
  for (const std::string& kv : env) text += fmt::format("env {} {}\n", kv.size(), kv);
  for (const std::string& f : files) text += fmt::format("file {} {}\n", f.size(), f);
  for (const std::string& line : sandbox) text += fmt::format("sandbox {} {}\n", line.size(), line);
  return Sha256Hex(text);
}

std::string ChainKey(std::string_view parent_chain, std::string_view step) {
  return Sha256Hex(fmt::format("{}\n{}", parent_chain, step));
}

absl::StatusOr<std::string> ComputeLayerKey(std::string_view parent_chain,
                                            std::string_view instruction,
                                            const std::vector<LayerEntry>& entries,
                                            const LayerOptions& options, const BuildContext& ctx,
                                            FileDigestCache* digests) {
  // v3: without SOURCE_DATE_EPOCH the layer keeps the files' mtimes (v2
  // layers had 0), so no v2 layer may answer for them.
  std::string text =
      fmt::format("trainpkg-layer-key v3\nparent {}\ninstruction {}\nepoch {} policy {} {}\n",
                  parent_chain, instruction, options.source_date_epoch.value_or(-1),
                  static_cast<int>(options.mtime_policy), CompressionText(options));
  // The context files each entry reads; their contents hashed first, on the
  // layer's threads (a cold build reads every file).
  std::vector<std::vector<const ContextFile*>> read(entries.size());
  std::vector<const ContextFile*> regular;
  for (size_t i = 0; i < entries.size(); ++i) {
    // Copies read their files; an extraction reads its archive.
    if (entries[i].kind != LayerEntry::Kind::kCopy &&
        entries[i].kind != LayerEntry::Kind::kExtract) {
      continue;
    }
    std::string rel = ResolvedRel(ctx, entries[i].source);
    if (rel.empty()) continue;
    read[i] = ctx.Beneath(rel);
    if (const ContextFile* self = ctx.Find(rel)) read[i].insert(read[i].begin(), self);
    for (const ContextFile* f : read[i]) {
      if (f->type == ContextFile::Type::kFile) regular.push_back(f);
    }
  }
  TP_RETURN_IF_ERROR(digests->Prefetch(ctx.root(), regular, options.threads));
  std::map<std::pair<uint64_t, uint64_t>, std::string> hardlinks;
  for (size_t i = 0; i < entries.size(); ++i) {
    const LayerEntry& entry = entries[i];
    text += fmt::format("entry {} {} -> {} owner {} mode {}\n", static_cast<int>(entry.kind),
                        entry.source.string(), entry.destination,
                        entry.overrides.owner ? fmt::format("{}:{}", entry.overrides.owner->uid,
                                                            entry.overrides.owner->gid)
                                              : "-",
                        entry.overrides.mode ? fmt::format("{:o}", *entry.overrides.mode) : "-");
    if (entry.kind == LayerEntry::Kind::kContent) {  // a heredoc: its bytes, not a context file
      text += fmt::format("  content s{} {}\n", entry.content.size(), Sha256Hex(entry.content));
    }
    for (const ContextFile* f : read[i]) {
      text += fmt::format("  {} t{} s{} x{} m{}", f->rel, static_cast<int>(f->type), f->size,
                          (f->mode & 0111) != 0 ? 1 : 0, LayerMtime(f->mtime_sec, options));
      if (f->type == ContextFile::Type::kFile) {
        if (f->links > 1) {
          auto [it, inserted] = hardlinks.emplace(std::make_pair(f->device, f->inode), f->rel);
          if (!inserted) text += fmt::format(" link={}", it->second);
        }
        TP_ASSIGN_OR_RETURN(std::string digest, digests->Digest(ctx.root() / f->rel, *f));
        text += " " + digest;
      } else if (f->type == ContextFile::Type::kSymlink) {
        std::error_code ec;
        fs::path target = fs::read_symlink(ctx.root() / f->rel, ec);
        if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("readlink {}", f->rel));
        text += " -> " + target.string();
      }
      text += "\n";
    }
  }
  return Sha256Hex(text);
}

}  // namespace trainpkg::packager::builder
