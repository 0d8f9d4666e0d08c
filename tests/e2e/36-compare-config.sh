#!/usr/bin/env bash
# lane: confined
# compare says what differed: two groups that differ only in swappiness
# give that one key, two runs of one configuration "same configuration",
# in the text and in the JSON form.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
export THRASHTOP_STATE_DIR=$TMP/state

db=$TMP/h.db
H() { "$T" --history "$db" history "$@"; }
orig=$(cat /proc/sys/vm/swappiness)
other=$((orig == 100 ? 60 : 100))
"$T" -b -n 300000 -p 1 -r 2 --history "$db" -L cfg >/dev/null 2>"$TMP/e1"
expect first-group test $? -eq 0
"$T" -b -n 300000 -p 1 -r 2 --history "$db" -L cfg --sysctl vm.swappiness=$other >/dev/null 2>"$TMP/e2"
expect "second-group[$(cat "$TMP/e2")]" test $? -eq 0
expect swappiness-restored test "$(cat /proc/sys/vm/swappiness)" = "$orig"

H compare g:1 g:3 >"$TMP/groups" 2>&1
expect groups-ok test $? -eq 0
expect "one-key[$(head -3 "$TMP/groups")]" test "$(head -1 "$TMP/groups")" = "vm.swappiness  $orig -> $other" \
	-a -z "$(sed -n 2p "$TMP/groups")"
expect figures-follow grep -q '^Amean  wall' "$TMP/groups"

H compare 1 2 >"$TMP/same" 2>&1
expect "same-configuration[$(head -2 "$TMP/same")]" test "$(head -1 "$TMP/same")" = "same configuration"

H compare g:1 g:3 --format=json >"$TMP/json" 2>&1
expect "json-one-key[$(cat "$TMP/json")]" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["configuration"]
sys.exit(not (len(c) == 1 and c[0]["set"] == "g:3" and c[0]["against"] == "g:1" and not c[0]["same"]
              and c[0]["differs"] == [{"key": "vm.swappiness", "from": sys.argv[2], "to": sys.argv[3]}]))' \
	"$TMP/json" "$orig" "$other"
H compare 1 2 --format=json >"$TMP/json2" 2>&1
expect "json-same[$(cat "$TMP/json2")]" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["configuration"]
sys.exit(not (c[0]["same"] and c[0]["differs"] == []))' "$TMP/json2"

# A label over runs of two configurations is said to mix them, and how.
"$T" -b -n 300000 -p 1 --history "$db" -L other >/dev/null 2>&1
H compare label:cfg label:other >"$TMP/mixed" 2>&1
expect "label-mixes[$(head -4 "$TMP/mixed" | tr '\n' '|')]" bash -c "grep -qx 'label:cfg mixes configurations: run [0-9]* against its run [0-9]*:' '$TMP/mixed' &&
	grep -Eqx '  vm.swappiness  ($orig -> $other|$other -> $orig)' '$TMP/mixed'"
H compare g:1 g:3 >"$TMP/groups" 2>&1
expect groups-not-mixed bash -c "! grep -q mixes '$TMP/groups'"
