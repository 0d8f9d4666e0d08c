#!/usr/bin/env bash
# lane: confined
# Delay accounting: under a memory cgroup limit with swap, the run's stall
# line has swap-in time, and its JSON export's per-worker delays sum to the
# line. kernel.task_delayacct, which a root session that changes the
# machine turns on before its first worker, is back as it was after q,
# Ctrl-C and SIGTERM, and after SIGKILL once the next start has run. A
# plain root session leaves it alone; a normal user gets "n/a stalls" and
# one line on stderr saying why.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /proc/sys/kernel/task_delayacct ] || { skip "kernel without delay accounting"; exit 0; }
[ -d /sys/fs/cgroup/memory ] || { skip "no v1 memory controller"; exit 0; }
# It sets kernel.task_delayacct and presses a cgroup: one such test at a time.
need_machine_lock
need_tmux
export THRASHTOP_STATE_DIR=$TMP/state
da0=$(cat /proc/sys/kernel/task_delayacct)
cleanup "echo $da0 >/proc/sys/kernel/task_delayacct"
cleanup kill_ours
# Off, as the kernel boots it: each path must turn it on and back off.
echo 0 >/proc/sys/kernel/task_delayacct
da() { cat /proc/sys/kernel/task_delayacct; }

# A single sorter through a 96 MiB cgroup with swap, release build (see
# 25-pressure.sh for why).
"$TP" -b --mem 96M --swap 1G -n 30000000 -p 1 --history "$TMP/h.db" >"$TMP/out" 2>"$TMP/err"
rc=$?
line=$(joined '^(stalls:|n/a stalls)' "$TMP/out")
expect pressure-run-ends test $rc -eq 0 -o $rc -eq 1
expect stall-line-printed grep -Eq '^stalls:( [0-9]+\.[0-9]s [a-z]+)+$' <<<"$line"
expect stall-line-has-swapin grep -Eq ' [0-9]+\.[0-9]s swapin ' <<<"$line"
expect delayacct-restored-batch test "$(da)" = 0
"$T" history --history "$TMP/h.db" export --format=json >"$TMP/json"
# The kernel counts in swapin only the read's submission (swap_read_folio):
# from a swap file the wait for the disk is io and thrashing, so swapin
# can be below the line's tenth; the stored seconds must still be above 0.
expect swapin-above-0 python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["runs"][-1]["stalls"]["swapin"]
print("stored swapin", s) if not s > 0 else None
sys.exit(0 if s > 0 else 1)' "$TMP/json"
# Each field of the line is the workers' sum, truncated to tenths as the
# line prints it, and is the run's stored "stalls".
check_sum() {
	python3 - "$TMP/json" "$line" <<'PY'
import json, math, sys
run = json.load(open(sys.argv[1]))["runs"][-1]
line = sys.argv[2].split()
printed = {line[i + 1]: float(line[i][:-1]) for i in range(1, len(line), 2)}
total = {}
for w in run["workers"]:
    for k, v in (w["delays"] or {}).items():
        total[k] = total.get(k, 0.0) + v
ok = set(total) == set(printed) == set(run["stalls"])
for k, v in total.items():
    tenths = math.floor(round(v * 1e6) / 1e5) / 10
    ok = ok and abs(tenths - printed.get(k, -1)) < 1e-9 and abs(run["stalls"][k] - v) < 1e-9
if not ok:
    print("line", printed, "workers' sum", total, "stored", run["stalls"])
sys.exit(0 if ok else 1)
PY
}
expect json-delays-sum-to-line check_sum
# The stall series are stored with the run's samples; summed over the run
# (rate times each interval) they come near the totals, less the first
# interval, which has no rate.
check_series() {
	python3 - "$TMP/json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][-1]
s = run["series"]
ok = True
for name, key in (("stall-swapin", "swapin"), ("stall-reclaim", "reclaim"),
                  ("stall-thrashing", "thrashing"), ("stall-io", "io"), ("stall-cpu", "cpu")):
    v, t = s.get(name), s["t"]
    stored = v and any(x is not None for x in v)
    total = run["stalls"].get(key)
    # Now and then this kernel adds its whole uptime to a task's block I/O
    # delay, for good: from then on that figure is n/a, in the samples
    # and in the run's total alike.
    if total is None:
        if stored:
            print(name, "stored, but the run's total is n/a:", run["stalls"]); ok = False
        else:
            print("NOTE 57-stalls: %s n/a in this run, its series too (%s)" % (key, run["stalls"]))
        continue
    if not stored:
        print(name, "not stored, the run's total", total, "series", v); ok = False; continue
    area = sum(v[i] * (t[i] - t[i - 1]) for i in range(1, len(v)) if v[i] is not None)
    if area > total + 0.05 or area < 0.5 * total - 0.2:
        print(name, "summed", area, "against the run's", total); ok = False
sys.exit(0 if ok else 1)
PY
}
expect stall-series-stored check_series
"$T" history --history "$TMP/h.db" show 1 >"$TMP/show"
expect show-has-stall-line grep -qF "$line" "$TMP/show"
"$T" history --history "$TMP/h.db" export --format=time >"$TMP/time"
expect time-export-has-stall-line test "$(joined '^stalls:' "$TMP/time")" = "$line"
# The replay's rows give the stored stall shares with d, as history show.
S=stalls-replay-$$
cleanup "tm kill-session -t $S"
tm new-session -d -s $S -x 120 -y 40 "$T --history $TMP/h.db history replay 1 --speed 64; sleep 60"
tm send-keys -t $S End
expect replay-rows-at-end wait_for 20 has $S 'MAJFLT'
tm send-keys -t $S d
expect replay-stall-columns wait_for 10 has $S 'SWAPIN RECLAIM  THRASH      IO CPUWAIT'
row() { screen $S | awk '$1 ~ /^[0-9]+$/ && $NF ~ /%$/ { print; exit }'; }
# IO is the fourth share: history show's percent to within its rounding.
# When the kernel made this run's io n/a (see check_series) the row says
# n/a there and the last share, CPUWAIT, is compared instead.
share_of() { grep -E '^ +0 +[0-9]+ swapin' "$TMP/show" | grep -o "$1 [0-9.]* ([0-9]*%)" | grep -o '[0-9]*%' | tr -d %; }
share_close() {
	local want col=1 io
	want=$(share_of io)
	if [ -z "$want" ]; then
		io=$(awk '{ print $(NF - 1) }' <<<"$(row)")
		[ "$io" = n/a ] || return 1
		want=$(share_of cpu) col=0
	fi
	awk -v want="$want" -v col="$col" \
		'{ v = $(NF - col); sub(/%/, "", v); d = v - want; exit !(want != "" && d <= 1 && d >= -1) }' <<<"$(row)"
}
expect replay-stall-share-as-show share_close
share_close || { row; grep -E '^ +0 +[0-9]+ swapin' "$TMP/show"; }
quit_session $S
[ $rc -le 1 ] || cat "$TMP/err"

