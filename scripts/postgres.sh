#!/usr/bin/env bash
# A local Postgres for Toolshed, on loopback only, idempotently:
#   bash scripts/postgres.sh [start] [--dir DIR] [--port PORT]   prints the DATABASE_URL (stdout)
#   bash scripts/postgres.sh url [--dir DIR] [--port PORT]       prints it without starting anything
#   bash scripts/postgres.sh stop [--dir DIR]
# Installs Debian's `postgresql` when no server binaries exist (as root; no default cluster is
# made), runs `initdb` into DIR (default $DATA_DIR/postgres), and starts the server on
# 127.0.0.1:PORT (default 54329) with its unix socket inside DIR. A role and a database named
# `toolshed` are made; the role may create databases (tests make throw-away ones) and end
# other roles' connections to them (pg_signal_backend). Its password is generated once and kept
# in DIR/toolshed.password (0600). Postgres refuses to run as root: as root, the server runs as
# the `postgres` user.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd=start
if [[ ${1:-} =~ ^(start|stop|url)$ ]]; then
  cmd=$1
  shift
fi
data="${DATA_DIR:-$repo/data}"
[[ $data = /* ]] || data="$repo/$data"
dir="$data/postgres"
port="${PG_PORT:-54329}"
explicit_port=${PG_PORT:+1}
explicit_dir=0
while (($# > 0)); do
  case $1 in
  --dir) dir=$2; explicit_dir=1; shift 2 ;;
  --port) port=$2; explicit_port=1; shift 2 ;;
  *) echo "usage: postgres.sh [start|stop|url] [--dir DIR] [--port PORT]" >&2; exit 2 ;;
  esac
done
[[ $dir = /* ]] || dir="$PWD/$dir"
log() { printf '[postgres] %s\n' "$*" >&2; }
# As root the server runs as `postgres`, which must reach DIR through every parent. A checkout
# under a private home (CI's /root/…) does not allow that: the default then moves to
# /var/lib/postgresql/toolshed-PORT, the same for start, url and stop.
reachable_by_postgres() {
  local d=$1
  while [[ ! -e $d ]]; do d=$(dirname "$d"); done
  su postgres -s /bin/bash -c "cd $(printf '%q' "$d")" 2>/dev/null
}
pick_dir() {
  if ((EUID == 0 && explicit_dir == 0)) && id postgres >/dev/null 2>&1 && ! reachable_by_postgres "$dir"; then
    dir="/var/lib/postgresql/toolshed-$port"
  fi
}
pick_dir
export DEBIAN_FRONTEND=noninteractive

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
# Runs a command as the server's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if ((EUID == 0)); then
    su postgres -s /bin/bash -c "$(printf '%q ' "$@")"
  else
    "$@"
  fi
}
url_of() {
  printf 'postgres://toolshed:%s@127.0.0.1:%s/toolshed\n' "$(cat "$dir/toolshed.password")" "$1"
}
running_port() {
  [[ -f $dir/postmaster.pid ]] && as_owner "$(bindir)/pg_ctl" -D "$dir" status >/dev/null 2>&1 &&
    sed -n 4p "$dir/postmaster.pid"
}

case $cmd in
stop)
  if [[ -n $(bindir) && -f $dir/postmaster.pid ]]; then
    as_owner "$(bindir)/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
    log "stopped ($dir)"
  fi
  exit 0
  ;;
url)
  [[ -f $dir/toolshed.password ]] || { log "no cluster in $dir: run postgres.sh start"; exit 1; }
  url_of "$(running_port || echo "$port")"
  exit 0
  ;;
esac

started=$SECONDS
if [[ -z $(bindir) ]]; then
  ((EUID == 0)) || { log "postgresql is not installed: run this script as root once"; exit 1; }
  # No `main` cluster on 5432: this script makes its own, where it is told to.
  mkdir -p /etc/postgresql-common
  grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf ||
    echo 'create_main_cluster = false' >>/etc/postgresql-common/createcluster.conf
  if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -mmin -1440 -print -quit 2>/dev/null) ]]; then
    apt-get update -qq
  fi
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  log "installed postgresql ($((SECONDS - started)) s)"
fi
bin="$(bindir)"
pick_dir # the `postgres` user may be new

if [[ ! -f $dir/PG_VERSION ]]; then
  mkdir -p "$dir"
  chmod 700 "$dir"
  if ((EUID == 0)); then
    chown postgres: "$dir"
    # The server must reach its directory: every parent has to be searchable by `postgres`.
    su postgres -s /bin/bash -c "test -x $(printf '%q' "$dir")" ||
      { log "user postgres cannot reach $dir: pick a --dir whose parents are world-searchable"; exit 1; }
  fi
  rm -f "$dir/toolshed.password.new"
  # Only loopback TCP with passwords, and the owner's own unix socket (peer).
  as_owner "$bin/initdb" -D "$dir" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$dir.initdb.log" 2>&1 || { tail -n 20 "$dir.initdb.log" >&2; exit 1; }
  rm -f "$dir.initdb.log"
  (umask 077 && head -c 18 /dev/urandom | base64 | tr '+/' 'AB' >"$dir/toolshed.password")
  ((EUID != 0)) || chown postgres: "$dir/toolshed.password"
  log "initdb $dir"
fi

if port_now=$(running_port); then
  port=$port_now
else
  # Another checkout's cluster may hold the default port: take the next free one (unless told).
  if [[ -z $explicit_port ]]; then
    for ((i = 0; i < 20; i++)); do
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
      log "127.0.0.1:$port is taken (another cluster?): trying $((port + 1))"
      port=$((port + 1))
    done
  fi
  as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $(printf '%q' "$dir") -c fsync=${PG_FSYNC:-on}" \
    start >/dev/null || { tail -n 20 "$dir/server.log" >&2; exit 1; }
  log "started on 127.0.0.1:$port ($((SECONDS - started)) s)"
fi

# The role and its database, once (over the owner's unix socket in $dir).
psql_owner() { as_owner "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -qAtX -v ON_ERROR_STOP=1 "$@"; }
if [[ $(psql_owner -c "select 1 from pg_roles where rolname = 'toolshed'") != 1 ]]; then
  pw="$(cat "$dir/toolshed.password")"
  psql_owner -c "create role toolshed login createdb password '$pw'" >/dev/null
  psql_owner -c "create database toolshed owner toolshed" >/dev/null
  log "created role and database toolshed"
fi
# Dropping a throw-away test database `with (force)` ends its connections, an autovacuum worker's
# among them: only a member of pg_signal_backend may end a process that is not its own.
if [[ $(psql_owner -c "select pg_has_role('toolshed', 'pg_signal_backend', 'member')") != t ]]; then
  psql_owner -c "grant pg_signal_backend to toolshed" >/dev/null
fi
url_of "$port"
