#!/usr/bin/env bash
# Installs everything kernelgen's build and tests use on Debian 12: the Debian packages, and from the npm registry
# ONNX Runtime into build/ort for the cross-checks and two published Silero VAD models into build/models for the
# import tests (skipped if npm is missing). Run it as yourself or as root, without sudo: the Debian packages need
# root, so apt-get runs through sudo unless the script already runs as root, and the rest (into build/) as the
# user who started it.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build             # the build
  nlohmann-json3-dev libkainjow-mustache-dev    # the generator: JSON, templates
  libgtest-dev                                  # the tests
  libonnx-dev libprotobuf-dev libonnx-testdata  # kernelgen import (ONNX models), ONNX's backend node tests
  clang libclang-rt-14-dev                      # strict C99 builds and sanitizers with clang
  gcc-arm-none-eabi libnewlib-arm-none-eabi     # strict C99 builds for Cortex-M
  qemu-system-arm                               # running the Cortex-M test program on an emulated board
  python3 python3-onnx python3-numpy            # building ONNX models for the ONNX Runtime cross-check
  python3-torch python3-torchvision             # real PyTorch exports for the import tests (torchvision: nms)
  python3-jsonschema                            # checking the spec JSON Schema against specs/ and docs/errors.md
  libbenchmark-dev valgrind gnuplot-nox         # bench/: Google Benchmark, callgrind counts, the chart
  gcc-avr avr-libc simavr                       # AVR (16-bit int and size_t): builds, and runs on a simulated ATmega
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc  # RISC-V RV32IMAC on qemu's virt board
  git man-db                                    # the docs tests: the files git tracks, `man -w` of an install
  frama-c-base why3 z3 cvc4                     # the proof tier: Frama-C's EVA and WP, why3 and its provers
)
if ! command -v npm > /dev/null; then
  packages+=(nodejs npm)                        # running ONNX Runtime (onnxruntime-node)
fi

step() { echo "install-deps.sh: $*"; }
if [ "$(id -u)" -eq 0 ]; then
  as_root() { "$@"; }
elif command -v sudo > /dev/null; then
  as_root() { sudo "$@"; }
  step "the Debian packages need root: apt-get runs through sudo, which may ask for your password"
else
  echo "install-deps.sh: the Debian packages need root: run this as root, or install sudo" >&2
  exit 1
fi
step "updating the Debian package lists (apt-get update)"
as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
step "installing ${#packages[@]} Debian packages (several minutes on a fresh machine; apt-get is quiet until it is done)"
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" > /dev/null

if command -v npm > /dev/null; then
  step "ONNX Runtime 1.30 (onnxruntime-node, from npm) into build/ort"
  mkdir -p build/ort
  npm install --ignore-scripts --no-audit --no-fund --silent --prefix build/ort onnxruntime-node@1.30.0
  # Real published models for the import tests: the Silero VAD exports shipped in @ricky0123/vad-web.
  mkdir -p build/models
  if [ ! -f build/models/silero_vad_v5.onnx ]; then
    step "the Silero VAD models (@ricky0123/vad-web, from npm) into build/models"
    tarball=$(cd build/models && npm pack --silent @ricky0123/vad-web@0.0.31)
    tar -xzf "build/models/$tarball" -C build/models --strip-components=2 \
      package/dist/silero_vad_legacy.onnx package/dist/silero_vad_v5.onnx
    rm -f "build/models/$tarball"
  fi
fi
step "done"
