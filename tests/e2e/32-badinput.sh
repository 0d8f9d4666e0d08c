#!/usr/bin/env bash
# lane: other
# Hostile and careless input: cut and broken imports, posted lines that do
# not parse, read-only histories, control bytes in labels and recorded
# text, unusable --history paths, repeated arguments, and an import at
# scale beside runs that must still be kept.
source "$(dirname "$0")/lib.sh"
DB=$TMP/h.db
H() { "$T" history --history "$DB" "$@"; }
# one_line RC FILE: the exit status is RC and FILE holds one line
one_line() { [ "$rc" -eq "$1" ] && [ "$(wc -l <"$2")" -eq 1 ]; }
csh() { printf '%s\n' "$@"; }

# A CSV cut inside a quote: one line and exit 2, never a crash.
printf 'id,uuid,label\n\n"x' >"$TMP/t.csv"
H import "$TMP/t.csv" >"$TMP/o" 2>"$TMP/e"; rc=$?
expect csv-cut-refused one_line 2 "$TMP/e"
expect csv-cut-named grep -q 'CSV record 3: unterminated quote' "$TMP/e"
"$T" -b -n 1000 -p 1 -r 2 -L cut --history "$TMP/src.db" >/dev/null 2>"$TMP/e"
"$T" history export --format=csv --history "$TMP/src.db" >"$TMP/full.csv"
crashed=0
for n in 300 1000 2500 5000; do
	head -c $n "$TMP/full.csv" >"$TMP/cut.csv"
	H import "$TMP/cut.csv" >/dev/null 2>"$TMP/e"; rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 2 ] || { crashed=$rc; echo "head -c $n: exit $rc: $(cat "$TMP/e")"; }
done
expect csv-cut-anywhere test $crashed -eq 0

# Three posted lines, the middle one bad: named by line, nothing imported.
good1='70.270u 7.330s 2:33.29 50.6% 0+0k 0+0io 19670pf+0w'
good2='70.120u 7.560s 2:45.04 47.0% 0+0k 0+0io 20403pf+0w'
for bad in '70.100u 7.100s 2:30.00 51.4%% 0+0k 0+0io 18000pf+0w' \
	   '70.100u 7.100s 2:30.00 99.9% 0+0k 0+0io 18000pf+0w' \
	   '70.100u 7.1x0s 2:30.00 51.4% 0+0k 0+0io 18000pf+0w'; do
	rm -f "$DB"
	csh "$good1" "$bad" "$good2" >"$TMP/p.txt"
	H import "$TMP/p.txt" >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "posted-bad-refused[$bad]" one_line 2 "$TMP/e"
	expect "posted-bad-line-named[$bad]" grep -q 'line 2: looks like a csh time line' "$TMP/e"
	expect "posted-bad-nothing-kept[$bad]" test ! -s "$TMP/o" -a ! -e "$DB"
	H import --skip-bad "$TMP/p.txt" >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "posted-skip-bad[$bad]" grep -q 'imported 2 runs' "$TMP/o"
	expect "posted-skip-bad-said[$bad]" grep -q 'skipped line 2' "$TMP/e"
done

# A line whose % is a tenth off its times (50.6% from them): imported with
# its posted %, one warning naming the line; exit 0.
rm -f "$DB"
csh "$good1" '70.270u 7.330s 2:33.29 50.7% 0+0k 0+0io 19670pf+0w' "$good2" >"$TMP/p.txt"
H import "$TMP/p.txt" >"$TMP/o" 2>"$TMP/e"; rc=$?
expect posted-pct-off-imported test $rc -eq 0 -a "$(cat "$TMP/o")" = "imported 3 runs from $TMP/p.txt (0 already present)"
expect posted-pct-off-warned test "$(cat "$TMP/e")" = "thrashtop: history: $TMP/p.txt: line 2: CPU 50.7% as posted, 50.6% from its times; kept as posted"
[ $rc -eq 0 ] && [ "$(wc -l <"$TMP/e")" -eq 1 ] || cat "$TMP/o" "$TMP/e"
pcts=$(H export --format=json | python3 -c 'import json,sys; print(sorted(r["cpu_pct"] for r in json.load(sys.stdin)["runs"]))')
expect "posted-pct-off-kept[$pcts]" test "$pcts" = "[47, 50.6, 50.7]"

