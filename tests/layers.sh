#!/usr/bin/env bash
# The layer check: each module's layer is read from the layout table in
# docs/hacking.md, and a file that includes the header of a module in a
# higher layer fails, as does a module of src/ or include/ that the table
# lacks, a row for a module that is not there, and rows out of layer order.
# Usage: tests/layers.sh [TREE]   (the tree to check; this one by default)
set -u
tree=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$tree" || exit 2
shopt -s nullglob
awk '
function fail(what, why) { print "FAIL layers/" what ": " why; bad[what] = 1 }
# The table: from its "| layer | module |" header to the first line that
# is not a row. The layer is the number the first cell starts with.
FILENAME == "docs/hacking.md" {
	if ($0 ~ /^\| *layer *\| *module *\|/) { intable = 1; next }
	if (!intable) next
	if ($0 !~ /^\|/) { intable = 0; next }
	if ($0 ~ /^\|[- |:]*$/) next
	split($0, cell, "|")
	lay = cell[2]; mod = cell[3]
	gsub(/[ `]/, "", mod)
	if (!match(lay, /^ *[0-9]+/)) { fail("table", "row without a layer number: " $0); next }
	num = substr(lay, RSTART, RLENGTH) + 0
	name = lay; sub(/^ *[0-9]+ */, "", name); sub(/ *$/, "", name)
	if (num < last) fail("table", mod " (layer " num ") comes after layer " last ": rows go by layer")
	last = num
	if (mod in layer) fail("table", mod " has two rows")
	layer[mod] = num; lname[mod] = num " " name; nrows++
	next
}
FNR == 1 {
	f = FILENAME; m = f; sub(/^.*\//, "", m); sub(/\.[ch]$/, "", m)
	mod_of = m; seen[m] = 1; nfiles++
	if (!(m in layer)) fail("table", f ": module " m " is not in the layout table of docs/hacking.md")
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	h = $0; sub(/^[^"]*"/, "", h); sub(/".*$/, "", h)
	hm = h; sub(/\.h$/, "", hm); nincl++
	if (!(hm in layer) || !(mod_of in layer)) next
	if (layer[hm] > layer[mod_of])
		fail("includes", FILENAME ":" FNR " (" lname[mod_of] ") includes " h " (" lname[hm] ")")
}
END {
	if (!nrows) fail("table", "docs/hacking.md has no layout table (| layer | module | ... |)")
	for (m in layer) if (!(m in seen)) fail("table", m " has a row but no src/" m ".c or include/" m ".h")
	if (!("table" in bad)) print "PASS layers/table: " nrows " modules in layers, every file of src/ and include/ among them"
	if (!("includes" in bad)) print "PASS layers/includes: " nincl " includes, none from a lower layer to a higher one"
	exit ("table" in bad) || ("includes" in bad)
}' docs/hacking.md src/*.c include/*.h
