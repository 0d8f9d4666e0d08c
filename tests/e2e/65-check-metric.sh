#!/usr/bin/env bash
# lane: other
# A command's own figure (--metric): a workload that prints "Throughput N
# MB/sec" as dbench does keeps N with each run, its output passing
# unchanged, here and at an agent's place; history show, stats, compare
# and the JSON export give it; a match that is not a number leaves the run
# without a value, said. check judges by it, higher being better: 15%
# lower throughput at the same wall time is a regression (exit 1), the
# same throughput none (0); the verdict line and --json give history
# compare's figures for the same runs. The figure is the script's, never
# the machine's: no lane alone.
. "$(dirname "$0")/lib.sh"

db=$TMP/h.db
M='tput:higher=Throughput ([0-9.]+) MB/sec'
# 100, 100.4, 99.6, 100 ... (or TPUT's), each run's after the sleep
cat >"$TMP/tp.sh" <<SH
n=\$(cat "$TMP/n" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TMP/n"
case \$((n % 3)) in 0) d=0 ;; 1) d=0.4 ;; *) d=-0.4 ;; esac
sleep 0.1
echo "warming up" >&2
awk -v b="\${TPUT:-100}" -v d="\$d" 'BEGIN { printf "Throughput %.2f MB/sec\n", b + d }'
SH

"$T" --history "$db" -b -r 5 -L base --metric "$M" -- sh "$TMP/tp.sh" >"$TMP/o" 2>"$TMP/e"
rc=$?
grep 'Throughput\|^metric' "$TMP/o"
expect baseline-exit-0 test $rc -eq 0
# the output as the command wrote it: its lines on stdout, its stderr on stderr
expect output-unchanged test "$(grep -c '^Throughput [0-9.]* MB/sec$' "$TMP/o")" -eq 5 \
	-a "$(grep -c '^warming up$' "$TMP/e")" -eq 5
expect batch-says-it grep -qx 'metric tput: 100.4' "$TMP/o"
id=$("$T" --history "$db" history list -L base | awk 'NR == 2 { print $1 }')
"$T" --history "$db" history show "$id" >"$TMP/show"
grep '^metric' "$TMP/show"
expect show grep -Eq '^metric tput +100(\.4|\.0|)? \(higher is better\)$' "$TMP/show"
"$T" --history "$db" history stats -L base >"$TMP/stats"
grep -E '^  (wall|tput) |command.s own' "$TMP/stats"
expect stats-row grep -Eq '^  tput +5 +99\.6 +100 +100\.08 +100\.4 +0\.334664 +0\.3%$' "$TMP/stats"
"$T" --history "$db" history export -L base --format=json >"$TMP/j"
expect export-json python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
vals = sorted(m["value"] for r in runs for m in r["metrics"] if m["name"] == "tput")
assert vals == [99.6, 100, 100, 100.4, 100.4] and all(
    r["metrics"][0]["better"] == "higher" for r in runs), vals' "$TMP/j"

# At an agent's place the output comes over the stream, and is matched
# here the same.
echo 0 >"$TMP/n"
"$T" -b --history "$db" -L agent --agent "$T agent" --metric "$M" -- sh "$TMP/tp.sh" \
	>"$TMP/o" 2>"$TMP/e"
rc=$?
grep 'Throughput\|^metric' "$TMP/o"
expect agent-exit-0 test $rc -eq 0
expect agent-output grep -qx 'Throughput 100.00 MB/sec' "$TMP/o"
expect agent-figure grep -qx 'metric tput: 100' "$TMP/o"
id=$("$T" --history "$db" history list -L agent | awk 'NR == 2 { print $1 }')
expect agent-kept grep -Eq '^metric tput +100 \(higher is better\)$' <("$T" --history "$db" history show "$id")

# 15% lower throughput, the same sleep: a regression by the figure alone.
TPUT=85 "$T" check --history "$db" -L low --against base --metric "$M" -- sh "$TMP/tp.sh" \
	>"$TMP/o" 2>"$TMP/e"