# Reading a 0444 history, as a normal user, leaves no -wal or -shm, and a
# history in a read-only directory lists.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	U() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	mkdir -p "$TMP/ro" && chmod 777 "$TMP/ro" && chmod 755 "$TMP"
	cp "$TMP/src.db" "$TMP/ro/h.db" && chown nobody "$TMP/ro/h.db" && chmod 444 "$TMP/ro/h.db"
	U "$T" history list --history "$TMP/ro/h.db" >"$TMP/o" 2>"$TMP/e"
	expect ro-file-lists grep -q ' cut ' "$TMP/o"
	expect ro-file-nothing-left test ! -e "$TMP/ro/h.db-wal" -a ! -e "$TMP/ro/h.db-shm"
	chmod 644 "$TMP/ro/h.db"
	U "$T" -b -n 1000 -p 1 -L after --history "$TMP/ro/h.db" >/dev/null 2>"$TMP/e"
	# a normal user's run says once why it has no stall figures, and nothing else
	expect ro-then-run-kept test -z "$(grep -v '^thrashtop: n/a stalls: ' "$TMP/e")" -a \
		"$("$T" history list --history "$TMP/ro/h.db" | grep -c ' after ')" = 1
	grep -v '^thrashtop: n/a stalls: ' "$TMP/e" >&2
	chmod 555 "$TMP/ro"
	U "$T" history list --history "$TMP/ro/h.db" >"$TMP/o" 2>"$TMP/e"
	expect ro-dir-lists grep -q ' after ' "$TMP/o"
	expect ro-dir-nothing-left test ! -e "$TMP/ro/h.db-wal" -a ! -e "$TMP/ro/h.db-shm"
	chmod 755 "$TMP/ro"
else
	skip read-only "needs root to act as a normal user"
fi

# A misspelt command: one line, exit 2, before a session sets anything up
# for it (the cgroup and swap file of --mem and --swap, its state file).
THRASHTOP_STATE_DIR=$TMP/state "$T" -b --mem 96M --swap 64M --no-history -- thrashtop-no-such-tool \
	>"$TMP/o" 2>"$TMP/e"; rc=$?
expect command-missing-refused one_line 2 "$TMP/e"
expect command-missing-named grep -qx "thrashtop: cannot run 'thrashtop-no-such-tool': No such file or directory" "$TMP/e"
expect command-missing-nothing-set test ! -e "$TMP/state"
[ "$(wc -l <"$TMP/e")" -eq 1 ] || cat "$TMP/e"

# Control bytes: -L refuses them; recorded ones are escaped on output.
"$T" -b -n 1000 -p 1 -L "$(printf 'x\033[2J')" --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect label-esc-refused one_line 2 "$TMP/e"
"$T" -b -n 1000 -p 1 -L "$(printf 'bad\xff')" --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect label-utf8-refused one_line 2 "$TMP/e"
# -L: 200 characters (400 bytes) go, 201 not; a bidi override is refused.
"$T" -b -n 1000 -p 1 -L "$(printf 'é%.0s' $(seq 200))" --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect label-200-characters test $rc -eq 0
[ $rc -eq 0 ] || cat "$TMP/e"
"$T" -b -n 1000 -p 1 -L "$(printf 'é%.0s' $(seq 201))" --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect label-201-refused one_line 2 "$TMP/e"
"$T" -b -n 1000 -p 1 -L "$(printf 'invoice\u202etxt.exe')" --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect label-bidi-refused one_line 2 "$TMP/e"
expect label-bidi-named grep -q 'U+202E is a bidirectional control character' "$TMP/e"
# history list: labels cut by the columns they take, never inside a
# character; the column after them starts at one place in every row.
rm -f "$DB"
for l in "日本語のラベルです" "e$(printf '\u0301')te" "ascii-label-that-is-long" "éééééééééééééééé"; do
	"$T" -b -n 1000 -p 1 -L "$l" --history "$DB" >/dev/null 2>"$TMP/e" || cat "$TMP/e"
