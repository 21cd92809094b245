#!/usr/bin/env bash
# Installs dist/tmuxmcp-VERSION.tgz (make dist) as a user would, with npx,
# in a temporary directory with its own HOME and npm cache, and checks that
#   - `npx -y ./tmuxmcp-VERSION.tgz --version` prints VERSION and the revision;
#   - `npx -y ./tmuxmcp-VERSION.tgz doctor` passes and reads a pane raw;
#   - the same serves MCP over stdio: initialize, tools/list, a command run
#     in a pane, list_panes with ingest "pipe" (tmux's pipe-pane started the
#     binary itself as the relay, not the npm launcher), and an exit 0 when
#     its input ends.
# Needs node and npm; no network (the package has no dependencies).
# Usage: .ci/npm-smoke.sh [dist/tmuxmcp-VERSION.tgz]
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
VERSION=${VERSION:-$(.ci/version.sh)}
TGZ=${1:-dist/tmuxmcp-$(node -e 'console.log(process.argv[1].replace(/^v/, "").replace(/\+.*/, ""))' "$VERSION").tgz}
[ -f "$TGZ" ] || { echo "npm-smoke: no $TGZ: run make dist first" >&2; exit 1; }

T=$(mktemp -d)
SOCK="tmuxmcp-npm-smoke-$$"
cleanup() {
  for s in "$SOCK" "tmuxmcp-npm-doctor-$$"; do
    tmux -L "$s" kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$s" # tmux 3.3a leaves a killed server's socket file
  done
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/home" "$T/work"
cp "$TGZ" "$T/work/"
cd "$T/work"
# offline: the package must install from the file alone, with nothing fetched
export HOME="$T/home" npm_config_cache="$T/npm-cache" npm_config_offline=true npm_config_update_notifier=false SHELL=/bin/bash
PKG=./$(basename "$TGZ")

out=$(npx -y "$PKG" --version)
echo "$out"
case "$out" in
  "tmuxmcp $VERSION revision "*) ;;
  *) echo "npm-smoke: --version printed $out; want tmuxmcp $VERSION revision …" >&2; exit 1 ;;
esac

doctor=$(npx -y "$PKG" doctor -L "tmuxmcp-npm-doctor-$$" --tmux-config /dev/null --state-dir "$T/state-doctor" 2>&1) || {
  echo "$doctor" >&2; echo "npm-smoke: doctor failed" >&2; exit 1; }
echo "$doctor" | grep -E '^(ok|--|!!|no) +shell'
echo "$doctor" | grep -q 'output read raw' || { echo "$doctor" >&2; echo "npm-smoke: doctor did not read the pane raw" >&2; exit 1; }

summary=$(node "$REPO/.ci/npm-client.js" npx -y "$PKG" -L "$SOCK" --tmux-config /dev/null --state-dir "$T/state" 2>"$T/server.log") || {
  cat "$T/server.log" >&2; exit 1; }
echo "$summary"
node -e '
const s = JSON.parse(process.argv[1]);
const want = (ok, what) => { if (!ok) { console.error("npm-smoke: " + what); process.exit(1); } };
want(s.tools.includes("run_shell_command"), "tools/list has no run_shell_command");
want(s.run.exitCode === 0 && s.run.output === "smoke-42\n", "the command did not print smoke-42 with exit 0");
want(s.panes.length > 0 && s.panes.every((p) => p.ingest === "pipe"), "a pane is not read raw (ingest pipe)");
want(s.exit.code === 0, "the server did not exit 0 when its input ended");
' "$summary"
echo "npm-smoke: ok"
