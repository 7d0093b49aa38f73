// Reads an anonymous registry on 127.0.0.1 straight over HTTP with
// cpp-httplib, bypassing the registry client and any proxy, so tests can
// check what a push really left there without trusting the code under test.
#ifndef TRAINPKG_TESTS_REGISTRY_DIRECT_REGISTRY_READER_H_
#define TRAINPKG_TESTS_REGISTRY_DIRECT_REGISTRY_READER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::registry::testing {

class DirectRegistryReader {
 public:
  // `host` is "127.0.0.1:<port>".
  explicit DirectRegistryReader(std::string host) : host_(std::move(host)) {}

  // The manifest or index `reference` (tag or digest) of `repo`, as stored.
  // NotFound when the registry has none.
  absl::StatusOr<std::string> Manifest(const std::string& repo, const std::string& reference) const;
  // The blob's bytes; NotFound when `repo` does not hold it.
  absl::StatusOr<std::string> Blob(const std::string& repo, const std::string& digest) const;
  // HEAD of the blob: true when `repo` holds it.
  absl::StatusOr<bool> HasBlob(const std::string& repo, const std::string& digest) const;
  // _catalog.
  absl::StatusOr<std::vector<std::string>> Repositories() const;
  // tags/list; empty for a repository without tags.
  absl::StatusOr<std::vector<std::string>> Tags(const std::string& repo) const;

  // Walks every tag of every repository (and the manifests an index lists)
  // and names each manifest that refers to a blob or manifest the
  // repository lacks: "repo:tag: layer sha256:… is missing". Empty when
  // the registry is consistent.
  absl::StatusOr<std::vector<std::string>> ManifestsWithMissingBlobs() const;

 private:
  absl::Status CheckManifest(const std::string& repo, const std::string& reference,
                             const std::string& label, std::vector<std::string>& problems) const;

  std::string host_;
};

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_DIRECT_REGISTRY_READER_H_
