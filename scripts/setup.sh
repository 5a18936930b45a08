#!/usr/bin/env bash
# Installs every Debian package TileKit needs to build, test and benchmark. Idempotent: a second
# run installs nothing. Needs root (or sudo) and Debian 12's package archive.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git
  lld   # the linker of every preset (CMakeLists.txt, TILEKIT_LLD): links in a fifth of GNU ld's time
  libboost1.81-dev libboost-context1.81-dev   # Spirit X3 (parser, templates), Boost.Context (emulator fibers)
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev   # clang::format, LibTooling (pinned major 19)
  clang-format-19   # scripts/format.sh: the format check of the test command
  libclang-rt-19-dev   # clang's libFuzzer, ASan and UBSan runtimes: the fuzz preset (scripts/fuzz.sh)
  libcli11-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev
  python3-jinja2   # the reference Jinja for the template engine's conformance tests (/usr/bin/python3)
  gnuplot-nox   # bench/tt_bench.sh: the roofline plot (SVG) of the TT benchmark table
  graphviz   # dot: renders ttgen --emit=dot (the README's command, docs/ttgen.md's figure)
  python3-dev pybind11-dev   # the tilekit Python package (python/, docs/python.md)
  python3-torch python3-numpy python3-pytest   # ... its tensors, and its tests (pytest)
  libprotobuf-dev   # scripts/sdk_examples.sh: tt-metal's programming_examples/tests links protobuf::libprotobuf
)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