# A command's whole tree: a shell waiting for its children, one of them a
# shell with a child of its own, one with three threads, and an orphan
# handed to thrashtop when its parent left at once. The spinners share
# CPU 0, so each waits for it; each thread and shell writes its own run
# delay (/proc/thread-self/schedstat, the cpu_delay_total taskstats
# reads) just before it ends. The stored cpu wait is their sum, and only
# what they waited after writing it and mkfifo's wait more.
cat >"$TMP/busy.py" <<'PY'
import os, sys, threading, time
out, nthreads, fifo = sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None
cpus = os.sched_getaffinity(0)
os.sched_setaffinity(0, {0})
# spin on CPU 0 for a second, then (on every CPU again, not to wait long
# after) write the thread's run delay
def run():
    t = time.time()
    while time.time() - t < 1:
        pass
    os.sched_setaffinity(0, cpus)
    d = open("/proc/thread-self/schedstat").read().split()[1]
    with open(out, "a") as f:
        f.write("%d %s\n" % (threading.get_native_id(), d))
ts = [threading.Thread(target=run) for i in range(nthreads - 1)]
for t in ts:
    t.start()
for t in ts:
    t.join()
run()
if fifo:
    open(fifo, "w").write("done\n")
os._exit(0)
PY
cat >"$TMP/tree.sh" <<'EOF2'
#!/bin/sh
P=$1 B=$2/busy.py F=$2/delays
mkfifo $F.fifo
$P $B $F 1 &
$P $B $F 3 &
sh -c '"$1" "$2" "$3" 1 & wait; read a b c </proc/$$/schedstat; echo $$ $b >>"$3"' sh $P $B $F &
sh -c '"$1" "$2" "$3" 1 "$3.fifo" & read a b c </proc/$$/schedstat; echo $$ $b >>"$3"' sh $P $B $F
wait
read done <$F.fifo
read a b c </proc/$$/schedstat
echo $$ $b >>$F
EOF2
chmod +x "$TMP/tree.sh"
# the interpreter itself: a wrapper's own processes would be the tree's too
py=$(python3 -c 'import sys; print(sys.executable)')
"$TP" -b --mem 1G --history "$TMP/tree.db" -- "$TMP/tree.sh" "$py" "$TMP" >"$TMP/out-tree" 2>"$TMP/err-tree"
rc=$?
expect tree-run-ok test $rc -eq 0
"$T" history --history "$TMP/tree.db" export --format=json >"$TMP/tree.json"
check_tree() {
	python3 - "$TMP/tree.json" "$TMP/delays" "$(joined '^stalls:' "$TMP/out-tree")" <<'PY'
import json, math, sys
run = json.load(open(sys.argv[1]))["runs"][-1]
reads = [l.split() for l in open(sys.argv[2])]
own = int(reads[-1][1]) / 1e9
total = sum(int(r[1]) for r in reads) / 1e9
stored, w0 = run["stalls"]["cpu"], run["workers"][0]["delays"]["cpu"]
line = sys.argv[3].split()
printed = float(line[line.index("cpu") - 1][:-1])
print("  %d threads wrote %.3fs of cpu wait (the root shell %.3fs); stored %.3fs, "
      "the worker's %.3fs, the line %.1fs" % (len(reads), total, own, stored, w0, printed))
ok = len(reads) == 9 and total > 1 and total - 1e-9 <= stored <= total + 0.1
ok = ok and w0 == stored and printed == math.floor(round(stored * 1e6) / 1e5) / 10
sys.exit(0 if ok else 1)
PY
}
expect tree-cpu-wait-summed check_tree
[ $rc -eq 0 ] || cat "$TMP/out-tree" "$TMP/err-tree"

