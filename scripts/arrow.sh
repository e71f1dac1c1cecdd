#!/usr/bin/env bash
# scripts/arrow.sh: makes Apache Arrow C++ / Parquet C++ available to the build (the Delta
# mirror writes Parquet through them; docs/delta.md).
# An Arrow installed system-wide (Apache's libarrow-dev and libparquet-dev, found by CMake's
# find_package) is used as it is. Otherwise the PyPI pyarrow wheel of the pinned version
# (cmake/pyarrow.version), which carries the same C++ libraries and their headers, is unpacked
# into .cache/arrow/pyarrow-<version> in the checkout; cmake/arrow.cmake finds it there and puts
# its library folder on the binaries' RPATH. Only the headers and libarrow/libparquet are kept.
# The wheel is downloaded once into ~/.cache/ocppgw/pip. Idempotent and quick when present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(tr -d '[:space:]' <"$root/cmake/pyarrow.version")"
dest="$root/.cache/arrow/pyarrow-$version"

for dir in /usr/lib/x86_64-linux-gnu/cmake /usr/local/lib/cmake /usr/lib/cmake; do
  if [ -f "$dir/Arrow/ArrowConfig.cmake" ] && [ -f "$dir/Parquet/ParquetConfig.cmake" ]; then
    echo "arrow: system Arrow/Parquet in $dir"
    exit 0
  fi
done
if [ -f "$dest/.complete" ]; then
  echo "arrow: pyarrow $version C++ libraries in ${dest#"$root"/}"
  exit 0
fi

cache="$HOME/.cache/ocppgw/pip"
wheels="$cache/wheels-arrow"
mkdir -p "$wheels"
# The wheel's C++ libraries do not depend on the Python version; pinning the platform and the
# interpreter tag makes the download independent of which python3 runs pip.
python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
  --python-version 3.11 --implementation cp --cache-dir "$cache" -d "$wheels" "pyarrow==$version"
wheel="$(ls "$wheels"/pyarrow-"$version"-cp311-*manylinux_2_28_x86_64.whl | head -1)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$wheel" "$tmp" <<'PY'
import re, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
keep = re.compile(r"^pyarrow/(include/(arrow|parquet)/.*|lib(arrow|parquet)\.so\.[0-9]+)$")
with zipfile.ZipFile(wheel) as z:
    z.extractall(out, [n for n in z.namelist() if keep.match(n)])
PY
rm -rf "$dest"
mkdir -p "$dest/lib"
mv "$tmp/pyarrow/include" "$dest/include"
mv "$tmp"/pyarrow/lib*.so.* "$dest/lib/"
# Unversioned names so the libraries also link by -larrow / -lparquet.
for lib in "$dest"/lib/lib*.so.*; do ln -sf "$(basename "$lib")" "${lib%.so.*}.so"; done
touch "$dest/.complete"
echo "arrow: unpacked pyarrow $version C++ libraries into ${dest#"$root"/}"
