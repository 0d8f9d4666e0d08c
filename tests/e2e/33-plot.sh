#!/usr/bin/env bash
# lane: other
# history plot: an SVG that validates and renders with librsvg, and a
# gnuplot script that gnuplot runs, from real runs and from an imported
# export with a sysctl change; bad input leaves no file behind.
. "$(dirname "$0")/lib.sh"
DB=$TMP/h.db
H() { "$T" history --history "$DB" "$@"; }
for c in xmllint rsvg-convert gnuplot; do
	command -v $c >/dev/null || { fail "$c-missing" "make check installs it (CHECK_TOOLS)"; exit 1; }
done

H import "$ROOT/tests/golden/json.txt" >/dev/null 2>"$TMP/err" || { fail import "$(cat "$TMP/err")"; exit 1; }
"$T" -b -n 2000000 -p 1 -d 0.1 --history "$DB" -L real >"$TMP/out" 2>&1
real=$(H list --label=real | awk '$1 ~ /^[0-9]+$/ { print $1; exit }')
[ -n "$real" ] || { fail real-run "no run stored: $(cat "$TMP/out")"; exit 1; }

H plot 1 4 "$real" --svg "$TMP/c.svg" 2>"$TMP/err"; rc=$?
expect svg-written test "$rc" -eq 0 -a -s "$TMP/c.svg" -a ! -s "$TMP/err"
expect svg-valid xmllint --noout "$TMP/c.svg"
rsvg-convert -o "$TMP/c.png" "$TMP/c.svg" 2>"$TMP/err"; rc=$?
expect svg-renders test "$rc" -eq 0 -a -s "$TMP/c.png" -a ! -s "$TMP/err"
expect png-is-png bash -c "head -c 8 '$TMP/c.png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
# Each run labelled, the axes with their units, the change marked, the
# result lines as the caption (the same lines history show prints).
for id in 1 4 "$real"; do
	csh=$(H show "$id" | sed -n 's/^time (csh)  *//p')
	expect "caption-$id" grep -qF -- "#$id: $csh" "$TMP/c.svg"
	expect "legend-$id" grep -q ">#$id " "$TMP/c.svg"
done
expect kswapd-line-in-caption grep -qF '0:00 kswapd</text>' "$TMP/c.svg"
for axis in 'swap used (MiB)' 'free (' 'major faults (faults/s)' 'kswapd CPU (% of a CPU)' \
	'seconds since the run started'; do
	expect "axis[$axis]" grep -qF "$axis" "$TMP/c.svg"
done
expect sysctl-marker grep -qF "vm.swappiness 60→100" "$TMP/c.svg"
expect one-line-per-run-and-panel test "$(grep -c '<path ' "$TMP/c.svg")" -eq 12

H plot "$real" --series=available,minflt --format=gnuplot >"$TMP/c.gp" 2>"$TMP/err"; rc=$?
expect gnuplot-written test "$rc" -eq 0 -a -s "$TMP/c.gp"
expect gnuplot-has-data grep -q "^\$run$real << EOD" "$TMP/c.gp"
gnuplot -e "set terminal svg size 900,600; set output '$TMP/g.svg'" "$TMP/c.gp" >"$TMP/gout" 2>&1; rc=$?
expect gnuplot-runs test "$rc" -eq 0 -a -s "$TMP/g.svg"
[ "$rc" -eq 0 ] || sed 's/^/  gnuplot: /' "$TMP/gout"
expect gnuplot-svg-valid xmllint --noout "$TMP/g.svg"
expect gnuplot-two-panels test "$(grep -c '^set ylabel' "$TMP/c.gp")" -eq 2

# Bad input: one line, exit 2, no file.
bad() {	# NAME ARGS...
	local name=$1; shift
	H plot "$@" >"$TMP/out" 2>"$TMP/err"; local rc=$?
	expect "$name" test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1 -a ! -e "$TMP/bad.svg"
	[ "$rc" -eq 2 ] || cat "$TMP/err"
}
bad no-id --svg "$TMP/bad.svg"
bad unknown-id 1 999 --svg "$TMP/bad.svg"
bad not-an-id 1 x --svg "$TMP/bad.svg"
bad unknown-series 1 --series=swap-used,nope --svg "$TMP/bad.svg"
bad no-output 1
bad svg-and-gnuplot 1 --svg "$TMP/bad.svg" --format=gnuplot
H list --format=svg >"$TMP/out" 2>"$TMP/err"; rc=$?
expect svg-only-for-plot test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
# a file that cannot be made there is bad input, as --cast's is
H plot 1 --svg "$TMP/nodir/c.svg" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect unwritable-one-line test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
expect unwritable-named grep -qx "thrashtop: history: --svg $TMP/nodir/c.svg: No such file or directory" "$TMP/err"
[ "$rc" -eq 2 ] || cat "$TMP/err"
mkdir "$TMP/svgdir"
H plot 1 --svg "$TMP/svgdir" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect svg-directory-refused test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1 -a -z "$(ls -A "$TMP/svgdir")"
expect svg-directory-named grep -q "^thrashtop: history: --svg $TMP/svgdir: Is a directory$" "$TMP/err"
[ "$rc" -eq 2 ] || cat "$TMP/err"
rmdir "$TMP/svgdir"
expect unwritable-nothing-left test -z "$(ls "$TMP" | grep -v -e '^h.db' -e '^c\.' -e '^g\.' -e out -e err)"
