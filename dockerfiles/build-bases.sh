#!/usr/bin/env bash
# Builds trainpkg's framework base images with trainpkg alone, from the Debian
# archive this machine's apt sources name (no other source), and pushes them:
#   REGISTRY/trainpkg/debian:bookworm       debootstrap --variant=minbase, imported
#   REGISTRY/trainpkg/python:bookworm       dockerfiles/python.Dockerfile FROM it
#   REGISTRY/trainpkg/pytorch-cpu:bookworm  dockerfiles/pytorch-cpu.Dockerfile FROM that
#
# Usage: dockerfiles/build-bases.sh REGISTRY        e.g. 127.0.0.1:5000
#        dockerfiles/build-bases.sh --rootfs-only   only the debian rootfs tarball
#          (made, or found in the cache), its path and SOURCE_DATE_EPOCH printed
#          as the last two lines "rootfs: PATH" and "source-date-epoch: N"; no
#          registry, no trainpkg (bench/build/bases_bench.py gives it to buildah too)
# Needs root (debootstrap, and RUN under runc), debootstrap, curl and the
# network to reach the archive.
#
# Environment:
#   TRAINPKG             the trainpkg binary (default: build/bin/trainpkg of this
#                        checkout when built, else trainpkg on PATH)
#   TRAINPKG_HOME        trainpkg's store and layer cache (trainpkg's default)
#   TRAINPKG_BASES_CACHE where the debootstrapped rootfs tarballs are kept
#                        (default ${XDG_CACHE_HOME:-$HOME/.cache}/trainpkg/bases)
#   TRAINPKG_APT_ETC     the directory whose sources.list and sources.list.d/
#                        name the archive (default /etc/apt, as apt's Dir::Etc)
#
# A second run is quick: debootstrap's output differs byte for byte from run
# to run, so the cleaned rootfs is kept as a tarball keyed by the archive, the
# suite and the date of the suite's Release file, and imported with
# SOURCE_DATE_EPOCH set to that date. The same archive state thus gives the
# same debian image digest, and the RUN steps of the images FROM it hit
# trainpkg's layer cache. A new point release (a new Release date) starts over.
set -euo pipefail

SUITE=bookworm
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() {
  echo "build-bases: $*" >&2
  exit 1
}
step() { echo "==> $*"; }

ROOTFS_ONLY=0
if [ $# -eq 1 ] && [ "$1" = --rootfs-only ]; then
  ROOTFS_ONLY=1
  REGISTRY=
elif [ $# -ne 1 ] || [ -z "$1" ] || [ "${1#-}" != "$1" ]; then
  echo "usage: dockerfiles/build-bases.sh REGISTRY   (host[:port], e.g. 127.0.0.1:5000)" >&2
  echo "       dockerfiles/build-bases.sh --rootfs-only" >&2
  exit 2
else
  REGISTRY="${1%/}"
fi

# --- tools --------------------------------------------------------------------
if [ -z "${TRAINPKG:-}" ]; then
  if [ -x "$here/../build/bin/trainpkg" ]; then
    TRAINPKG="$here/../build/bin/trainpkg"
  else
    TRAINPKG="$(command -v trainpkg || true)"
  fi
fi
[ "$ROOTFS_ONLY" = 1 ] || { [ -n "$TRAINPKG" ] && [ -x "$TRAINPKG" ]; } ||
  die "no trainpkg binary: build it (cmake --build build --target trainpkg) or set TRAINPKG=/path/to/trainpkg"
[ "$(id -u)" -eq 0 ] || die "needs root: debootstrap and trainpkg's RUN (runc) run as root"
DEBOOTSTRAP="$(command -v debootstrap || true)"
[ -n "$DEBOOTSTRAP" ] || DEBOOTSTRAP="$(PATH=/usr/sbin:/sbin command -v debootstrap || true)"
[ -n "$DEBOOTSTRAP" ] || die "debootstrap is not installed (apt-get install debootstrap, or scripts/install-deps.sh)"
command -v curl >/dev/null || die "curl is not installed (apt-get install curl)"

# --- the registry, before minutes of work ---------------------------------------
# A registry answers /v2/ with 200 or 401 (auth needed, which trainpkg push
# handles), over https or, for a local one, plain http.
registry_answers() {
  local scheme code
  for scheme in https http; do
    code="$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -k "$scheme://$REGISTRY/v2/" 2>/dev/null)" || continue
    [ "$code" = 200 ] || [ "$code" = 401 ] && return 0
  done
  return 1
}
[ "$ROOTFS_ONLY" = 1 ] || registry_answers ||
  die "no registry answers at $REGISTRY (neither https://$REGISTRY/v2/ nor http://$REGISTRY/v2/): start one (e.g. docker-registry) or name another"

# --- the archive the machine's apt sources name ---------------------------------
# Prints "URI SUITE COMPONENTS..." for every deb (binary) entry of the
# deb822 *.sources files and the one-line sources.list files.
APT_ETC="${TRAINPKG_APT_ETC:-/etc/apt}"
apt_entries() {
  local f
  for f in "$APT_ETC"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no")
          for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++) print uris[u], suites[s], comps
        types = ""; enabled = ""; comps = ""; nu = 0; ns = 0
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^[ \t]+/, "")
        if (key == "types") types = $0
        else if (key == "enabled") enabled = tolower($0)
        else if (key == "uris") nu = split($0, uris, /[ \t]+/)
        else if (key == "suites") ns = split($0, suites, /[ \t]+/)
        else if (key == "components") comps = $0
      }
      END { flush() }' "$f"
  done
  for f in "$APT_ETC"/sources.list "$APT_ETC"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && NF >= 4 { $1 = ""; sub(/^ /, ""); print }'
  done
}

