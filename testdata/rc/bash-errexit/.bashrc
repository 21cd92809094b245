# set -e in an interactive rc (copied from a script): any failing command
# would end this shell.
set -euo pipefail
PS1='errexit\$ '
