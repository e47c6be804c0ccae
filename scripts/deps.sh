#!/usr/bin/env bash
# scripts/deps.sh test|bench: installs the Debian packages that `make test` or
# `make bench` needs, only those missing. Needs root or sudo when something is missing.
set -euo pipefail

common=(cmake make g++ pkg-config)
# libutf8proc-dev: fl::graphemes; unicode-data: its test's GraphemeBreakTest.txt;
# libnats-dev: fl::replica; nats-server: the servers its tests start.
test_pkgs=(libgtest-dev zlib1g-dev clang libclang-rt-dev libfmt-dev gdb libsimdjson-dev nlohmann-json3-dev
           libutf8proc-dev unicode-data libnats-dev nats-server)
# The allocators under the std_mimalloc/std_jemalloc/std_tcmalloc rows of alloc/;
# liblmdb-dev: the lmdb peer of persist/ and json/; libsqlite3-dev: the sqlite and
# sqlite_json peers of json/.
bench_pkgs=(libbenchmark-dev zlib1g-dev libabsl-dev libboost-dev libfmt-dev python3 python3-matplotlib
            libmimalloc2.0 libjemalloc2 libtcmalloc-minimal4 libsimdjson-dev nlohmann-json3-dev rapidjson-dev liblmdb-dev
            libsqlite3-dev libnats-dev nats-server)

case "${1:-test}" in
  test)  want=("${common[@]}" "${test_pkgs[@]}") ;;
  bench) want=("${common[@]}" "${bench_pkgs[@]}") ;;
  all)   want=("${common[@]}" "${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
  *) echo "usage: $0 test|bench|all" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "fl: missing packages (${missing[*]}) and no apt-get: install them by hand" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "fl: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "fl: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
