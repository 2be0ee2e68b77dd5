#!/usr/bin/env bash
# Installs every Debian/Ubuntu package that building, testing and packaging Warpscope uses.
# Idempotent: prints nothing and installs nothing when all packages are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  clang-format-14
  clang-14 libclang-rt-14-dev llvm-14  # fuzz preset: libFuzzer (libclang_rt.fuzzer), llvm-symbolizer
  libsqlite3-dev libtomlplusplus-dev nlohmann-json3-dev
  libcpp-httplib-dev  # the tests' HTTP client (the serving tests)
  libcurl4-openssl-dev  # bench serve's load generator (libcurl's multi interface)
  libboost-dev  # Boost.Beast and Asio: the OpenAI server, bench serve's socket loop
  zlib1g-dev  # .json.gz traces (streaming inflate in the Kineto importer)
  libsimdjson-dev  # trace events parsed at GB/s (Kineto / Chrome-trace import)
  libprotobuf-dev protobuf-compiler  # the tests read exported Perfetto traces with protobuf
  libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 qt6-qpa-plugins
  libqcustomplot-dev libqcustomplot2.1-qt6
  libgl-dev libxkbcommon-dev fonts-dejavu-core
  xvfb xauth file dpkg-dev python3
  poppler-utils
  openssh-client openssh-server  # record --host / pull, tested against a throwaway sshd
)
# The HTML report is checked in a real browser (tests/report/). Debian ships
# Chromium as a package; Ubuntu's chromium-browser is a snap wrapper.
if grep -qi '^ID=ubuntu' /etc/os-release 2>/dev/null; then
  packages+=(chromium-browser)
else
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
