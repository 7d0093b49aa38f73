#!/usr/bin/env bash
# Fetches the 8x8 digits data set (1,797 images, UCI "optdigits" test set as
# scikit-learn ships it) from Debian's python3-sklearn package: the .deb is
# downloaded with `apt-get download` (Debian's archive only, no Python) and
# unpacked with `dpkg-deb -x`; only digits.csv.gz is kept.
#
#   scripts/fetch-digits.sh            # -> <repo>/build/data/digits.csv.gz
#   TRAINPKG_DATA_DIR=/d scripts/fetch-digits.sh   # -> /d/digits.csv.gz
#
# Idempotent: does nothing when the file is already there. Prints the path of
# the file on stdout.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data_dir="${TRAINPKG_DATA_DIR:-${repo_root}/build/data}"
target="${data_dir}/digits.csv.gz"

if [[ -s "${target}" ]]; then
  echo "${target}"
  exit 0
fi

mkdir -p "${data_dir}"
work="$(mktemp -d "${data_dir}/.fetch-digits.XXXXXX")"
trap 'rm -rf "${work}"' EXIT

(cd "${work}" && apt-get download python3-sklearn >&2)
deb="$(find "${work}" -maxdepth 1 -name 'python3-sklearn_*.deb' | head -n 1)"
if [[ -z "${deb}" ]]; then
  echo "fetch-digits: apt-get download python3-sklearn produced no .deb" >&2
  exit 1
fi
dpkg-deb -x "${deb}" "${work}/root"
found="$(find "${work}/root" -path '*/sklearn/datasets/data/digits.csv.gz' | head -n 1)"
if [[ -z "${found}" ]]; then
  echo "fetch-digits: ${deb##*/} has no sklearn/datasets/data/digits.csv.gz" >&2
  exit 1
fi
# Same directory, then rename: a concurrent run sees the old state or the whole file.
cp "${found}" "${work}/digits.csv.gz"
mv -f "${work}/digits.csv.gz" "${target}"
echo "${target}"
