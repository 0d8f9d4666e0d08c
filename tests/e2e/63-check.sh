#!/usr/bin/env bash
# lane: whole
# thrashtop check: a slower workload is a regression (exit 1), the same one
# none (0), one whose time is noise around the threshold unsure (125) within
# the run limit, a failing one said to be broken (125); the verdict line
# and --json give history compare's figures for the same runs. Verdicts
# on wall times: alone on the machine (lane whole).
. "$(dirname "$0")/lib.sh"

db=$TMP/h.db
"$T" --history "$db" -b -r 5 -L base -- sh -c 'sleep 0.20' >/dev/null 2>"$TMP/err"
expect baseline test $? -eq 0

# A regression, a fresh label per check so that compare takes its runs.
"$T" check --history "$db" -L slow --against base -- sh -c 'sleep 0.30' >"$TMP/o" 2>"$TMP/e"
rc=$?
grep '^wall:' "$TMP/o"
expect slower-exits-1 test $rc -eq 1
expect slower-line grep -q '^wall: regression  median [0-9.]* -> [0-9.]*  mean ' "$TMP/o"
"$T" --history "$db" history compare label:base label:slow >"$TMP/cmp"
grep -E '^(Amean|Median) wall' "$TMP/cmp"
# median and mean as compare prints them, compare's change of the means
# negated (its median row's change is the medians')
read -r m0 m1 a0 a1 ch < <(sed -nE 's/^wall: .*median ([0-9.]+) -> ([0-9.]+)  mean ([0-9.]+) -> ([0-9.]+) \(\+?(-?[0-9.]+)%\).*/\1 \2 \3 \4 \5/p' "$TMP/o")
expect median-as-compare grep -Eq "^Median wall +$m0 .* +$m1 " "$TMP/cmp"
expect mean-as-compare grep -Eq "^Amean  wall +$a0 .* +$a1 +\*-$ch%\*" "$TMP/cmp"
n=$("$T" --history "$db" history list -L slow | awk 'NR > 1' | wc -l)
expect runs-kept-labelled test "$n" -ge 3

# The same workload: no regression; on a loaded machine a spike can leave
# it unsure, so it has a second chance (either is sure, never a regression).
for try in 1 2; do
	"$T" check --history "$db" --against base -- sh -c 'sleep 0.20' >"$TMP/o" 2>"$TMP/e"
	rc=$?
	grep '^wall:' "$TMP/o"
	[ $rc -eq 125 ] || break
done
expect same-exits-0 test $rc -eq 0
expect same-label grep -q 'labelled check:base' "$TMP/o"

# --json: the same figures as one object on standard output.
"$T" check --history "$db" -L slowj --json --against base -- sh -c 'sleep 0.30' >"$TMP/j" 2>"$TMP/e"
rc=$?
cat "$TMP/j"
expect json-exit-1 test $rc -eq 1
"$T" --history "$db" history compare label:base label:slowj >"$TMP/cmp"
python3 - "$TMP/j" "$TMP/cmp" <<'PY' >"$TMP/pj" 2>&1
import json, re, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"][0]
assert d["exit"] == 1 and d["verdict"] == "regression" and m["name"] == "wall", d
cmp = open(sys.argv[2]).read()
med = re.search(r"^Median wall +([0-9.]+) .* +([0-9.]+) +\*(-?[0-9.]+)%\*", cmp, re.M)
mean = re.search(r"^Amean  wall +([0-9.]+) .* +([0-9.]+) +\*(-?[0-9.]+)%\*", cmp, re.M)
assert float(med.group(1)) == m["median_base"] and float(med.group(2)) == m["median_new"], cmp
assert float(mean.group(1)) == m["mean_base"] and float(mean.group(2)) == m["mean_new"], cmp
assert -float(mean.group(3)) == m["mean_change_pct"], (mean.group(3), m)
assert m["ci95_lo_pct"] < m["change_pct"] < m["ci95_hi_pct"] and m["p"] < 0.05, m
print("json matches compare:", m)
PY
rc=$?
cat "$TMP/pj"
expect json-as-compare test $rc -eq 0

# Noise around the threshold: runs of 0.14 and 0.28 s in turn, the
# baseline's mean give or take a third, so that every look's interval
# spans both no change and the 5% threshold whatever the machine's load
# adds: unsure at the run limit, by construction rather than by chance.
cat >"$TMP/noisy.sh" <<SH
n=\$(cat "$TMP/noisy.n" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TMP/noisy.n"
if [ \$((n % 2)) -eq 0 ]; then sleep 0.14; else sleep 0.28; fi
SH
"$T" check --history "$db" --max-runs 6 --against base -- sh "$TMP/noisy.sh" >"$TMP/o" 2>"$TMP/e"
rc=$?
grep '^wall:\|^check:' "$TMP/o"
expect noisy-exits-125 test $rc -eq 125
expect noisy-within-limit grep -q 'runs 5+[2-6]$' "$TMP/o"

# A workload that fails is said to be broken, not judged.
"$T" check --history "$db" --max-runs 3 --against base -- sh -c 'exit 3' >"$TMP/o" 2>"$TMP/e"
rc=$?
cat "$TMP/e" | grep check
expect broken-exits-125 test $rc -eq 125
expect broken-said grep -q '^thrashtop: check: the workload itself failed: run' "$TMP/e"

# Bad input: one line, exit 255 (git bisect run stops there).
"$T" check --history "$db" --against nosuch -- true >"$TMP/o" 2>"$TMP/e"
rc=$?
cat "$TMP/e"
expect bad-ref-255 test $rc -eq 255 -a "$(wc -l <"$TMP/e")" -eq 1
"$T" check --history "$db" --against base --threshold 5x -- true >"$TMP/o" 2>"$TMP/e"
expect bad-threshold-255 test $? -eq 255 -a "$(wc -l <"$TMP/e")" -eq 1
