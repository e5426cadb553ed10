#!/bin/bash
# Compares doc/man/marvel.1 with the program: every command `marvel --help` lists has a section
# (.SS "marvel COMMAND") and no other section exists; each section names exactly the options
# (--name) that `marvel COMMAND --help` prints, no more, no fewer (--help and --version aside).
# Given marvel-studio and its page too, the page names exactly the options its --help prints.
#   check-man.sh MARVEL_EXECUTABLE MAN_PAGE [MARVEL_STUDIO_EXECUTABLE MAN_PAGE]
set -euo pipefail
marvel=$1
man=$2
options() { grep -oE -- '--[a-z][a-z0-9-]*' | grep -vxE -- '--(help|version)' | sort -u || true; }
# The man page's text of one section, roff's escaped hyphens as plain ones.
section() {
  sed 's/\\-/-/g; s/\\&//g' "$man" | awk -v want=".SS \"marvel $1\"" '
    $0 == want { on = 1; next }
    on && /^\.S[HS]/ { on = 0 }
    on { print }'
}
commands=$("$marvel" --help | awk '/^commands:/ { on = 1; next } NF == 0 { on = 0 } on { print $1 }' | sort)
sections=$(grep -oE '^\.SS "marvel [a-z-]+"' "$man" | sed 's/^\.SS "marvel //; s/"$//' | sort)
status=0
if [ -z "$commands" ]; then
  echo "check-man: no commands in '$marvel --help'"
  exit 1
fi
if [ "$commands" != "$sections" ]; then
  echo "check-man: commands of 'marvel --help' and sections of $man differ:"
  diff <(echo "$commands") <(echo "$sections") || true
  status=1
fi
for c in $commands; do
  help=$("$marvel" "$c" --help | options)
  page=$(section "$c" | options)
  if [ "$help" != "$page" ]; then
    echo "check-man: marvel $c: options of --help (<) and of the man page (>) differ:"
    diff <(echo "$help") <(echo "$page") || true
    status=1
  fi
done
if [ $# -ge 4 ]; then
  help=$(QT_QPA_PLATFORM=offscreen "$3" --help 2>/dev/null | options)
  page=$(sed 's/\\-/-/g' "$4" | options)
  if [ "$help" != "$page" ]; then
    echo "check-man: marvel-studio: options of --help (<) and of $4 (>) differ:"
    diff <(echo "$help") <(echo "$page") || true
    status=1
  fi
fi
[ $status -eq 0 ] && echo "check-man: $(echo "$commands" | wc -l) commands, man page and --help agree"
exit $status