done
H list >"$TMP/o" 2>&1
# (display widths here from Python's Unicode tables)
bad=$(python3 - "$TMP/o" <<'PY'
import sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
rows = open(sys.argv[1], encoding="utf-8").read().splitlines()
# HOST starts at column 42: ID 6, STARTED 16, LABEL 14, two blanks apart
for r in rows[1:]:
    i = next((i for i in range(len(r) + 1) if width(r[:i]) >= 42), None)
    if len(rows) != 5 or i is None or width(r[:i]) != 42 or r[i - 2:i] != "  " or r[i] == " ":
        print(repr(r))
PY
)
expect list-label-columns-aligned test -z "$bad"
# compare's column of a long name: cut by characters, marked
H compare "label:éééééééééééééééé" "label:ascii-label-that-is-long" >"$TMP/o" 2>&1
expect "compare-names-cut-whole[$(sed -n 3p "$TMP/o")]" python3 -c '
import sys
rows = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
head = [r for r in rows if r.startswith(" " * 15)][0]
sys.exit(not ("label:éééééééééééé..." in head and "label:ascii-label-..." in head))' "$TMP/o"
[ -z "$bad" ] || { echo "$bad"; cat "$TMP/o"; }
rm -f "$DB"
printf '{"thrashtop_history": 1, "runs": [{"uuid": "e5c", "started_at": "2025-01-01T00:00:00Z", "label": "x\\u001b]0;pwned\\u0007\\u009b", "kind": "qsbench", "nelems": 1000, "procs": 1, "status": "ok", "wall_us": 1000000}]}' >"$TMP/esc.json"
H import "$TMP/esc.json" >/dev/null 2>&1
H list >"$TMP/o" 2>&1
expect list-escaped bash -c "grep -q 'x\\\\x1b]0;pwned' '$TMP/o' && ! LC_ALL=C grep -q \$'[\\x01-\\x08\\x0b-\\x1f\\x7f]' '$TMP/o'"
# A command line with a newline and a tab: each report keeps it on one line,
# blanks where they were, as the history view shows it.
"$T" -b --history "$TMP/nl.db" -- sh -c $'true\ntrue\t' >/dev/null 2>"$TMP/e" || cat "$TMP/e"
NL() { "$T" history --history "$TMP/nl.db" "$@"; }
one_row() { [ "$(wc -l <"$TMP/o")" -eq 2 ] && grep -q "  sh -c 'true true '  " "$TMP/o"; }
NL list >"$TMP/o" 2>&1
expect list-newline-one-row one_row
one_row || cat "$TMP/o"
NL stats >"$TMP/o" 2>&1
expect stats-newline-one-line grep -qx "  sh -c 'true true ', config [0-9a-f]*.*" "$TMP/o"
grep -qx "  sh -c 'true true ', config [0-9a-f]*.*" "$TMP/o" || head -n 3 "$TMP/o"
NL export --format=text >"$TMP/o" 2>&1
expect text-newline-one-line grep -qx "  workload: sh -c 'true true '" "$TMP/o"
grep -qx "  workload: sh -c 'true true '" "$TMP/o" || grep -A1 workload "$TMP/o"
NL show 1 >"$TMP/o" 2>&1
expect show-newline-one-line grep -Eqx "command +sh -c 'true true '" "$TMP/o"
grep -Eqx "command +sh -c 'true true '" "$TMP/o" || grep -A1 '^command' "$TMP/o"
NL export --format=json >"$TMP/o.json"
expect newline-kept-in-export python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['runs'][0]['command'].endswith(\"'true\ntrue\t'\")" "$TMP/o.json"
# Values no run can have, in an export's fields: refused by name, nothing
# imported (a wall time of -5 us once went into the statistics).
NL export --format=json >"$TMP/ok.json"
NL export --format=csv >"$TMP/ok.csv"
for edit in 'wall_us:-5' 'majflt:-100' 'procs:5000' 'swappiness:-7' 'kswapd_s:-0.5'; do
	k=${edit%%:*} v=${edit#*:}
	python3 - "$TMP/ok.json" "$k" "$v" >"$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0][sys.argv[2]] = float(sys.argv[3]) if "." in sys.argv[3] else int(sys.argv[3])
json.dump(d, sys.stdout)
PY
	"$T" history --history "$TMP/bad.db" import "$TMP/bad.json" >/dev/null 2>"$TMP/e"; rc=$?
	expect "json-impossible-$k-refused[$(cat "$TMP/e")]" test $rc -eq 2 -a ! -e "$TMP/bad.db" \
		-a "$(grep -c "bad value for \"$k\"" "$TMP/e")" -eq 1
	python3 - "$TMP/ok.csv" "$k" "$v" >"$TMP/bad.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[1][rows[0].index(sys.argv[2])] = sys.argv[3]
csv.writer(sys.stdout, lineterminator="\n").writerows(rows)
PY
	"$T" history --history "$TMP/bad.db" import "$TMP/bad.csv" >/dev/null 2>"$TMP/e"; rc=$?
	expect "csv-impossible-$k-refused[$(cat "$TMP/e")]" test $rc -eq 2 -a ! -e "$TMP/bad.db" \
		-a "$(grep -c "bad value for \"$k\"" "$TMP/e")" -eq 1
