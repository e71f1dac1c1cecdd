#!/usr/bin/env bash
# scripts/build.sh [build-dir] [cmake options...]: configures (once) and builds with Ninja.
# BUILD_TARGETS="ocppgw ..." builds only those targets (and what they need) instead of all.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
shift || true
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1 CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ocppgw/ccache}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
fi
# shellcheck disable=SC2086  # BUILD_TARGETS is a space-separated list
cmake --build "$build" -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS}
