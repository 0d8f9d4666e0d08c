#!/usr/bin/env bash
# lane: other
# `thrashtop history`: import the seeds' posted lines, check statistics
# against values computed here by python3 from the same lines, round-trip
# the json and csv exports, and refuse bad input without changing anything.
source "$(dirname "$0")/lib.sh"
FIX=$ROOT/tests/fixtures
DB=$TMP/history.db
export XDG_DATA_HOME=$TMP/xdg
H() { "$T" history --history "$DB" "$@"; }
count() { H list | tail -n +2 | grep -c .; }

out=$(H import "$FIX/seed-qsbench-csh.txt" 2>"$TMP/csh.err")
expect import-csh test "$out" = "imported 9 runs from $FIX/seed-qsbench-csh.txt (0 already present)"
# each group's kswapd line is its 3 runs' total: said once a group
expect import-csh-kswapd-said test "$(grep -c 'kswapd" is the total of the 3 runs above it, not each one.s: their kswapd is n/a$' "$TMP/csh.err")" = 3
out=$(H import "$FIX/seed-kbuild-gnu.txt" 2>&1)
expect import-gnu test "$out" = "imported 9 runs from $FIX/seed-kbuild-gnu.txt (0 already present)"
out=$(H import --label dbench "$FIX/seed-dbench-gnu2.txt" 2>&1)
expect import-gnu-two-lines test "$out" = "imported 2 runs from $FIX/seed-dbench-gnu2.txt (0 already present)"
out=$(H import "$FIX/seed-qsbench-free.txt" 2>&1)
expect import-free test "$out" = "imported 1 run from $FIX/seed-qsbench-free.txt (0 already present)"
out=$(H import "$FIX/seed-qsbench-csh.txt" 2>/dev/null)
expect reimport-no-duplicates test "$out" = "imported 0 runs from $FIX/seed-qsbench-csh.txt (9 already present)"
expect list-count test "$(count)" = 21
expect default-path-untouched test ! -e "$XDG_DATA_HOME"

