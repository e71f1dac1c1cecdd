#!/usr/bin/env bash
# scripts/setup.sh: installs everything ocppgw needs to build, run and test on Debian 12.
# Idempotent and quick when nothing is missing: only absent Debian packages are installed.
# Project-local npm/pip packages are installed by the test drivers themselves, with their
# download caches under ~/.cache/ocppgw so later runs reuse them. Arrow/Parquet C++, which
# Debian 12 does not package, come from scripts/arrow.sh (last step here).
set -euo pipefail

# Build and run: compiler, CMake, and the libraries of docs/architecture.md ("Dependencies").
BUILD_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libboost-dev libboost-system-dev libssl-dev nlohmann-json3-dev libsqlite3-dev sqlite3
  librdkafka-dev libvalijson-dev libspdlog-dev libcli11-dev libtomlplusplus-dev
  python3 python3-pip  # scripts/arrow.sh fetches the pinned pyarrow wheel with pip
)
# Tests, benchmarks and tooling: GoogleTest, benchmark, clang-format, Kafka client tool,
# Node.js and Python for the independent OCPP client libraries, Java + Maven for the Kafka broker,
# Chromium for the status page's browser tests (tests/browser, driven by npm playwright-core),
# clang with its fuzzer runtime for the fuzz targets.
TEST_PACKAGES=(
  googletest libgtest-dev libbenchmark-dev clang-format kcat
  python3 python3-venv python3-pip openjdk-17-jre-headless maven curl procps psmisc jq linux-perf
  chromium fonts-dejavu-core
  clang-14 libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer and the sanitizer runtimes
)

missing=()
for pkg in "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# Node.js may come from the machine image (newer than Debian's); install Debian's only if absent.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: system packages present"
bash "$(dirname "$0")/arrow.sh"
