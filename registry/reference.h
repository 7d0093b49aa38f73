// Image references in the Docker grammar ("ubuntu", "gcr.io/p/app:v1",
// "localhost:5000/a/b@sha256:…"), normalised like docker does: a name with
// no registry is on docker.io, and a one-component docker.io name is in
// "library/".
#ifndef TRAINPKG_REGISTRY_REFERENCE_H_
#define TRAINPKG_REGISTRY_REFERENCE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "registry/oci/digest.h"

namespace trainpkg::registry {

// Docker Hub as written in references and as served.
inline constexpr std::string_view kDockerHubDomain = "docker.io";
inline constexpr std::string_view kDockerHubApiHost = "registry-1.docker.io";

// A repository on a registry: "gcr.io" + "proj/app".
struct Repository {
  std::string registry;  // host[:port], as written; "docker.io" for Docker Hub
  std::string path;      // "library/ubuntu"

  // "gcr.io/proj/app".
  std::string Name() const { return registry + "/" + path; }
  bool operator==(const Repository&) const = default;
};

// A parsed, normalised reference. `tag` and `digest` may each be empty; both
// may be set ("name:tag@digest": the digest wins when fetching).
struct Reference {
  Repository repository;
  std::string tag;
  oci::Digest digest;  // sha256 or sha512 (the algorithms OCI registers)

  // What to put after /manifests/: the digest, else the tag, else "latest".
  std::string Identifier() const;
  // The full normalised form: "docker.io/library/ubuntu:22.04".
  std::string String() const;
  bool operator==(const Reference&) const = default;
};

// Parses `text` in the Docker reference grammar and normalises it.
// Returns InvalidArgument naming the part that is wrong (registry, port,
// path component, tag, digest, length) and what would be valid. Never
// touches the network.
absl::StatusOr<Reference> ParseReference(std::string_view text);

// Parses "registry/path" with no tag or digest (same rules as ParseReference).
absl::StatusOr<Repository> ParseRepository(std::string_view text);

// The host to contact for `registry`: docker.io → registry-1.docker.io;
// everything else unchanged.
std::string RegistryApiHost(std::string_view registry);

// True for names only reachable from this machine: "localhost", "*.localhost",
// "127.x.x.x" and "::1", with or without a port.
bool IsLoopbackRegistry(std::string_view registry);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_REFERENCE_H_
