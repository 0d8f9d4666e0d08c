#!/usr/bin/env bash
# A run keeps every sample of every series --list-plots says this machine
# gives: 60 s at -d 0.1 stores at least 590 of each, and none of the others.
. "$(dirname "$0")/lib.sh"

db=$TMP/h.db
"$T" -b -d 0.1 --history "$db" -- sleep 60 >"$TMP/out" 2>"$TMP/err"; rc=$?
expect run-exit-0 test $rc -eq 0
"$T" --list-plots >"$TMP/list"
"$T" --history "$db" history export --format=json >"$TMP/runs.json" 2>"$TMP/err"
python3 - "$TMP/runs.json" "$TMP/list" >"$TMP/check" 2>&1 <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][-1]
ser = run["series"]
avail = {l.split()[0] for l in open(sys.argv[2]).read().splitlines()[1:]
         if l.split() and l.split()[-1] == "yes"}
n = ser["nsamples"]
print("nsamples", n)
for name in sorted(avail):
    v = ser.get(name)
    if v is None or len(v) != n:
        print("MISSING", name)
for name in ser:
    if name not in ("nsamples", "t") and name not in avail:
        print("EXTRA", name)
t = ser["t"]
print("span", round(t[-1] - t[0], 1))
print("monotonic", all(b >= a for a, b in zip(t, t[1:])))
PY
n=$(awk '$1 == "nsamples" { print $2 }' "$TMP/check")
expect "at-least-590-samples[$n]" test "${n:-0}" -ge 590
missing=$(awk '$1 == "MISSING" { printf "%s ", $2 }' "$TMP/check")
extra=$(awk '$1 == "EXTRA" { printf "%s ", $2 }' "$TMP/check")
expect "every-available-series-kept[missing: $missing]" test -z "$missing"
expect "no-unavailable-series-kept[extra: $extra]" test -z "$extra"
expect times-in-order grep -q "monotonic True" "$TMP/check"
span=$(awk '$1 == "span" { print $2 }' "$TMP/check")
expect "samples-span-the-run[$span]" awk -v s="${span:-0}" 'BEGIN { exit !(s >= 59 && s <= 62) }'