# Statistics of "Linux-2.4.14-pre8", computed independently from its lines:
# min, median, mean and max truncated to hundredths as the lines are.
want=$(python3 - "$FIX/seed-qsbench-csh.txt" <<'EOF'
import math, re, statistics as s, sys
cut = lambda v, q=100: "%.2f" % (math.floor(v * q + 1e-7) / q)
group, runs = None, {}
for line in open(sys.argv[1]):
    line = line.strip()
    m = re.match(r'([\d.]+)u ([\d.]+)s (?:(\d+):)?(\d+):([\d.]+) .* (\d+)pf\+', line)
    if m:
        h = int(m.group(3) or 0)
        wall = h * 3600 + int(m.group(4)) * 60 + float(m.group(5))
        runs.setdefault(group, []).append((wall, float(m.group(1)), float(m.group(2)), int(m.group(6))))
    elif line.endswith(':') and 'qsbench' not in line:
        group = line[:-1]
r = runs['Linux-2.4.14-pre8']
for name, k in (('wall', 0), ('user', 1), ('sys', 2)):
    x = [t[k] for t in r]
    print(f"{name} {len(x)} {cut(min(x))} {cut(s.median(x))} {cut(s.mean(x))} {cut(max(x))} "
          f"{s.stdev(x):.2f} {100 * s.stdev(x) / s.mean(x):.1f}%")
x = [t[3] for t in r]
print(f"majflt {len(x)} {min(x)} {math.floor(s.median(x))} {math.floor(s.mean(x) * 10) / 10:.1f} "
      f"{max(x)} {s.stdev(x):.1f} {100 * s.stdev(x) / s.mean(x):.1f}%")
EOF
)
got=$(H stats --kernel 2.4.14-pre8 | grep -E '^  (wall|user|sys|majflt) ' | tr -s ' ' | sed 's/^ //')
expect stats-match-python test "$got" = "$want"
[ "$got" = "$want" ] || printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"
out=$(H stats --kernel 2.4.14-pre7)
expect stats-oom-counted grep -q 'not in the statistics: 3 OOM-killed' <<<"$out"
expect stats-oom-rate grep -qx '  OOM: 3 of 3 runs killed, 100% (95% 44-100%, Wilson)' <<<"$out"
expect stats-no-oom-no-line eval '! H stats --kernel 2.4.14-pre8 | grep -q OOM'
# A group is named as compare takes it, by its oldest run, also when a
# filter leaves the groups before it out; the name compares that group.
old8=$(H list --kernel 2.4.14-pre8 | tail -n 1 | awk '{ print $1 }')
oldac=$(H list --kernel 2.4.13-ac4 | tail -n 1 | awk '{ print $1 }')
expect stats-group-named eval 'H stats --kernel 2.4.13-ac4 | head -n 1 | grep -qx "group g:$oldac: Linux-2.4.13-ac4"'
expect stats-name-compares eval 'H compare "g:$old8" "g:$oldac" | grep -qE "^Amean +wall +151\.62 +\( +0\.00%\) +187\.19 "'
# stats as data: each group's statistics and verdicts, not the runs
got=$(H stats --format=json | python3 -c 'import json, sys
g = {x["group"]: x for x in json.load(sys.stdin)["groups"]}
w = g["g:'"$old8"'"]["figures"]["wall"]
print(len(g), w["n"], round(w["median"], 2), round(w["mean"], 4), round(w["sd"], 4),
      round(w["cov_pct"], 3), w["min"], w["max"], g["g:'"$oldac"'"]["unstable"],
      sorted(k for k in g["g:'"$old8"'"] if k != "figures"))')
expect "stats-json[$got]" test "$got" = "8 3 152.29 151.6233 2.0817 1.373 149.29 153.29 False ['aborted', 'config_hash', 'failed', 'group', 'hostname', 'kernel', 'label', 'oldest_run', 'oom_ci95_pct', 'oom_killed', 'outliers', 'runs', 'unstable', 'workload']"
# unrounded: the fewest digits that read back to the same double
got=$(H stats --format=csv --kernel 2.4.14-pre8 | grep ',wall,')
expect "stats-csv[$got]" grep -qx "g:$old8,,2\.4\.14-pre8,,qsbench .*,wall,s,3,149\.29,152\.29,151\.62333333333333,153\.29,2\.081665999466133,1\.3729192952708245" <<<"$got"

# The time format prints the group's lines as they were posted.
H export --format=time --kernel 2.4.14-pre8 | grep -E '^[0-9.]+u ' >"$TMP/time.out"
sed -n '/^Linux-2.4.14-pre8:/,/kswapd/p' "$FIX/seed-qsbench-csh.txt" | grep -E '^[0-9.]+u ' >"$TMP/time.want"
expect time-lines-as-posted cmp -s "$TMP/time.out" "$TMP/time.want"
out=$(H export --format=time --kernel 2.4.14-pre7)
expect time-oom-line test "$(grep -c '^Out of Memory: Killed process' <<<"$out")" = 3
# The kswapd line below a group is the group's total, no run's own: each
# run's is n/a (null), not a share; our own time export reads back, and
# its header text makes no label.
kw() { python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"]
print(len(r), sorted(set(x["label"] for x in r)), [x["kswapd_s"] for x in r])'; }
got=$(H export --format=json --kernel 2.4.14-pre8 | kw)
expect "posted-kswapd-total-no-runs-own[$got]" test "$got" = "3 [''] [None, None, None]"
H export --format=time --kernel 2.4.14-pre8 >"$TMP/own.txt"
"$T" history --history "$TMP/own.db" import "$TMP/own.txt" >/dev/null
got=$("$T" history --history "$TMP/own.db" export --format=json | kw)
expect "own-time-reimport[$got]" test "$got" = "3 [''] [None, None, None]"
# A mail's Subject: is no part of -L's label.
{ echo "Subject: VM: qsbench numbers"; echo; sed -n '/^Linux-2.4.14-pre8:/,/kswapd/p' "$FIX/seed-qsbench-csh.txt"; } |
	"$T" history --history "$TMP/mail.db" import -L lkml - >/dev/null 2>&1
got=$("$T" history --history "$TMP/mail.db" export --format=json | kw)
expect "mail-label-as-given[$got]" test "$got" = "3 ['lkml'] [None, None, None]"
# The whole thread as an archive's text gives it: each message flattened
# onto one line. Every time line not behind a quote mark is a run (counted
# and summed here from the text), the same runs as its lines give where
# the fixture above has them, and the kernels its headers name.
F() { "$T" history --history "$TMP/flat.db" "$@"; }
F import "$FIX/seed-qsbench-csh.txt" >/dev/null 2>&1
out=$(F import "$FIX/seed-qsbench-thread-flat.txt" 2>"$TMP/flat.err")
want=$(python3 - "$FIX/seed-qsbench-thread-flat.txt" <<'EOF'
import re, sys
toks = open(sys.argv[1]).read().split()
runs = [int(toks[i + 6].split("pf")[0]) for i in range(len(toks) - 6)
        if re.fullmatch(r"[\d.]+u", toks[i]) and re.fullmatch(r"[\d.]+s", toks[i + 1])
        and not (i and re.fullmatch(r">+", toks[i - 1]))]
print(len(runs), sum(runs))
EOF
)
expect "flat-thread-imported[$out]" test "$out" = "imported $((${want% *} - 3)) runs from $FIX/seed-qsbench-thread-flat.txt (3 already present)"
[ -s "$TMP/flat.err" ] && ! grep -qv 'kswapd" is the total of' "$TMP/flat.err"
expect flat-thread-only-kswapd-notes test $? = 0
"$T" history --history "$TMP/flat1.db" import "$FIX/seed-qsbench-thread-flat.txt" >/dev/null 2>&1
got=$("$T" history --history "$TMP/flat1.db" export --format=json | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"]
print(len(r), sum(x["majflt"] for x in r), len([x for x in r if x["kernel_release"] == "2.4.14-pre8"]),
      sorted(set(x["kernel_release"] for x in r if x["kernel_release"])))')
expect "flat-thread-runs[$got]" test "$got" = "$want 3 ['2.4.10', '2.4.11', '2.4.13', '2.4.13-ac4', '2.4.14-pre5', '2.4.14-pre6', '2.4.14-pre7', '2.4.14-pre8']"
# Our own time export, csh or GNU, imports back with its groups apart and
# their kernels, and GNU's "?minor" (posted csh lines have no minor faults)
# stays unknown. (A label is -L's: groups apart by labels alone are not.)
grp() { python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"]
print(len(r), len(set(x["config_hash"] for x in r)), sorted(set(x["kernel_release"] for x in r)), sorted(set(str(x["minflt"]) for x in r if x["kernel_release"] == "2.4.14-pre8")))'; }
G() { "$T" history --history "$TMP/g0.db" "$@"; }
G import "$FIX/seed-qsbench-csh.txt" >/dev/null 2>&1
G import "$FIX/seed-kbuild-gnu.txt" >/dev/null
want=$(G export --format=json | grp)
for f in "" --gnu; do
	rm -f "$TMP/grp.db"
	G export --format=time $f >"$TMP/grp.txt"
	"$T" history --history "$TMP/grp.db" import -L posted "$TMP/grp.txt" >/dev/null 2>"$TMP/grp.err"
	got=$("$T" history --history "$TMP/grp.db" export --format=json | grp)
	expect "own-time-groups${f}[$got]" test "$got" = "$want"
	[ "$got" = "$want" ] || { echo "want $want"; cat "$TMP/grp.err"; }
done
# Labels come back as the export's headers name them: two groups apart
# by label alone stay two.
for l in A B; do "$T" -b -n 200000 -p 2 -L $l --history "$TMP/lb.db" >/dev/null 2>&1; done
"$T" history --history "$TMP/lb.db" export --format=time >"$TMP/lb.txt"
"$T" history --history "$TMP/lb2.db" import "$TMP/lb.txt" >/dev/null
got=$("$T" history --history "$TMP/lb2.db" stats | grep '^group' | tr '\n' '|')
expect "own-time-labels[$got]" test "$got" = "group g:1: A|group g:2: B|"
# A workload that sets groups apart comes back whole: each sorter run's
# nelems, procs and seed, not only the nelems that differ.
for n in 200000 300000; do "$T" -b -n $n -p 2 -s 7 --history "$TMP/wl.db" >/dev/null 2>&1; done
"$T" history --history "$TMP/wl.db" export --format=time >"$TMP/wl.txt"
"$T" history --history "$TMP/wl2.db" import "$TMP/wl.txt" >/dev/null
got=$("$T" history --history "$TMP/wl2.db" export --format=json | python3 -c 'import json,sys
print(sorted((x["kind"], x["nelems"], x["procs"], x["seed"]) for x in json.load(sys.stdin)["runs"]))')
expect "own-time-workload-whole[$got]" test "$got" = "[('qsbench', 200000, 2, 7), ('qsbench', 300000, 2, 7)]" ||
	cat "$TMP/wl.txt"

out=$(H export --format=table --rows kernel --cols procs)
expect table-oom-marked grep -qE '^2\.4\.14-pre7 +3 of 3 runs killed' <<<"$out"
expect table-median grep -qE '^2\.4\.14-pre8 +2:32\.29 \+-1\.4% n=3' <<<"$out"
out=$(H export --format=text)
expect text-72-columns test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<<"$out")" -le 72
id7=$(H list --kernel 2.4.14-pre7 | awk 'NR == 2 { print $1 }')
# a filter that matches nothing says so, naming it; an empty history too
expect list-none-named eval "H list -L nosuch --kernel 9.9 | grep -qx 'no runs in .* match -L nosuch --kernel 9.9'"
expect stats-none-named eval "H stats -L nosuch | grep -qx 'no runs in .* match -L nosuch'"
expect stats-none-limit eval "H stats --limit 2 --session 424242 | grep -qx 'no runs in .* match --session 424242'"
# a cut workload never ends inside a number: seed 140175100 is not "-s 14"
out=$(H list --kernel 2.4.14-pre8)
expect "list-cuts-no-number[$(sed -n 2p <<<"$out")]" eval 'grep -q -- "-s\.\.\. " <<<"$out" && ! grep -qE -- "-s [0-9]+ " <<<"$out"'
# on a terminal the list fits it: 60 columns (the monitor's least) without
# KSWAPD, 80 without HOST and KERNEL, and at 200 a whole workload; into a
# pipe every column, as above
need_tmux
for w in 60 80 200; do
	args="list --kernel 2.4.14-pre --limit 6"
	tm new-session -d -s "list$w" -x "$w" -y 40 "$T history --history '$DB' $args >'$TMP/pipe$w.txt' 2>&1; $T history --history '$DB' $args; sleep 60"
	# the file is whole before the list reaches the terminal
	wait_for 10 test -s "$TMP/pipe$w.txt"
	want=$(grep -c . "$TMP/pipe$w.txt")
	wait_for 10 eval "[ \$(tm capture-pane -p -J -t list$w | grep -c .) -ge $want ]"
	screen=$(tm capture-pane -p -J -t "list$w" | grep .)
	widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<<"$screen")
	expect "list-fits-$w[$widest: $(head -1 <<<"$screen")]" \
		test "$widest" -le "$w" -a "$(grep -c . <<<"$screen")" -eq "$want"
	expect "list-pipe-every-column-$w" grep -q "  HOST  .*  KERNEL  .*  WORKLOAD  " "$TMP/pipe$w.txt"
done
expect list-80-leaves-out eval '! tm capture-pane -p -J -t list80 | grep -qE "HOST|KERNEL|WORKLOAD"'
expect list-60-leaves-out eval 'tm capture-pane -p -J -t list60 | grep -q "MAJFLT  STATUS" && ! tm capture-pane -p -J -t list60 | grep -q KSWAPD'
expect list-200-whole-workload eval "tm capture-pane -p -J -t list200 | grep -q -- '-s 140175100 '"
# The default history, not made before the first run, reads as one with
# no runs, in every form; a --history not there is a mistyped one.
nodb=$TMP/xdg/thrashtop/history.db
expect stats-empty-history eval "XDG_DATA_HOME=$TMP/xdg $T history stats | grep -qx 'no runs recorded in $nodb'"
for form in "stats --format=json" "stats --format=csv" "export --format=time" "export --format=text"; do
	a=$(XDG_DATA_HOME=$TMP/xdg "$T" history $form 2>&1) b=$(H $form -L nosuch 2>&1)
	expect "empty-as-none[$form: $a | $b]" test "$a" = "$b" -a ! -e "$nodb"
	H --history "$TMP/none.db" $form >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "named-missing-refused[$form]" test $rc -eq 2 -a ! -s "$TMP/o" -a ! -e "$TMP/none.db" -a \
		"$(cat "$TMP/e")" = "thrashtop: history: --history $TMP/none.db: no such file"
done
expect show-oom grep -qE '^status +oom$' <<<"$(H show "$id7")"
a=$(H list --kernel 2.4.14-pre8 | awk 'NR == 2 { print $1 }')
b=$(H list --kernel 2.4.13-ac4 | awk 'NR == 2 { print $1 }')
# the first seed's result: pre7 killed in every run, pre8 in none
c=$(H list --kernel 2.4.14-pre7 | awk 'NR == 2 { print $1 }')
out=$(H compare "g:$a" "g:$c")
expect compare-oom-fisher grep -qE '^OOM +killed +0 of 3 +3 of 3 +\(p=0\.100\)$' <<<"$out"
out=$(H compare "g:$a" "g:$b")
expect compare grep -qE '^Amean +wall +151\.62 +\( +0\.00%\) +187\.19 ' <<<"$out"
# compare reads only the runs its arguments name: a label names the same
# runs as the group, a run and its own group split it, a missing run is
# named, and a glob is no label.
# (posted headers group, they are no label: pre8's runs take one here)
L() { "$T" history --history "$TMP/l.db" "$@"; }
L import "$FIX/seed-qsbench-csh.txt" >/dev/null
sed -n '/^Linux-2.4.14-pre8:/,/kswapd/p' "$FIX/seed-qsbench-csh.txt" | L import -L pre8 - >/dev/null
la=$(L list -L pre8 | awk 'NR == 2 { print $1 }')
lb=$(L list --kernel 2.4.13-ac4 | awk 'NR == 2 { print $1 }')
lab=$(L compare "label:pre8" "g:$lb")
lout=$(L compare "g:$la" "g:$lb")
# the same but for the names in the figures' header
names() { sed '/^ *\(g:\|label:\)/d'; }
expect compare-label test -n "$la" -a "$(names <<<"$lab")" = "$(names <<<"$lout")"
[ -n "$la" ] && [ "$(names <<<"$lab")" = "$(names <<<"$lout")" ] || printf '%s\n--\n%s\n' "$lab" "$lout"
expect compare-says-kernel grep -qx 'kernel  *2\.4\.14-pre8 -> 2\.4\.13-ac4' <<<"$out"
grep -qx 'kernel  *2\.4\.14-pre8 -> 2\.4\.13-ac4' <<<"$out" || head -3 <<<"$out"
expect compare-run-and-its-group eval 'H compare "$a" "g:$a" | grep -qE "^Amean +wall +[0-9.]+ +\( +0\.00%\) +[0-9.]+ "'
H compare 99999 "g:$a" >/dev/null 2>"$TMP/err"; rc=$?
expect compare-missing-run test "$rc" -eq 2 -a "$(grep -c 'no runs match "99999"' "$TMP/err")" -eq 1
L compare "label:pre*" "g:$lb" >/dev/null 2>"$TMP/err"; rc=$?
expect compare-label-no-glob test "$rc" -eq 2 -a "$(grep -c 'no runs match "label:pre\*"' "$TMP/err")" -eq 1

# json and csv exports read back to the same runs, and merge without
# duplicates.
norm() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"];
[x.pop("id") for x in r]; print(json.dumps(sorted(r, key=lambda x: x["uuid"]), sort_keys=True))' "$1"; }
H export --format=json >"$TMP/a.json"
"$T" history --history "$TMP/b.db" import "$TMP/a.json" >/dev/null
"$T" history --history "$TMP/b.db" export --format=json >"$TMP/b.json"
expect json-round-trip test "$(norm "$TMP/a.json")" = "$(norm "$TMP/b.json")"
H export --format=csv >"$TMP/a.csv"
"$T" history --history "$TMP/c.db" import "$TMP/a.csv" >/dev/null
"$T" history --history "$TMP/c.db" export --format=json >"$TMP/c.json"
expect csv-round-trip test "$(norm "$TMP/a.json")" = "$(norm "$TMP/c.json")"
# a text known empty (no swap device) stays empty, not unknown
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runs"][0]["swap_devices"]="";
json.dump(d, open(sys.argv[2], "w"))' "$TMP/a.json" "$TMP/d.json"
"$T" history --history "$TMP/d.db" import "$TMP/d.json" >/dev/null
"$T" history --history "$TMP/d.db" export --format=json >"$TMP/e.json"
expect json-empty-text-stays test "$(norm "$TMP/d.json")" = "$(norm "$TMP/e.json")"
# and numbered as they were, oldest first, though an export lists the newest
# first
ids() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"];
print(" ".join(x["uuid"][:6] for x in sorted(r, key=lambda x: x["id"])))' "$1"; }
expect json-import-in-run-order test "$(ids "$TMP/a.json")" = "$(ids "$TMP/b.json")"
expect csv-import-in-run-order test "$(ids "$TMP/a.json")" = "$(ids "$TMP/c.json")"
out=$(H import "$TMP/a.json")
expect merge-no-duplicates test "$out" = "imported 0 runs from $TMP/a.json (21 already present)"

# Bad input: one line on stderr, non-zero exit, nothing changed.
head -c 4096 /dev/urandom >"$TMP/junk"
H import "$TMP/junk" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect junk-refused test "$rc" -ne 0 -a "$(wc -l <"$TMP/err")" -eq 1
python3 - "$TMP/a.json" "$TMP/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for i, r in enumerate(d["runs"]):
    r["uuid"] = "%032x" % (i + 1)
d["runs"][5]["status"] = "exploded"
json.dump(d, open(sys.argv[2], "w"))
EOF
H import "$TMP/bad.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect bad-record-refused test "$rc" -ne 0
expect bad-record-named grep -q 'run 6: bad value for "status": exploded' "$TMP/err"
expect bad-import-changes-nothing test "$(count)" = 21
# A run with no workload is refused by its index, nothing added.
echo '{"thrashtop_history":1,"runs":[{}]}' >"$TMP/empty-run.json"
H import "$TMP/empty-run.json" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect no-workload-refused test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
expect no-workload-named grep -q 'run 1: ' "$TMP/err"
expect no-workload-changes-nothing test "$(count)" = 21
[ "$rc" -eq 2 ] || cat "$TMP/err" "$TMP/out"

# Aborted runs are "aborted" in the table, as stats calls them.
python3 - "$TMP/a.json" "$TMP/aborted.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
d["runs"] = [dict(r, uuid="%032x" % (0xab000 + i), status="aborted", label="aborted6")
             for i in range(6)]
json.dump(d, open(sys.argv[2], "w"))
EOF
"$T" history --history "$TMP/aborted.db" import "$TMP/aborted.json" >/dev/null
out=$("$T" history --history "$TMP/aborted.db" export --format=table --rows label --cols procs)
expect table-aborted grep -qE '^aborted6 +6 aborted$' <<<"$out"
expect table-aborted-not-failed eval '! grep -q "^aborted6.*failed" <<<"$out"'
grep -qE '^aborted6 +6 aborted$' <<<"$out" || echo "$out"
# its header counts them too, as stats does
head=$(sed '/^$/q' <<<"$out" | tr '\n' ' ')
expect "table-header-aborted[$head]" grep -q '0 OOM-killed, 0 failed, 6 aborted\.' <<<"$head"
out=$("$T" history --history "$TMP/aborted.db" stats)
expect stats-aborted grep -q 'not in the statistics: 0 OOM-killed, 0 failed, 6 aborted' <<<"$out"
H bogus >/dev/null 2>"$TMP/err"; rc=$?
expect bad-command test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
H show 99999 >/dev/null 2>"$TMP/err"; rc=$?
expect show-missing test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
# the same of a history not made yet: still a run it does not hold
XDG_DATA_HOME=$TMP/xdg "$T" history show 1 >/dev/null 2>"$TMP/err"; rc=$?
expect show-no-history test "$rc" -eq 2 -a "$(cat "$TMP/err")" = "thrashtop: history: $nodb: no run 1 (no history yet)"

expect rm-run eval 'H rm "$id7" >/dev/null'
expect rm-counted test "$(count)" = 20
H rm "$id7" >/dev/null 2>&1; rc=$?
expect rm-missing test "$rc" -eq 2

# A history file another program wrote garbage into is refused, untouched.
cp "$TMP/junk" "$TMP/junk.db"
H --history "$TMP/junk.db" list >/dev/null 2>"$TMP/err"; rc=$?
expect corrupt-refused test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
mkdir "$TMP/dir.db"
H --history "$TMP/dir.db" list >/dev/null 2>"$TMP/err2"; rc=$?
expect directory-refused test "$rc" -eq 2 -a "$(wc -l <"$TMP/err2")" -eq 1
[ "$rc" -eq 2 ] || cat "$TMP/err2"
expect corrupt-message grep -q 'not a database' "$TMP/err"
expect corrupt-untouched cmp -s "$TMP/junk" "$TMP/junk.db"

# A long history lists a page of the newest runs and says there are more;
# --all and --limit list what they ask for.
awk 'BEGIN { print "big:"; for (i = 0; i < 1003; i++)
	printf "%d.000u 1.000s 2:%02d.00 %.1f%% 0+0k 0+0io %dpf+0w\n", 60 + i % 7, i % 60,
		int((61 + i % 7) / (120 + i % 60) * 1000) / 10, 1000 + i }' >"$TMP/big.txt"
LONG=$TMP/long.db
"$T" history --history "$LONG" import "$TMP/big.txt" >/dev/null
"$T" history --history "$LONG" list >"$TMP/out"
expect list-page test "$(grep -c '^ *[0-9]' "$TMP/out")" -eq 1000
expect list-page-newest eval 'sed -n 2p "$TMP/out" | grep -q "^ *1003 "'
expect list-page-says-more eval 'tail -n 1 "$TMP/out" | grep -q "^(older runs not shown: --all lists every run"'
"$T" history --history "$LONG" list --all >"$TMP/out"
expect list-all test "$(grep -c '^ *[0-9]' "$TMP/out")" -eq 1003 -a "$(tail -n 1 "$TMP/out" | grep -c older)" -eq 0
"$T" history --history "$LONG" list --limit=1003 >"$TMP/out"
expect list-limit-whole test "$(grep -c '^ *[0-9]' "$TMP/out")" -eq 1003 -a "$(grep -c older "$TMP/out")" -eq 0

# A posted CPU% kept as posted is the one every view prints, the
# statistics' time lines and the time export too (they read no whole run).
printf '3000.270u 700.330s 1:02:33.29 98.6%% 0+0k 0+0io 19670pf+0w\n' >"$TMP/pct.txt"
P() { "$T" history --history "$TMP/pct.db" "$@"; }
P import "$TMP/pct.txt" >/dev/null 2>&1
for view in "show 1" stats "export --format=time"; do
	expect "posted-pct-in[$view]" eval 'P $view | grep -q " 1:02:33.29 98.6% "'
done