done
# An export with no run in it, into a history not there: nothing made.
head -1 "$TMP/ok.csv" >"$TMP/empty.csv"
"$T" history --history "$TMP/none0.db" import "$TMP/empty.csv" >"$TMP/o" 2>"$TMP/e"; rc=$?
expect "empty-export-no-history[$(cat "$TMP/o" "$TMP/e")]" test $rc -eq 0 -a ! -e "$TMP/none0.db" \
	-a "$(cat "$TMP/o")" = "imported 0 runs from $TMP/empty.csv (0 already present)"
H export --format=json >"$TMP/o.json"
expect json-valid-utf8 python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" "$TMP/o.json"
printf 'Linux-2.4.14 \xff\033[31m:\n%s\n' "$good1" >"$TMP/p.txt"
H import "$TMP/p.txt" >/dev/null 2>&1
H export --format=json >"$TMP/o.json"
expect posted-header-json-valid python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" "$TMP/o.json"

# An unusable --history: refused before anything starts. A file that is
# no database, and a directory that is not there (never made: a typo).
echo 'not a database' >"$TMP/text.db"
for p in "$TMP" /dev/null /proc/x "$TMP/text.db" "$TMP/nodir/h.db"; do
	"$T" -b -n 1000 -p 1 --history "$p" >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "history-unusable[$p]" one_line 2 "$TMP/e"
	expect "history-unusable-nothing-ran[$p]" test ! -s "$TMP/o"
