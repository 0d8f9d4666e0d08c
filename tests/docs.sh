#!/usr/bin/env bash
# The documents: every relative link of README.md and docs/*.md leads to
# a file of the tree, and to a heading of it where the link names one
# (as GitHub makes a heading's anchor); the README stays a short front
# page; docs/testing.md names every end-to-end script.
# Usage: tests/docs.sh [TREE]   (the tree to check; this one by default)
set -u
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$tree" || exit 2
shopt -s nullglob
bad=0
fail() { echo "FAIL docs/$1: $2"; bad=1; }
docs=(README.md docs/*.md)

# A line each: "H file anchor" for a heading, "L file line target" for a
# link; fenced blocks and code spans hold neither.
list=$(awk '
FNR == 1 { fence = 0; delete seen }
/^```/ { fence = !fence; next }
fence { next }
/^#+ / {
	a = tolower($0); sub(/^#+ +/, "", a); gsub(/[^a-z0-9 _-]/, "", a); gsub(/ /, "-", a)
	n = seen[a]++; if (n) a = a "-" n
	print "H", FILENAME, a
}
{
	s = $0; gsub(/`[^`]*`/, "", s)
	while (match(s, /\]\([^) ]+\)/)) {
		print "L", FILENAME, FNR, substr(s, RSTART + 2, RLENGTH - 3)
		s = substr(s, RSTART + RLENGTH)
	}
}' "${docs[@]}")

declare -A anchor
while read -r kind file a; do
	[ "$kind" = H ] && anchor["$(realpath -m "$file")#$a"]=1
done <<<"$list"

nlinks=0
while read -r kind file line target; do
	[ "$kind" = L ] || continue
	case $target in *://* | mailto:*) continue ;; esac
	nlinks=$((nlinks + 1))
	path=${target%%#*} frag=
	[[ $target == *"#"* ]] && frag=${target#*#}
	if [ -z "$path" ]; then to=$(realpath -m "$file")
	else to=$(realpath -m "$(dirname "$file")/$path"); fi
	case $to in "$PWD"/*) ;; *) fail links "$file:$line: $target leaves the tree"; continue ;; esac
	if [ ! -e "$to" ]; then
		fail links "$file:$line: $target: no such file"
	elif [ -n "$frag" ] && [ -z "${anchor["$to#$frag"]:-}" ]; then
		fail links "$file:$line: $target: no heading #$frag there"
	fi
done <<<"$list"
[ "$nlinks" -ge 20 ] || fail links "only $nlinks relative links found"
[ $bad -eq 0 ] && echo "PASS docs/links: $nlinks relative links in ${#docs[@]} documents, each to a file and heading there"

lines=$(wc -l <README.md)
if [ "$lines" -le 250 ]; then echo "PASS docs/readme-short: README.md has $lines lines"
else fail readme-short "README.md has $lines lines, more than 250: the rest goes to docs/"; fi

missing=
for t in tests/e2e/[0-9]*.sh; do
	grep -qF "\`$(basename "$t")\`" docs/testing.md || missing="$missing $(basename "$t")"
done
if [ -z "$missing" ]; then echo "PASS docs/test-list: docs/testing.md names every end-to-end script"
else fail test-list "docs/testing.md does not name$missing"; fi
exit $bad