rc=$?
grep '^tput:\|^check:' "$TMP/o"
expect lower-exits-1 test $rc -eq 1
expect lower-line grep -q '^tput: regression  median 100 -> 85  mean 100.08 -> 85 (-15.07%)  change -15.07% ' "$TMP/o"
"$T" --history "$db" history compare label:base label:low >"$TMP/cmp"
grep -E '^(Amean|Median) (wall|tput)' "$TMP/cmp"
# the line's figures are compare's: medians, means, and its gain, which
# for a figure where higher is better is the line's change
read -r m0 m1 a0 a1 ch < <(sed -nE 's/^tput: .*median ([0-9.]+) -> ([0-9.]+)  mean ([0-9.]+) -> ([0-9.]+) \((-?[0-9.]+)%\).*/\1 \2 \3 \4 \5/p' "$TMP/o")
expect median-as-compare grep -Eq "^Median tput +$m0 .* +$m1 " "$TMP/cmp"
expect mean-as-compare grep -Eq "^Amean  tput +$a0 .* +$a1 +\*$ch%\*" "$TMP/cmp"
# the wall time is the sleep's on both sides, within what a loaded
# machine adds
read -r w0 w1 < <(awk '/^Median wall/ { print $3, $6 }' "$TMP/cmp")
expect "wall-unchanged[$w0 -> $w1]" awk -v a="$w0" -v b="$w1" 'BEGIN { exit !(b < 3 * a && a < 3 * b) }'

# The same throughput: no regression.
TPUT=100 "$T" check --history "$db" --against base --metric "$M" -- sh "$TMP/tp.sh" \
	>"$TMP/o" 2>"$TMP/e"
rc=$?
grep '^tput:\|^check:' "$TMP/o"
expect same-exits-0 test $rc -eq 0
expect same-line grep -q '^tput: no regression  median 100 -> 100 ' "$TMP/o"

# --json: one object, each figure history compare's.
TPUT=85 "$T" check --history "$db" -L lowj --json --against base --metric "$M" \
	-- sh "$TMP/tp.sh" >"$TMP/j" 2>"$TMP/e"
rc=$?
cat "$TMP/j"
expect json-exit-1 test $rc -eq 1
"$T" --history "$db" history compare label:base label:lowj >"$TMP/cmp"
python3 - "$TMP/j" "$TMP/cmp" <<'PY' >"$TMP/pj" 2>&1
import json, re, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"][0]
assert d["exit"] == 1 and m["name"] == "tput" and m["better"] == "higher", d
assert m["verdict"] == "regression" and m["runs_base"] == 5 and m["runs_new"] == 3, m
cmp = open(sys.argv[2]).read()
med = re.search(r"^Median tput +([0-9.]+) .* +([0-9.]+) +\*(-?[0-9.]+)%\*", cmp, re.M)
mean = re.search(r"^Amean  tput +([0-9.]+) .* +([0-9.]+) +\*(-?[0-9.]+)%\*", cmp, re.M)
assert float(med.group(1)) == m["median_base"] and float(med.group(2)) == m["median_new"], cmp
assert float(mean.group(1)) == m["mean_base"] and float(mean.group(2)) == m["mean_new"], cmp
assert float(mean.group(3)) == m["mean_change_pct"], (mean.group(3), m)
assert m["ci95_lo_pct"] < m["change_pct"] < m["ci95_hi_pct"] < -5 and m["p"] < 0.05, m
print("json matches compare:", m)
PY
rc=$?
cat "$TMP/pj"
expect json-as-compare test $rc -eq 0

# A last match that is not a number: the run has no value, said; the
# check has nothing to judge it by (125, unsure).
cat >"$TMP/bad.sh" <<'SH'
echo "Throughput 7.1 MB/sec"
echo "Throughput 7.0.1 MB/sec"
SH
"$T" --history "$db" -b -L bad --metric "$M" -- sh "$TMP/bad.sh" >"$TMP/o" 2>"$TMP/e"
grep '^metric' "$TMP/o"
expect not-a-number-said grep -qx "metric tput: no value: '7.0.1' is not a number" "$TMP/o"
id=$("$T" --history "$db" history list -L bad | awk 'NR == 2 { print $1 }')
expect no-value-kept grep -Eq '^metric tput +no value ' <("$T" --history "$db" history show "$id")
"$T" check --history "$db" --max-runs 3 --against base --metric "$M" -- sh "$TMP/bad.sh" \
	>"$TMP/o" 2>"$TMP/e"
rc=$?
grep '^tput:' "$TMP/o"
expect no-value-unsure test $rc -eq 125

# Bad input: one line; exit 2 for a session, 255 for a check.
"$T" --history "$db" -b --metric 'tput:up=x' -- true >"$TMP/o" 2>"$TMP/e"
rc=$?
cat "$TMP/e"
expect bad-direction-2 test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1
"$T" --history "$db" -b --metric 'tput=(' -- true >"$TMP/o" 2>"$TMP/e"
expect bad-regex-2 test $? -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1
"$T" check --history "$db" --against base --metric 'Tput=x' -- true >"$TMP/o" 2>"$TMP/e"
rc=$?
cat "$TMP/e"
expect check-bad-name-255 test $rc -eq 255 -a "$(wc -l <"$TMP/e")" -eq 1