done
expect history-typo-dir-not-made test ! -e "$TMP/nodir"
# --no-history wins over --history, as before a given history was checked
"$T" -b -n 1000 -p 1 --no-stalls --no-history --history "$TMP/nodir/h.db" >"$TMP/o" 2>"$TMP/e"; rc=$?
expect no-history-wins test $rc -eq 0 -a ! -s "$TMP/e" -a ! -e "$TMP/nodir"
# rm where no history was made yet: nothing to remove, none made
XDG_DATA_HOME=$TMP/xdg "$T" history rm 1 >/dev/null 2>"$TMP/e"; rc=$?
expect rm-no-history test $rc -eq 2 -a "$(cat "$TMP/e")" = "thrashtop: history: rm: no runs recorded in $TMP/xdg/thrashtop/history.db" -a ! -e "$TMP/xdg/thrashtop/history.db"
# an import into the default history that keeps nothing leaves no
# history and none of the directories made for it; one there before stays
echo 'no run here' >"$TMP/norun.txt"
XDG_DATA_HOME=$TMP/xdg2/data "$T" history import "$TMP/norun.txt" >/dev/null 2>"$TMP/e"; rc=$?
expect import-nothing-no-dirs test $rc -eq 2 -a ! -e "$TMP/xdg2"
mkdir "$TMP/xdg2"
XDG_DATA_HOME=$TMP/xdg2/data "$T" history import "$TMP/norun.txt" >/dev/null 2>"$TMP/e"; rc=$?
expect import-nothing-keeps-dir test $rc -eq 2 -a -d "$TMP/xdg2" -a ! -e "$TMP/xdg2/data"
rmdir "$TMP/xdg2"
# a device that never ends and a FIFO whose writer has gone: one line
# each, at once, and no history made
timeout 30 "$T" history --history "$TMP/dev.db" import /dev/zero >/dev/null 2>"$TMP/e"; rc=$?
expect "import-dev-zero[$rc: $(cat "$TMP/e")]" test $rc -eq 2 -a "$(cat "$TMP/e")" = "thrashtop: history: /dev/zero: binary data, not an export or posted text" -a ! -e "$TMP/dev.db"
mkfifo "$TMP/fifo"
exec 7<>"$TMP/fifo"
echo '0:03 kswapd' >&7
exec 7>&-
timeout 30 "$T" history --history "$TMP/dev.db" import "$TMP/fifo" >/dev/null 2>"$TMP/e"; rc=$?
expect "import-fifo-writer-gone[$rc: $(cat "$TMP/e")]" test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1 -a ! -e "$TMP/dev.db"
# a --history not there is refused, whatever the command
"$T" history --history "$TMP/none.db" rm 1 >/dev/null 2>"$TMP/e"; rc=$?
expect rm-named-missing test $rc -eq 2 -a "$(cat "$TMP/e")" = "thrashtop: history: --history $TMP/none.db: no such file" -a ! -e "$TMP/none.db"

# Messages.
msg() { "$T" "$@" >/dev/null 2>"$TMP/e"; rc=$?; one_line 2 "$TMP/e" && grep -qF -- "$want" "$TMP/e"; }
want="option '--batch' takes no value"; expect msg-batch-value msg --batch=1
want="option '--no-history' takes no value"; expect msg-no-history-value msg --no-history=yes
expect msg-no-raw-bytes bash -c "! LC_ALL=C grep -q \$'[\\x01-\\x08]' '$TMP/e'"
want="-n and -m both size the sorter"; expect msg-n-and-m msg -b -n 1000 -m 4
want='given twice'; expect msg-compare-twice msg history --history "$TMP/src.db" compare 1 1
want='run 1 given twice'; expect msg-rm-twice msg history --history "$TMP/src.db" rm 1 1
# values no option takes: refused in one escaped line, nothing raw on the
# terminal
want='--size: "100x30x2"'; expect msg-size-trailing msg history --history "$TMP/src.db" replay 1 --size 100x30x2 --cast "$TMP/never.cast"
want='--speed: "0x10"'; expect msg-speed-hex msg history --history "$TMP/src.db" replay 1 --speed 0x10 --cast "$TMP/never.cast"
expect size-speed-no-file test ! -e "$TMP/never.cast"
want='"label:" is not ID'; expect msg-compare-empty-label msg history --history "$TMP/src.db" compare label: 1
want='-L: want a one-line label'; expect msg-label-line-separator msg -b -L $'ab\xe2\x80\xa8cd' -- true
want='-L: want a label that shows'; expect msg-label-marks-only msg -b -L $'\xcc\x81\xcc\x81' -- true
want="--zswap 'lzo\\x0arle'"; expect msg-zswap-newline msg -b --zswap $'lzo\nrle' -- true
want="--swap '\\x1b[31mX'"; expect msg-swap-escape msg -b --swap $'\e[31mX' -- true
expect msg-swap-no-raw-esc bash -c "! grep -q \$'\\e' '$TMP/e'"
# A wrong count of arguments names what was wrong: what the command takes
# and what it got.
hmsg() { want="thrashtop: history: $1"; shift; msg history --history "$TMP/src.db" "$@" &&
	test "$(cat "$TMP/e")" = "$want" || { echo "    got: $(cat "$TMP/e")"; false; }; }