# The monitor: q, Ctrl-C, SIGTERM.
S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"
main_pid() { pgrep -o -f "^$T .*-L $1"; }
for path in q ctrl-c sigterm; do
	tm new-session -d -s "$S" -x 80 -y 24 "$T --mem 2G -n 300000000 -p 1 --no-history -L stalls-$path 2>$TMP/err-$path; sleep 30"
	wait_for 10 main_pid "stalls-$path" >/dev/null
	pid=$(main_pid "stalls-$path")
	started "$pid"
	expect "$path-turned-on" wait_for 20 bash -c '[ "$(cat /proc/sys/kernel/task_delayacct)" = 1 ]'
	if [ "$path" = q ]; then
		# d: the worker rows' stall columns, with shares read live, once
		# the rows are on screen (a key typed before the screen is up
		# can go to the terminal's cooked mode)
		expect fault-columns-first wait_for 20 has "$S" 'MAJFLT'
		tm send-keys -t "$S" d
		expect stall-columns-shown wait_for 10 has "$S" 'SWAPIN RECLAIM  THRASH      IO CPUWAIT'
		has "$S" 'SWAPIN RECLAIM' || screen | sed 's/^/  screen: /'
		expect stall-columns-filled wait_for 10 bash -c "tm capture-pane -p -t $S | grep -Eq '^ +[0-9]+ [A-Z] [a-z]+ .*( +[0-9]+\.[0-9]%){5}'"
		tm send-keys -t "$S" d
		expect fault-columns-back wait_for 10 has "$S" 'MAJFLT'
		tm send-keys -t "$S" '?'
		expect help-lists-stall-key wait_for 5 has "$S" "stall / fault columns"
		tm send-keys -t "$S" Escape
		sleep 0.5
	fi
	case $path in
	q) tm send-keys -t "$S" q ;;
	ctrl-c) tm send-keys -t "$S" C-c ;;
	sigterm) kill -TERM "$pid" ;;
	esac
	expect "$path-exits" wait_for 20 gone "$pid"
	expect "$path-restored" test "$(da)" = 0
	expect "$path-record-dropped" bash -c "! grep -qs task_delayacct $THRASHTOP_STATE_DIR/state"
	tm kill-session -t "$S" 2>/dev/null
done