entries="$(apt_entries | awk -v s="$SUITE" '$2 == s || index($2, s "-") == 1 || index($2, s "/") == 1')"
MIRROR="$(echo "$entries" | awk -v s="$SUITE" '$2 == s { print $1; exit }')"
MIRROR="${MIRROR%/}"
[ -n "$MIRROR" ] ||
  die "no apt source names Debian $SUITE (a deb entry for suite $SUITE in $APT_ETC/sources.list.d/*.sources, $APT_ETC/sources.list or $APT_ETC/sources.list.d/*.list): the bases come only from the archive the machine's apt sources name"
step "archive: $MIRROR ($SUITE)"

release="$(curl -fsS --max-time 60 "$MIRROR/dists/$SUITE/Release" 2>&1)" ||
  die "cannot read $MIRROR/dists/$SUITE/Release (no network, or the archive is unreachable): $release"
release_date="$(echo "$release" | sed -n 's/^Date: //p' | head -n 1)"
[ -n "$release_date" ] || die "$MIRROR/dists/$SUITE/Release has no Date: field"
SOURCE_DATE_EPOCH="$(date -u -d "$release_date" +%s)" ||
  die "$MIRROR/dists/$SUITE/Release: unreadable Date: '$release_date'"
export SOURCE_DATE_EPOCH

# --- the debootstrapped, cleaned rootfs, cached --------------------------------
cache="${TRAINPKG_BASES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainpkg/bases}"
mkdir -p "$cache"
# The key: what debootstrap fetched (archive, suite, its Release date), the
# host architecture, the sources written into the rootfs and ROOTFS_FORMAT.
# Bump ROOTFS_FORMAT when write_sources, configure_apt or clean_rootfs change.
ROOTFS_FORMAT=1
key="$( {
  echo "$MIRROR $SUITE $release_date $(dpkg --print-architecture) $ROOTFS_FORMAT"
  echo "$entries"
} | sha256sum | cut -c1-16)"
tarball="$cache/debian-$SUITE-minbase-$key.tar"

# Writes the rootfs's apt sources: the entries of the machine's sources for
# this suite (and its -updates, -security), as one deb822 file.
write_sources() {
  local root="$1"
  rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
  echo "$entries" | awk '
    { comps = $3; for (i = 4; i <= NF; i++) comps = comps " " $i
      k = $1 SUBSEP comps
      if (!(k in suites)) { order[++n] = k; uri[k] = $1; comp[k] = comps; suites[k] = $2 }
      else if ((" " suites[k] " ") !~ (" " $2 " ")) suites[k] = suites[k] " " $2 }
    END { for (i = 1; i <= n; i++) {
            k = order[i]
            if (i > 1) print ""
            print "Types: deb"; print "URIs: " uri[k]; print "Suites: " suites[k]
            print "Components: " comp[k]
            print "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" } }' \
    >"$root/etc/apt/sources.list.d/debian.sources"
}