expect msg-show-extra hmsg 'show takes one run ID, got 2: 1 2' show 1 2
expect msg-show-none hmsg 'show takes one run ID, got none' show
expect msg-show-not-id hmsg 'show: "x" is not a run ID' show x
expect msg-replay-extra hmsg 'replay takes one run ID, got 2: 1 2' replay 1 2
expect msg-cast-no-id hmsg 'export takes one run ID with --format=asciicast, got none' export --format=asciicast
expect msg-export-ids hmsg 'export takes at most one run ID, got 2: 1 2' export 1 2
expect msg-export-no-run hmsg "export: no run 99 in $TMP/src.db" export 99
expect export-one-run bash -c "'$T' history --history '$TMP/src.db' export 1 | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"runs\"]; sys.exit(not (len(r) == 1 and r[0][\"id\"] == 1))'"
expect msg-list-extra hmsg 'list takes no arguments, got 1: foo' list foo
expect msg-stats-extra hmsg 'stats takes no arguments, got 2: 1 2' stats 1 2
expect msg-compare-one hmsg 'compare takes two or more runs or groups (ID, g:ID, label:TEXT), or a session'"'"'s places (session:ID), got 1: 1' compare 1
expect msg-import-two hmsg 'import takes one FILE (- for standard input), got 2: a b' import a b
expect msg-rm-none hmsg 'rm takes one or more run IDs, got none' rm
expect msg-plot-none hmsg 'plot takes one or more run IDs, got none' plot --format=svg
# An option or format a command does not read is refused, named with the
# command, never silently ignored.
expect msg-compare-csv hmsg '--format=csv is not for compare (text, json)' compare 1 2 --format=csv
expect msg-compare-time hmsg '--format=time is not for compare (text, json)' compare 1 2 --format=time
expect msg-stats-svg hmsg '--format=svg is not for stats (text, csv, json, time, table)' stats --format=svg
expect msg-rm-format hmsg '--format is not for rm' rm 999999 --format=json
expect msg-list-gnu hmsg '--gnu is for list only with --format=text or with --format=time' list --gnu
expect msg-list-rows hmsg '--rows is for list only with --format=table' list --rows=kernel
expect msg-stats-all-csv hmsg '--all is for stats only without --format' stats --all --format=csv
expect msg-compare-label hmsg '--label is not for compare' compare 1 2 -L x
expect msg-show-limit hmsg '--limit is not for show' show 1 --limit 3
expect msg-import-kernel hmsg '--kernel is not for import' import --kernel x "$TMP/full.csv"
expect msg-replay-size hmsg '--size is for replay only with --cast FILE' replay 1 --size 100x30
expect msg-plot-svg-gnuplot hmsg '--svg is for plot only without --format or with --format=svg' \
	plot 1 --format=gnuplot --svg "$TMP/x.svg"
cp "$TMP/src.db" "$TMP/rm.db"
"$T" history --history "$TMP/rm.db" rm 1 --all >/dev/null 2>"$TMP/e"; rc=$?
expect rm-option-refused-nothing-removed eval 'one_line 2 "$TMP/e" &&
	"$T" history --history "$TMP/rm.db" show 1 >/dev/null'
# what the commands do read still goes
for args in "stats --gnu --cov 9 --outlier-z 4 --all -L cut" "list --all --kernel ." \
	"export --format=table --rows kernel --cols procs" "export --format=time --gnu" \
	"show 1 --format=time --gnu" "compare 1 2 --format=json" "list --format=csv --limit 1"; do
	"$T" history --history "$TMP/src.db" $args >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "options-read[$args]" test "$rc" -eq 0 -a ! -s "$TMP/e" -a -s "$TMP/o"
	[ "$rc" -eq 0 ] || cat "$TMP/e"
