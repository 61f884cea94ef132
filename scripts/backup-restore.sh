#!/usr/bin/env bash
# Backs up, wipes and restores both databases with the commands docs/production.md gives, and
# checks that SDKs are served the same document afterwards. For each database: starts the built
# service, makes flags, strategies, variants and a segment through the admin API, saves
# GET /api/client/features, backs up, wipes (the data folder, or the database), restores,
# starts again and compares the document (equal after JSON parsing). Exits non-zero on any
# difference or failure.
#
#   bash scripts/backup-restore.sh        DATABASE_URL names the PostgreSQL server to use
#                                         (default postgres://postgres@127.0.0.1:5432/test); a
#                                         database of its own is created there and dropped after.
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
ADMIN="*:*.backup-restore-admin"
CLIENT="*:development.backup-restore-client"
WORK="$(mktemp -d)"
DATABASE="signalbox_backup_$$"
PID=""

say() { echo "backup-restore: $*"; }

cleanup() {
  if [ -n "$PID" ]; then kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  dropdb --if-exists --maintenance-db="$SERVER_URL" "$DATABASE" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

node scripts/build.mjs >/dev/null

PORT="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')"
URL="http://127.0.0.1:$PORT"

# Starts the service with the environment given ("DATABASE_URL=…" or "DATA_DIR=…") and waits
# until it answers /health, or fails if it exits first. A DATABASE_URL of the caller's (CI
# exports one) must not reach the embedded run.
start() {
  env -u DATABASE_URL "$@" PORT="$PORT" HOST=127.0.0.1 LOG_LEVEL=warn UI_DIR=none \
    INIT_ADMIN_API_TOKENS="$ADMIN" INIT_CLIENT_API_TOKENS="$CLIENT" \
    node packages/server/dist/cli.js >>"$WORK/service.log" 2>&1 &
  PID=$!
  until curl -fsS "$URL/health" >/dev/null 2>&1; do
    if ! kill -0 "$PID" 2>/dev/null; then
      cat "$WORK/service.log" >&2
      say "the service exited before it was healthy"
      exit 1
    fi
    sleep 0.2
  done
}

stop() {
  kill -TERM "$PID"
  wait "$PID" || true
  PID=""
}

admin() { # method path [body]
  curl -fsS -X "$1" -H "Authorization: $ADMIN" -H "Content-Type: application/json" \
    ${3:+--data "$3"} "$URL$2"
}

configure() {
  local segment flags=/api/admin/projects/default/features env=environments/development
  segment="$(admin POST /api/admin/segments \
    '{"name":"nordics","constraints":[{"contextName":"country","operator":"IN","values":["NO","SE","DK"]}]}' | jq .id)"
  for name in checkout banner beta-users dark-mode; do
    admin POST "$flags" "{\"name\":\"$name\"}" >/dev/null
  done
  admin POST "$flags/checkout/$env/strategies" '{"name":"flexibleRollout",
    "parameters":{"rollout":"40","stickiness":"default","groupId":"checkout"},
    "constraints":[{"contextName":"plan","operator":"IN","values":["pro","enterprise"]}],
    "variants":[{"name":"blue","weight":500,"weightType":"variable","stickiness":"default","payload":{"type":"json","value":"{\"color\":\"blue\"}"}},
                {"name":"green","weight":500,"weightType":"variable","stickiness":"default"}]}' >/dev/null
  admin POST "$flags/banner/$env/strategies" "{\"name\":\"flexibleRollout\",
    \"parameters\":{\"rollout\":\"25\",\"stickiness\":\"userId\",\"groupId\":\"banner\"},\"segments\":[$segment]}" >/dev/null
  admin POST "$flags/beta-users/$env/strategies" \
    '{"name":"userWithId","parameters":{"userIds":"alice,bob"}}' >/dev/null
  for name in checkout banner beta-users; do admin POST "$flags/$name/$env/on" >/dev/null; done
}

sdk_document() { # file
  curl -fsS -H "Authorization: $CLIENT" "$URL/api/client/features" >"$1"
}

same_document() { # before after label
  node -e '
    const { readFileSync } = require("node:fs");
    const { isDeepStrictEqual } = require("node:util");
    const [before, after] = process.argv.slice(1, 3).map((file) => JSON.parse(readFileSync(file, "utf8")));
    if (before.features.length === 0) throw new Error("nothing was configured");
    if (!isDeepStrictEqual(before, after)) {
      console.error("backup-restore: " + process.argv[3] + ": the SDK document differs after the restore");
      console.error(JSON.stringify({ before, after }, null, 2));
      process.exit(1);
    }
    console.log("backup-restore: " + process.argv[3] + ": the same SDK document after the restore (" + before.features.length + " flags)");
  ' "$1" "$2" "$3"
}

# The embedded database: the data folder, copied while the service is stopped.
DATA_DIR="$WORK/data"
start DATA_DIR="$DATA_DIR"
configure
sdk_document "$WORK/embedded-before.json"
stop
[ -f "$DATA_DIR/PG_VERSION" ] || { say "the embedded run left no database in $DATA_DIR"; exit 1; }
tar -czf "$WORK/signalbox-backup.tar.gz" -C "$DATA_DIR" .
rm -rf "$DATA_DIR"
mkdir -p "$DATA_DIR" && tar -xzf "$WORK/signalbox-backup.tar.gz" -C "$DATA_DIR"
start DATA_DIR="$DATA_DIR"
sdk_document "$WORK/embedded-after.json"
stop
same_document "$WORK/embedded-before.json" "$WORK/embedded-after.json" embedded

# PostgreSQL: pg_dump while the service runs (a consistent snapshot), the database dropped,
# created empty again and restored with pg_restore.
createdb --maintenance-db="$SERVER_URL" "$DATABASE"
DATABASE_URL="$(node -e 'const url = new URL(process.argv[1]); url.pathname = "/" + process.argv[2]; console.log(url.href)' "$SERVER_URL" "$DATABASE")"
start DATABASE_URL="$DATABASE_URL"
configure
sdk_document "$WORK/postgres-before.json"
pg_dump --format=custom --file="$WORK/signalbox.dump" "$DATABASE_URL"
stop
dropdb --maintenance-db="$SERVER_URL" "$DATABASE"
createdb --maintenance-db="$SERVER_URL" "$DATABASE"
pg_restore --no-owner --exit-on-error --dbname="$DATABASE_URL" "$WORK/signalbox.dump"
start DATABASE_URL="$DATABASE_URL"
sdk_document "$WORK/postgres-after.json"
stop
same_document "$WORK/postgres-before.json" "$WORK/postgres-after.json" postgres
