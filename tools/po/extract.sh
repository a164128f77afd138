#!/bin/bash
# Extracts every message a player reads into a gettext template (.pot):
#   tools/po/extract.sh OUT.pot            (the build runs it; tests compare the catalogs)
#   tools/po/extract.sh --update           (refreshes tools/po/kumalak.pot and merges it
#                                           into each tools/po/<lang>.po with msgmerge)
# C++ and the page's JavaScript call tr(msgid, ...) and trn(singular, plural, n, ...);
# the pages' static text is the data-i18n* attributes of index.html (the board) and
# run.html (the Run view), which xgettext cannot read, so they are turned into a small
# .po first and concatenated.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  out=$here/kumalak.pot
else
  out=${1:?usage: extract.sh OUT.pot | --update}
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
find core mcts tools -name '*.cpp' -o -name '*.h' | grep -v '^tools/po/' | LC_ALL=C sort > "$tmp/cpp"
ls tools/web/*.js | LC_ALL=C sort > "$tmp/js"
common=(--from-code=UTF-8 --keyword= --keyword=tr --keyword=tr_noop --keyword=trn:1,2 --add-location=file
        --package-name=KumalakZero --msgid-bugs-address=" " --force-po --sort-by-file --no-wrap)
xgettext "${common[@]}" --language=C++ --files-from="$tmp/cpp" -o "$tmp/cpp.pot"
xgettext "${common[@]}" --language=JavaScript --files-from="$tmp/js" -o "$tmp/js.pot"
{
  printf 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
  for page in tools/web/index.html tools/web/run.html; do
    { grep -o 'data-i18n[a-z-]*="[^"]*"' "$page" || true; } | sed 's/^[^"]*"//; s/"$//' |
      sed 's/&amp;/\&/g; s/\\/\\\\/g' | while IFS= read -r id; do
        printf '#: %s\nmsgid "%s"\nmsgstr ""\n\n' "$page" "$id"
      done
  done
} > "$tmp/html.po"
msguniq --use-first --force-po "$tmp/html.po" -o "$tmp/html.pot"
msgcat --use-first --force-po --no-wrap -o "$tmp/all.pot" "$tmp/cpp.pot" "$tmp/js.pot" "$tmp/html.pot"
# A stable file: no creation date, so that an unchanged source gives the same bytes.
sed -e '/^"POT-Creation-Date:/d' -e 's/charset=CHARSET/charset=UTF-8/' "$tmp/all.pot" > "$out.tmp"
mv "$out.tmp" "$out"
if ((update)); then
  for po in "$here"/*.po; do
    msgmerge --quiet --update --backup=none --no-wrap "$po" "$out"
  done
fi
