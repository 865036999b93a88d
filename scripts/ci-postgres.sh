#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for tests (CI and local runs).
#
#   eval "$(bash scripts/ci-postgres.sh start)"   # exports A2A_TEST_POSTGRES_URL and A2A_TEST_POSTGRES_DIR
#   bash scripts/ci-postgres.sh stop "$A2A_TEST_POSTGRES_DIR"
#
# start: finds PostgreSQL binaries (PG_BIN, /usr/lib/postgresql/*/bin, pg_config, PATH; when none
# are found, installs Debian's `postgresql` only if asked to — CI=true (CI sets it) or
# A2A_TEST_INSTALL_POSTGRES=1 — and running as root; a local test run never installs anything
# by itself), runs initdb in a new temp dir as the
# `postgres` user when run as root, starts the server on 127.0.0.1 on a free port (unix socket
# in the temp dir, nothing else touched) and prints `export …` lines on stdout. Everything else
# goes to stderr. stop: fast shutdown, then removes the directory.
set -euo pipefail

log() { echo "ci-postgres: $*" >&2; }

find_bin() {
  if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/initdb" ]; then echo "$PG_BIN"; return 0; fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return 0; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

as_owner() {
  # Runs a command as the cluster owner: `postgres` when we are root (initdb refuses root).
  if [ "$(id -u)" = "0" ]; then
    if command -v runuser >/dev/null 2>&1; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
  else
    "$@"
  fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() {
  local bin
  if ! bin="$(find_bin)"; then
    if [ "${CI:-}" != "true" ] && [ "${A2A_TEST_INSTALL_POSTGRES:-}" != "1" ]; then
      log "no PostgreSQL binaries found (set PG_BIN, install postgresql, or set A2A_TEST_INSTALL_POSTGRES=1 to let this script install it)"
      exit 1
    fi
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      log "no PostgreSQL binaries found; installing Debian's postgresql"
      apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
      bin="$(find_bin)" || { log "PostgreSQL binaries still missing after install"; exit 1; }
    else
      log "no PostgreSQL binaries found (set PG_BIN, or install postgresql)"
      exit 1
    fi
  fi
  if [ "$(id -u)" = "0" ] && ! id postgres >/dev/null 2>&1; then
    useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
  fi
  local dir
  dir="$(mktemp -d "${TMPDIR:-/tmp}/a2a-pg.XXXXXX")"
  chmod 755 "$dir"
  [ "$(id -u)" = "0" ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  local port attempt
  for attempt in 1 2 3; do
    port="$(free_port)"
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" start >&2; then
      log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir"
      echo "export A2A_TEST_POSTGRES_URL='postgres://postgres@127.0.0.1:$port/postgres'"
      echo "export A2A_TEST_POSTGRES_DIR='$dir'"
      echo "export A2A_TEST_POSTGRES_BIN='$bin'"
      return 0
    fi
    log "start on port $port failed (attempt $attempt)"
    tail -n 20 "$dir/server.log" >&2 || true
  done
  exit 1
}

stop() {
  local dir="${1:-${A2A_TEST_POSTGRES_DIR:-}}"
  [ -n "$dir" ] && [ -d "$dir" ] || { log "stop: no cluster directory given"; exit 0; }
  local bin
  bin="${A2A_TEST_POSTGRES_BIN:-$(find_bin)}"
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
}

case "${1:-start}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *)
    echo "usage: $0 start | stop DIR" >&2
    exit 2
    ;;
esac
