// The image a worker pool runs, as a job names it (containerSpec.imageUri,
// pythonPackageSpec.executorImageUri), parsed once. Three forms, told apart by
// their prefix:
//
//   local:PATH          a host executable run as a process, no image (trainpkg's
//                       own form); PATH may be relative to the directory the job
//                       is started from
//   oci:DIR[:TAG]       an image in an oci-layout directory, as skopeo and umoci
//                       name it: DIR ends at the first ':' after "oci:", and no
//                       TAG means the layout's only manifest
//   anything else       a registry reference [REGISTRY/]REPOSITORY[:TAG][@DIGEST]
//
// What Parse checks: for every form, at most kMaxImageUriBytes bytes, no
// control bytes and no white space at either end; local: and oci: a non-empty
// PATH / DIR (spaces inside a path are allowed, as POSIX allows them) and no
// empty TAG after the ':'; a registry reference only the characters its grammar
// uses ([A-Za-z0-9._-/:@] and '[' ']' of an IPv6 host), no "scheme://" and no
// "." or ".." path component.
//
// What it does not: the registry grammar itself (name components, tag and
// digest syntax, docker.io normalisation) is registry::ParseReference's, and
// an oci TAG's is oci::ValidateRefName's; jobspec may not use registry/
// (scripts/check_deps.py). So the reference text is kept as written and the
// sdk parses it where it talks to a registry or opens a layout: one grammar,
// not two that could disagree.
//
// Errors: InvalidArgument saying what is wrong with the text (shown with
// control bytes escaped, cut after 80 bytes) and which forms are valid; the
// caller prefixes the field, e.g. jobSpec.workerPoolSpecs[1].containerSpec.imageUri.
#ifndef TRAINPKG_JOBSPEC_IMAGE_URI_H_
#define TRAINPKG_JOBSPEC_IMAGE_URI_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace trainpkg::jobspec {

// PATH_MAX: a local: path or oci: directory longer than this cannot be opened.
inline constexpr size_t kMaxImageUriBytes = 4096;

class ImageUri {
 public:
  enum class Kind {
    kLocalExecutable,  // local:PATH
    kOciLayout,        // oci:DIR[:TAG]
    kRegistry,         // [REGISTRY/]REPOSITORY[:TAG][@DIGEST]
  };

  static absl::StatusOr<ImageUri> Parse(std::string_view text);

  Kind kind() const { return kind_; }
  // An image (oci-layout or registry), as opposed to a local: executable.
  bool is_image() const { return kind_ != Kind::kLocalExecutable; }

  // kLocalExecutable: PATH, as written. REQUIRES: that kind.
  const std::string& local_path() const;
  // kOciLayout: DIR, and TAG (empty when none was written). REQUIRES: that kind.
  const std::string& layout_dir() const;
  const std::string& layout_tag() const;
  // kRegistry: the reference as written, for registry::ParseReference.
  // REQUIRES: that kind.
  const std::string& reference() const;

  // The text Parse read: Parse(x)->ToString() == x.
  const std::string& ToString() const { return text_; }

  friend bool operator==(const ImageUri&, const ImageUri&) = default;

 private:
  ImageUri(Kind kind, std::string text, std::string path, std::string tag)
      : kind_(kind), text_(std::move(text)), path_(std::move(path)), tag_(std::move(tag)) {}

  Kind kind_;
  std::string text_;
  std::string path_;  // local: PATH, oci: DIR
  std::string tag_;   // oci: TAG
};

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_IMAGE_URI_H_