# SIGKILL: it stays on, recorded, until the next start puts it back.
"$T" -b --mem 2G -n 300000000 -p 1 --no-history >/dev/null 2>&1 &
pid=$!
started $pid
expect sigkill-turned-on wait_for 20 bash -c '[ "$(cat /proc/sys/kernel/task_delayacct)" = 1 ]'
kill_now $pid
expect sigkill-left-recorded grep -q "^$pid .* sysctl kernel.task_delayacct 0$" "$THRASHTOP_STATE_DIR/state"
expect sigkill-left-on test "$(da)" = 1
"$T" -b -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/err-next"
expect next-start-restores test "$(da)" = 0
expect next-start-says-so grep -q "kernel.task_delayacct restored to 0" "$TMP/err-next"

# A normal user: the figures are n/a, and stderr says why, once.
as_nobody "$T" -b -n 100000 -p 1 --no-history >"$TMP/out-user" 2>"$TMP/err-user"
expect user-na-stalls grep -qx 'n/a stalls' "$TMP/out-user"
expect user-one-reason test "$(grep -c 'n/a stalls: delay accounting needs root' "$TMP/err-user")" -eq 1
expect user-changed-nothing test "$(da)" = 0

# timeout 60 sh $TMP/until FILE: a command that lasts until the test
# touches FILE (60 s at most), in place of a sleep long enough for the
# checks made meanwhile
echo 'until [ -e "$1" ]; do sleep 0.1; done' >"$TMP/until"
# A plain root session leaves the switch alone and never takes the
# one-session lock for it: a tuning session starts beside it.
"$T" -b --no-history -- timeout 60 sh "$TMP/until" "$TMP/plain-go" >"$TMP/out-plain" 2>"$TMP/err-plain" &
plain=$!
started $plain
wait_for 10 pgrep -P $plain -x timeout >/dev/null
"$T" -b --mem 2G --no-history -- true >/dev/null 2>"$TMP/err-beside"
expect tuning-beside-plain-runs test $? -eq 0
touch "$TMP/plain-go"
wait $plain
expect plain-na-stalls grep -qx 'n/a stalls' "$TMP/out-plain"
expect plain-one-reason test "$(grep -c 'n/a stalls: kernel.task_delayacct is 0 (set it to 1, or tune: --mem, --swap ...)' "$TMP/err-plain")" -eq 1
expect plain-changed-nothing test "$(da)" = 0
grep -qx 'n/a stalls' "$TMP/out-plain" || cat "$TMP/out-plain" "$TMP/err-plain" "$TMP/err-beside"
# Where it is on already, a plain session has its stall line.
echo 1 >/proc/sys/kernel/task_delayacct
"$T" -b --no-history -n 2000000 -p 1 >"$TMP/out-on" 2>"$TMP/err-on"
expect plain-on-has-stalls grep -Eq '^stalls:( [0-9]+\.[0-9]s [a-z]+)+$' "$TMP/out-on"
expect plain-on-left-on test "$(da)" = 1
echo 0 >/proc/sys/kernel/task_delayacct

# --no-stalls: a session that changes the machine leaves the switch
# alone and asks nothing; the line is n/a, with no reason given back.
"$T" -b --mem 2G --no-stalls --no-history -n 1000000 -p 1 >"$TMP/out-ns" 2>"$TMP/err-ns"
expect no-stalls-na grep -qx 'n/a stalls' "$TMP/out-ns"
expect no-stalls-silent bash -c "! grep -q 'n/a stalls' $TMP/err-ns"
expect no-stalls-left-off test "$(da)" = 0

# Delay accounting turned off under a run (the session that turned it on
# ended first): that run's stalls are n/a, said once, never a short total.
"$T" -b --mem 2G --no-history -- timeout 60 sh "$TMP/until" "$TMP/first-go" >/dev/null 2>"$TMP/err-first" &
first=$!
started $first
wait_for 20 bash -c '[ "$(cat /proc/sys/kernel/task_delayacct)" = 1 ]'
"$T" -b --no-history -- timeout 60 sh "$TMP/until" "$TMP/second-go" >"$TMP/out-second" 2>"$TMP/err-second" &
second=$!
started $second
wait_for 10 pgrep -P $second -x timeout >/dev/null
touch "$TMP/first-go"
wait $first
# a beat of the second's with the switch off
sleep 1
touch "$TMP/second-go"
wait $second
expect off-under-run-na grep -qx 'n/a stalls' "$TMP/out-second"
expect off-under-run-says test "$(grep -c 'kernel.task_delayacct was off during the run' "$TMP/err-second")" -eq 1
grep -qx 'n/a stalls' "$TMP/out-second" || cat "$TMP/out-second" "$TMP/err-second"
expect off-under-run-restored test "$(da)" = 0
