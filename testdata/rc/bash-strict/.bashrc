# Strict mode in an interactive rc: unset variables are errors, pipelines
# fail on any failing stage. The prompt reads a variable that may be unset.
set -uo pipefail
PS1='strict:\W\$ '
PROMPT_COMMAND='echo -n "${VIRTUAL_ENV:+(venv) }"'
