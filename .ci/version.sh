#!/usr/bin/env bash
# Prints the version a build from this checkout carries, in Go's own scheme
# (what `go list -m` and the module proxy would call the same commit):
#   v0.2.0                                   HEAD is tagged v0.2.0
#   v0.2.1-0.20261203182700-6e9df4d1a2b3     commits after the tag v0.2.0
#   v0.2.0-rc.1.0.20261203182700-6e9df4d1a2b3  commits after the tag v0.2.0-rc.1
#   v0.0.0-20261203182700-6e9df4d1a2b3       no tag yet
# with "+dirty" appended when the work tree has uncommitted changes.
# Only tags of the form vMAJOR.MINOR.PATCH[-PRERELEASE] count.
# Outside a git checkout it prints v0.0.0-devel.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
  echo v0.0.0-devel
  exit 0
fi
dirty=""
git diff --quiet HEAD 2>/dev/null || dirty="+dirty"

semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
exact=$(git tag --points-at HEAD --list 'v*' --sort=-version:refname | grep -E "$semver" | head -n1 || true)
if [ -n "$exact" ]; then
  echo "$exact$dirty"
  exit 0
fi

stamp=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)
rev=$(git rev-parse --short=12 HEAD)
# The nearest tag this commit descends from.
base=""
while read -r t; do
  if [[ $t =~ $semver ]]; then base=$t; break; fi
done < <(git tag --merged HEAD --list 'v*' --sort=-version:refname)

if [ -z "$base" ]; then
  echo "v0.0.0-$stamp-$rev$dirty"
elif [[ $base == *-* ]]; then # a prerelease: v1.2.3-rc.1 -> v1.2.3-rc.1.0.STAMP-REV
  echo "$base.0.$stamp-$rev$dirty"
else # a release: v1.2.3 -> v1.2.4-0.STAMP-REV
  IFS=. read -r major minor patch <<<"${base#v}"
  echo "v$major.$minor.$((patch + 1))-0.$stamp-$rev$dirty"
fi
