#!/usr/bin/env bash
# The Python gRPC peer of test/grpc/pythonInterop.test.ts: grpcio (gRPC's C core), protobuf and
# protoc (CI and local runs).
#
#   eval "$(bash scripts/ci-python-grpc.sh)"   # exports A2A_TEST_PYTHON
#
# Finds a python3 that imports grpc and google.protobuf (A2A_TEST_PYTHON, python3, Debian's
# /usr/bin/python3) and protoc; when one is missing, installs Debian's python3-grpcio,
# python3-protobuf and protobuf-compiler only if asked to — CI=true (CI sets it) or
# A2A_TEST_INSTALL_PYTHON_GRPC=1 — and running as root with apt-get (a local run never installs
# anything by itself; no pip, no other network). Prints the `export` line on stdout, everything
# else on stderr; exits 1, saying what is missing, when the peer cannot be had.
set -euo pipefail

log() { echo "ci-python-grpc: $*" >&2; }
PROBE='import grpc, google.protobuf'
PACKAGES=(python3-grpcio python3-protobuf protobuf-compiler)

find_python() {
  local p
  for p in ${A2A_TEST_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "$PROBE" >/dev/null 2>&1; then command -v "$p"; return 0; fi
  done
  return 1
}

found() { find_python >/dev/null && command -v protoc >/dev/null 2>&1; }

if ! found; then
  if [ "${CI:-}" != "true" ] && [ "${A2A_TEST_INSTALL_PYTHON_GRPC:-}" != "1" ]; then
    log "no python3 with grpcio + protobuf, or no protoc (install ${PACKAGES[*]}, or set A2A_TEST_INSTALL_PYTHON_GRPC=1 to let this script install them)"
    exit 1
  fi
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    log "no python3 with grpcio + protobuf, or no protoc, and no root apt-get to install ${PACKAGES[*]}"
    exit 1
  fi
  log "installing Debian's ${PACKAGES[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >&2
  found || { log "still missing after install: a python3 with grpcio + protobuf, or protoc"; exit 1; }
fi

python="$(find_python)"
log "$("$python" -c 'import grpc, google.protobuf as p; print("grpcio", grpc.__version__, "protobuf", p.__version__)') ($python), $(protoc --version)"
echo "export A2A_TEST_PYTHON='$python'"