done
# the kernel reads 060 as octal: vm.swappiness would be 48
want="--sysctl vm.swappiness=060: '060': the kernel reads a number with a leading 0 as octal: write 60"
expect msg-sysctl-octal msg -b -n 1000 --sysctl vm.swappiness=060
want="--sweep swappiness: '060'"; expect msg-sweep-octal msg -b -n 1000 --sweep swappiness=60,060
# Accepted before and wrong later: refused at start, nothing run.
want="--knob: unknown sysctl vm.nonexistent"; expect msg-knob-unknown msg -b -n 1000 --knob vm.nonexistent
if [ -e /proc/sys/vm/drop_caches ]; then
	want="--knob: vm.drop_caches cannot be stepped: it is write-only"
	expect msg-knob-write-only msg -b -n 1000 --knob vm.drop_caches
fi
want="--sweep 'swappiness=1,,2': empty value"; expect msg-sweep-empty msg -b -n 1000 --sweep swappiness=1,,2
want="--sweep 'swappiness=1,': empty value"; expect msg-sweep-empty-last msg -b -n 1000 --sweep swappiness=1,
want="--version takes no arguments"; expect msg-version-extra msg --version extra
want="--help takes no arguments"; expect msg-help-extra msg --help extra
want="-s '-1': want a whole number seed from 0 to 4294967295"; expect msg-seed-negative msg -b -n 1000 -s -1
"$T" -b -n 1000 -p 1 -s 4294967295 --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect seed-largest-accepted test "$rc" -eq 0
# a memory limit at or above RAM would limit nothing: refused before
# anything is set up, a sweep's values too
if [ "$(id -u)" -eq 0 ]; then
	want="--mem 64T is not below MemTotal ($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) kB): it would limit nothing"
	THRASHTOP_STATE_DIR=$TMP/state-mem expect msg-mem-above-ram msg -b -n 1000 -p 1 --mem 64T --no-history
	expect mem-above-ram-nothing-set test ! -e "$TMP/state-mem"
	want="--sweep mem=64T is not below MemTotal"
	expect msg-sweep-mem-above-ram msg -b -n 1000 -p 1 --sweep mem=1G,64T --no-history
	want="--mem 2.0G is not below what --global leaves (1.0G): it would limit nothing"
	THRASHTOP_STATE_DIR=$TMP/state-mem expect msg-mem-above-global msg -b -n 1000 -p 1 --global 1G --mem 2G --no-history
	expect mem-above-global-nothing-set test ! -e "$TMP/state-mem"
fi

# Import at scale beside runs: the import holds the lock in short
# transactions, so runs that end meanwhile are all kept, and its memory
# does not grow with the file.
rm -f "$DB"
python3 - "$TMP/big.txt" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for g in range(2000):
        f.write('kernel-%d:\n' % g)
        for k in range(25):
            ums = (70 + k) * 1000 + g % 1000
            t = ums // 10 + 733
            i = t * 1000 // 15329          # tcsh's %P from centiseconds
            f.write('%d.%03du 7.330s 2:33.29 %d.%d%% 0+0k 0+0io 19670pf+0w\n'
                    % (ums // 1000, ums % 1000, i // 10, i % 10))
PY
"$T" -b -n 1000 -p 1 -L warm --history "$DB" >/dev/null 2>"$TMP/e"
/usr/bin/time -f '%M' -o "$TMP/rss" "$TP" history --history "$DB" import "$TMP/big.txt" >"$TMP/imp" 2>"$TMP/impe" &
imp=$!
lost=0
for i in 1 2 3; do
	"$TP" -b -n 1000 -p 1 -L beside --history "$DB" >/dev/null 2>>"$TMP/beside" || lost=$((lost + 1))
done
wait $imp
expect scale-import-done grep -q 'imported 50000 runs' "$TMP/imp"
# stderr only says why a plain session has no stall figures
expect scale-runs-beside-kept test "$("$T" history --history "$DB" list -L beside | grep -c ' beside ')" = 3 -a \
	-z "$(grep -Ev "$STALLS_NA" "$TMP/beside")"
rss=$(cat "$TMP/rss")
mb=$(($(stat -c %s "$TMP/big.txt") / 1024))
expect scale-memory-bounded test "${rss:-999999}" -lt $((mb + 100000))
echo "   (import of $(stat -c %s "$TMP/big.txt") bytes: max RSS ${rss} KiB)"
