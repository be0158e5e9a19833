#!/usr/bin/env bash
# Quickstart: brings the services up, starts `toolshed serve` in the background (API + worker),
# waits for /healthz, then prints the admin key and a first request.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/services.sh

data="${DATA_DIR:-$repo/data}"
[[ $data = /* ]] || data="$repo/$data"
logs="$data/logs"
server_log="$logs/toolshed.log"
mkdir -p "$logs"
url="http://${HOST:-127.0.0.1}:${PORT:-8080}"
log() { printf '[up] %s\n' "$*" >&2; }

if curl -fsS -m 2 "$url/healthz" >/dev/null 2>&1; then
  log "toolshed already answers at $url"
else
  nohup npm run -s toolshed -- serve >>"$server_log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$data/toolshed.pid"
  log "started toolshed serve (pid $pid, log $server_log)"
  for _ in $(seq 1 120); do
    curl -fsS -m 2 "$url/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { tail -n 40 "$server_log" >&2; log "toolshed exited"; exit 1; }
    sleep 0.5
  done
  curl -fsS -m 2 "$url/healthz" >/dev/null 2>&1 || { tail -n 40 "$server_log" >&2; log "no /healthz after 60 s"; exit 1; }
  # npm does not pass SIGTERM on to the server: record the innermost `main.ts serve` process
  # (npm → sh → tsx → node), whose SIGTERM handler shuts down gracefully.
  server_pid=$pid
  while child="$(pgrep -P "$server_pid" -f 'main\.ts serve' 2>/dev/null | head -n1)" && [[ -n $child ]]; do
    server_pid=$child
  done
  echo "$server_pid" >"$data/toolshed.pid"
fi

# The admin key: the configured one, else the one the server printed at its first start.
key="${TOOLSHED_ADMIN_KEY:-}"
if [[ -z $key && -f $server_log ]]; then
  key="$(grep -i 'admin key' "$server_log" | grep -oE 'tsk_[A-Za-z0-9_-]+' | tail -n1 || true)"
fi

echo
echo "Toolshed is up at $url (stop it with: kill \$(cat $data/toolshed.pid))"
if [[ -n $key ]]; then
  echo "Admin key: $key"
else
  echo "Admin key: not in $server_log (it is printed once, at the first start; or set TOOLSHED_ADMIN_KEY)"
  key='<admin key>'
fi
echo
echo "First request (create a tenant):"
echo "  curl -sS -X POST $url/v1/tenants -H 'Authorization: Bearer $key' -H 'Content-Type: application/json' -d '{\"name\":\"demo\"}'"
