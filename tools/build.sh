#!/usr/bin/env bash
# Configures and builds graft into build/ (or $1), with warnings as errors.
#   tools/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGRAFT_WERROR=ON "$@"
else
  cmake -S "$root" -B "$build" -DGRAFT_WERROR=ON "$@" >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
