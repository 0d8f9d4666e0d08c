#!/usr/bin/env bash
# lane: other
# history import OTHER.db: another machine's runs merged, each once by its
# uuid, with their details; the host shown in the list.
. "$(dirname "$0")/lib.sh"
A=$TMP/other.db
B=$TMP/mine.db
HA() { "$T" history --history "$A" "$@"; }
HB() { "$T" history --history "$B" "$@"; }
n_runs() { "$T" history --history "$1" list | awk '$1 ~ /^[0-9]+$/' | wc -l; }

HA import "$ROOT/tests/golden/json.txt" >/dev/null
"$T" -b -n 1000000 -p 1 -d 0.1 --history "$B" -L mine >/dev/null 2>&1
na=$(n_runs "$A"); nb=$(n_runs "$B")
[ "$na" -gt 1 ] && [ "$nb" -eq 1 ] || { fail set-up "other $na runs, mine $nb"; exit 1; }

HB import "$A" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect import-ok test "$rc" -eq 0 -a ! -s "$TMP/err"
expect import-says-how-many grep -qx "imported $na runs from $A (0 already present)" "$TMP/out"
expect all-runs-there test "$(n_runs "$B")" -eq $((na + nb))
HB import "$A" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect twice-adds-nothing test "$rc" -eq 0 -a "$(n_runs "$B")" -eq $((na + nb))
expect twice-says-so grep -qx "imported 0 runs from $A ($na already present)" "$TMP/out"

# Each copy is the run itself, and they come in the other history's order.
HA export --format=json | grep -v '"id":' >"$TMP/a.json"
HB export --format=json --kernel=6.1.0-18-amd64 | grep -v '"id":' >"$TMP/b.json"
expect runs-identical cmp -s "$TMP/a.json" "$TMP/b.json"
expect ours-stays-first test "$(HB show 1 | awk '$1 == "label" { print $2 }')" = mine
expect imported-in-order test "$(HB show 2 | awk '$1 == "started_at" { print $2 }')" = \
	"$(HA show 1 | awk '$1 == "started_at" { print $2 }')"

# Both hosts in the list.
HB list >"$TMP/list"
expect list-has-host-column grep -q '^ *ID  STARTED  *LABEL  *HOST  *KERNEL' "$TMP/list"
expect list-shows-other-host grep -Eq '^ +[0-9]+ .* lenstra +6\.1\.0-18-amd64' "$TMP/list"
expect list-shows-this-host grep -Eq "^ +[0-9]+ .* mine +$(hostname | cut -c1-12) " "$TMP/list"
# The other machine's runs group apart from ours.
expect stats-by-host test "$(HB stats | grep -c lenstra)" -ge 1

# Refusals: the history itself, standard input, a damaged database.
HB import "$B" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect self-refused test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
HB import - <"$A" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect stdin-refused test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
head -c 8192 "$A" >"$TMP/cut.db"
before=$(n_runs "$B")
HB import "$TMP/cut.db" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect damaged-refused test "$rc" -ne 0 -a "$(wc -l <"$TMP/err")" -eq 1
[ "$rc" -ne 0 ] || cat "$TMP/out"
expect damaged-nothing-added test "$(n_runs "$B")" -eq "$before"

# A history whose rows hold a value no run can have (written by hand, or
# by a build that took one): refused by run and field, as an export's is.
cp "$A" "$TMP/neg.db"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE runs SET wall_us = -5 WHERE id = (SELECT min(id) FROM runs)"); c.commit()' "$TMP/neg.db"
"$T" history --history "$TMP/neg2.db" import "$TMP/neg.db" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect "db-impossible-refused[$(cat "$TMP/err")]" test $rc -eq 2 -a ! -e "$TMP/neg2.db" -a \
	"$(grep -c 'run [0-9]*: bad value for "wall_us"; nothing imported' "$TMP/err")" -eq 1
