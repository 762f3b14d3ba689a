#!/usr/bin/env bash
# Installs every Debian package graft needs to build, test and benchmark. Idempotent: packages
# already present are not reinstalled and the package lists are only refreshed when something
# is missing. Runs as root (or through sudo when available) on Debian 12.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build pkg-config
  # libraries (find_package targets in CMakeLists.txt)
  tao-pegtl-dev        # PEGTL 3.2: the .rules grammar
  libdnnl-dev          # oneDNN 2.6: the runtime's kernels
  ocl-icd-opencl-dev   # Debian's oneDNN CMake config requires OpenCL (its GPU runtime)
  nlohmann-json3-dev   # model.json
  catch2               # Catch2 v2 tests
  libcli11-dev         # command-line flags
  libfmt-dev           # formatting
  libz3-dev            # Z3: `rewrite verify` proves the algebraic rules (ruletest/rule_prover.cpp)
  libmimalloc-dev      # the executables' allocator (GRAFT_MIMALLOC, docs/decisions/0005-mimalloc.md)
  # PyTorch: the exporter and the reference numbers graft is checked against
  python3 python3-numpy python3-torch python3-torchvision
  # the graft Python module (python/) and its tests
  pybind11-dev python3-dev python3-pytest
  # the leak check of the slow suite (tools/leak_check.sh --valgrind)
  valgrind
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install_deps: must run as root (missing: ${missing[*]})" >&2
    exit 1
  fi
fi
echo "install_deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