# apt as in an image: downloaded packages deleted after every install (else
# each RUN apt-get install keeps its .debs in its layer), no binary caches,
# no translations.
configure_apt() {
  local root="$1"
  cat >"$root/etc/apt/apt.conf.d/90trainpkg-image" <<'CONF'
// trainpkg base image (dockerfiles/build-bases.sh): keep layers small.
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
CONF
}

# What an image's rootfs does not carry: device nodes (the runtime makes
# /dev), apt's lists and downloaded packages, logs, caches, machine identity.
clean_rootfs() {
  local root="$1"
  find "$root/dev" -mindepth 1 -delete
  find "$root/proc" "$root/sys" "$root/run" "$root/tmp" "$root/var/tmp" -mindepth 1 -delete
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/cache/apt/archives/partial/* "$root"/var/cache/debconf/*-old \
    "$root"/var/lib/dpkg/*-old "$root"/var/log/* "$root"/debootstrap
  mkdir -p "$root/var/lib/apt/lists/partial"
  : >"$root/etc/machine-id"
  rm -f "$root/etc/hostname" "$root/etc/resolv.conf"
}

if [ -f "$tarball" ]; then
  step "debian: cached rootfs $tarball"
else
  step "debian: debootstrap --variant=minbase $SUITE from $MIRROR (a few minutes)"
  work="$(mktemp -d "$cache/.debootstrap.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # Its phases shown, not every package (the whole output is in the log).
  if ! "$DEBOOTSTRAP" --variant=minbase "$SUITE" "$work/rootfs" "$MIRROR" 2>&1 |
    tee "$work/log" | awk '/^[IEW]: / && !/^I: ((Retrieving|Validating) [^ ]+ [0-9][^ ]*|(Extracting|Unpacking|Configuring) [^ ]+\.\.\.)$/ {
      print "    " $0; fflush() }'; then
    tail -n 20 "$work/log" >&2
    [ -f "$work/rootfs/debootstrap/debootstrap.log" ] && tail -n 20 "$work/rootfs/debootstrap/debootstrap.log" >&2
    die "debootstrap --variant=minbase $SUITE $MIRROR failed (its output above)"
  fi
  write_sources "$work/rootfs"
  configure_apt "$work/rootfs"
  clean_rootfs "$work/rootfs"
  tar --numeric-owner --sort=name -C "$work/rootfs" -cf "$work/rootfs.tar" .
  mv "$work/rootfs.tar" "$tarball"
  rm -rf "$work"
  trap - EXIT
  # Older tarballs of this suite are stale now.
  find "$cache" -maxdepth 1 -name "debian-$SUITE-minbase-*.tar" ! -name "${tarball##*/}" -delete
  step "debian: rootfs kept in $tarball ($(du -h "$tarball" | cut -f1))"
fi

if [ "$ROOTFS_ONLY" = 1 ]; then
  echo "rootfs: $tarball"
  echo "source-date-epoch: $SOURCE_DATE_EPOCH"
  exit 0
fi

# --- the images ------------------------------------------------------------------
step "debian: trainpkg import -> $REGISTRY/trainpkg/debian:$SUITE"
"$TRAINPKG" import "$tarball" -t "$REGISTRY/trainpkg/debian:$SUITE" \
  -c 'ENV LANG=C.UTF-8' -c 'CMD ["bash"]' --push ||
  die "importing or pushing $REGISTRY/trainpkg/debian:$SUITE failed (is a registry listening at $REGISTRY?)"

base="$REGISTRY/trainpkg/debian:$SUITE"
for name in python pytorch-cpu; do
  ref="$REGISTRY/trainpkg/$name:$SUITE"
  step "$name: trainpkg build -f dockerfiles/$name.Dockerfile --build-arg BASE=$base -> $ref"
  "$TRAINPKG" build -f "$here/$name.Dockerfile" --build-arg "BASE=$base" -t "$ref" "$here" ||
    die "building $ref from dockerfiles/$name.Dockerfile failed (the step's output above)"
  step "$name: trainpkg push $ref"
  "$TRAINPKG" push "$ref" || die "pushing $ref failed (is a registry listening at $REGISTRY?)"
  base="$ref"
done
step "done: $REGISTRY/trainpkg/{debian,python,pytorch-cpu}:$SUITE"
