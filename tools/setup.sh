#!/usr/bin/env bash
# Installs the Debian 12 packages that ceiling needs to build and test. Idempotent; run as root.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libsimgrid-dev               # SimGrid 3.32: the discrete-event engine
  libtomlplusplus-dev          # TOML platform, workload and experiment files
  libboost-graph-dev           # layer DAGs
  libboost-program-options-dev # the command line
  libhdf5-dev                  # result store
  doctest-dev                  # unit tests
  libjemalloc-dev              # the allocator of the ceiling program (faster replays)
  hdf5-tools                   # h5dump: tests open the result store without our code
  python3-h5py python3-matplotlib # `ceiling plot` and `ceiling report` (Debian's /usr/bin/python3)
  python3-pandas               # tests read the result store as a pandas table
  openmpi-bin libopenmpi-dev   # `ceiling-mpi-sweep`: a sweep spread over MPI ranks
  clang libclang-rt-14-dev     # libFuzzer: the fuzz smoke run of the test command (tools/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages: ${missing[*]}; run this script as root (or with sudo)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
