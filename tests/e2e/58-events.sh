#!/usr/bin/env bash
# lane: whole
# Reclaim events from tracefs. Under global pressure (a hugetlb pool
# through --global, a swap file, a writer bigger than what is left), the
# direct-reclaim stalls thrashtop paired from the tracepoints number what
# /proc/vmstat's allocstall_* counted meanwhile, within 5%, read by the
# workload itself at its first and last moment; kswapd's wakes and awake
# time are shown (and kswapd's CPU moved, by schedstat, meanwhile), and
# they, the direct stalls and the OOM victims are what perf counts on the
# same tracepoints over the run; the summary is what its stored events add
# up to.
# Then the machine's tracing is as it was (mount, instances, every
# top-level event enable) after q, Ctrl-C, SIGTERM, and SIGKILL followed
# by the next start.
. "$(dirname "$0")/lib.sh"
need_root
need_tmux
[ -d /sys/kernel/tracing ] || { skip "no tracefs in this kernel"; exit 0; }
need_machine_lock
export THRASHTOP_STATE_DIR=$TMP/state
cleanup kill_ours

# What the machine's tracing looks like: where tracefs is mounted, its
# instances, and the top-level enable of every reclaim event.
tracing() {
	local dir
	dir=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)
	echo "mount ${dir:-none}"
	[ -n "$dir" ] || return 0
	ls "$dir/instances" | sed 's/^/instance /'
	for e in vmscan/mm_vmscan_direct_reclaim_begin vmscan/mm_vmscan_kswapd_wake \
		vmscan/mm_vmscan_memcg_reclaim_begin oom/mark_victim compaction/mm_compaction_begin; do
		[ -e "$dir/events/$e/enable" ] && echo "enable $e $(cat "$dir/events/$e/enable")"
	done
}
tracing >"$TMP/before"
# as_before NAME: the machine's tracing is as it was at the start
as_before() {
	tracing >"$TMP/after-$1"
	diff "$TMP/before" "$TMP/after-$1" >"$TMP/diff-$1" || { sed 's/^/  /' "$TMP/diff-$1"; return 1; }
}
# running PID: its command runs in its cgroup (the monitor takes keys)
running() { grep -qs . "/sys/fs/cgroup/memory/thrashtop-$1/cgroup.procs"; }
# tracing_on PID: thrashtop PID has its instance
tracing_on() { compgen -G "/sys/kernel/tracing/instances/thrashtop-$1" >/dev/null; }
main_pid() { pgrep -o -f "^$T .*$1"; }

# perf beside thrashtop, on the same tracepoints, with uprobes on the
# calls that bound the run's window (see perf-as-thrashtop): PERF is empty
# when perf cannot be used here, and that check is skipped, saying why.
PERF= PG=tt58_$$
perf_start() {
	command -v perf >/dev/null || { skip perf-as-thrashtop "no perf"; return; }
	if ! perf probe -q -x "$T" -a "$PG:drain=tracer_drain" -a "$PG:run_begin=tracer_run_begin" \
		-a "$PG:run_end=rc_run_end" >"$TMP/probe" 2>&1; then
		skip perf-as-thrashtop "perf probe: $(head -1 "$TMP/probe")"
		return
	fi
	cleanup "perf probe -q -d '$PG:*'"
	mkfifo "$TMP/perf-ctl" "$TMP/perf-ack"
	perf record -q -a -k mono -m 1024 -D -1 --control "fifo:$TMP/perf-ctl,$TMP/perf-ack" \
		-o "$TMP/perf.data" -e vmscan:mm_vmscan_kswapd_wake -e vmscan:mm_vmscan_kswapd_sleep \
		-e vmscan:mm_vmscan_direct_reclaim_begin -e vmscan:mm_vmscan_direct_reclaim_end \
		-e oom:mark_victim -e "$PG:drain" -e "$PG:run_begin" -e "$PG:run_end" >"$TMP/perf-out" 2>&1 &
	PERF=$!
	cleanup "kill -INT $PERF"
	echo enable >"$TMP/perf-ctl"
	if ! timeout 20 head -c3 "$TMP/perf-ack" | grep -q ack; then
		skip perf-as-thrashtop "perf record did not start: $(head -1 "$TMP/perf-out")"
		kill -INT "$PERF"; PERF=
	fi
}
perf_stop() {
	[ -n "$PERF" ] || return 0
	kill -INT "$PERF"
	wait "$PERF"
	perf script -i "$TMP/perf.data" --ns -F tid,time,event,trace --show-lost-events \
		>"$TMP/perf.txt" 2>/dev/null
	perf probe -q -d "$PG:*"
}

hp_kib=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
if [ -n "$hp_kib" ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	nr0=$(cat /proc/sys/vm/nr_hugepages)
	cleanup "echo $nr0 >/proc/sys/vm/nr_hugepages"
	read -r -a KPIDS <<<"$(pgrep -x 'kswapd[0-9]+' | tr '\n' ' ')"
	kswapd_ns() {
		local p s=0
		for p in "${KPIDS[@]}"; do s=$((s + $(awk '{ print $1 }' "/proc/$p/schedstat"))); done
		echo "$s"
	}
	sync
	echo 3 >/proc/sys/vm/drop_caches
	total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	size_kib=$(((total_kib - avail_kib + 1331200) / 1024 * 1024))
	# Writes 1.5 GiB past what is available, once: some thousands of
	# direct stalls here, which the 5% has to hold for, the window's edges
	# differing by a dozen; allocstall_* summed at its first and last
	# moment.
	cat >"$TMP/press.py" <<'PY'
import mmap, os, sys
def stalls():
    return sum(int(l.split()[1]) for l in open("/proc/vmstat") if l.startswith("allocstall_"))
a = stalls()
avail = [int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemAvailable:")][0] << 10
# two writers, 16 MiB at a time: faster than kswapd frees, so
# allocations wait in direct reclaim; on a machine slow enough that
# kswapd kept up, they go round again until one did (at most 8 rounds)
each, chunk = (avail + (1536 << 20)) // 2 // (16 << 20) * (16 << 20), b"\x01" * (16 << 20)
kids = []
for k in range(2):
    pid = os.fork()
    if pid == 0:
        m = mmap.mmap(-1, each)
        for rnd in range(8):
            for i in range(0, each, 16 << 20):
                m[i:i + (16 << 20)] = chunk
            if stalls() > a:
                break
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
b = stalls()
open(sys.argv[1], "w").write("%d %d\n" % (a, b))
PY
	perf_start
	k0=$(kswapd_ns)
	"$T" -b --global "${size_kib}K" --swap 3G --history "$TMP/h.db" \
		-- python3 "$TMP/press.py" "$TMP/stalls" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	started $pid
	wait $pid; rc=$?
	k1=$(kswapd_ns)
	perf_stop
	expect global-exit-0 test "$rc" -eq 0
	line=$(joined '^reclaim: ' "$TMP/out")
	echo "  $line"
	read -r a b <"$TMP/stalls" || a=0 b=0
	ours=$(sed -n 's/^reclaim: \([0-9]*\) direct stall.*/\1/p' <<<"$line")
	echo "  allocstall_* +$((b - a)) during the workload, thrashtop ${ours:-none}"
	within5() { [ -n "$ours" ] && [ $((b - a)) -gt 0 ] && [ $((100 * (ours - (b - a)))) -le $((5 * (b - a))) ] &&
		[ $((100 * ((b - a) - ours))) -le $((5 * (b - a))) ]; }
	expect direct-stalls-match-allocstall within5
	[ -n "$line" ] || sed 's/^/  stdout: /; $a\' "$TMP/out" "$TMP/err"
	wakes=$(sed -n 's/.*kswapd awake \([0-9.]*\)s in \([0-9]*\) wakes*.*/\2/p' <<<"$line")
	awake=$(sed -n 's/.*kswapd awake \([0-9.]*\)s in \([0-9]*\) wakes*.*/\1/p' <<<"$line")
	expect kswapd-wakes-shown test "${wakes:-0}" -gt 0
	# kswapd was awake, and did work by its own schedstat
	echo "  kswapd CPU $(((k1 - k0) / 1000000)) ms in the session, awake ${awake:-?} s in the run"
	awake() { awk -v a="${awake:-0}" -v c="$(((k1 - k0) / 1000000))" 'BEGIN { exit !(a > 0 && c > 0) }'; }
	expect kswapd-awake-shown awake
	"$T" history --history "$TMP/h.db" show 1 >"$TMP/show"
	expect recorded-stalls grep -Eq "^reclaim_direct_stalls +${ours:-x}\$" "$TMP/show"
	expect recorded-wakes grep -Eq "^reclaim_kswapd_wakes +${wakes:-x}\$" "$TMP/show"
	"$T" history --history "$TMP/h.db" export --format=json >"$TMP/json"
	expect json-stalls grep -q "\"reclaim_direct_stalls\": ${ours:-x}," "$TMP/json"
	# the stalls one by one (the first 4096), each with its thread
	kept=$(grep -o '"kind": "direct"' "$TMP/json" | wc -l)
	past=$(sed -n 's/.*"reclaim_events_past": \([0-9]*\).*/\1/p' "$TMP/json")
	echo "  events kept: $kept direct, $past past the first 4096"
	expect json-direct-events test "$kept" -gt 0 -a "$kept" -le "${ours:-0}"
	# the csv has the same events, a cell of the json's list
	"$T" history --history "$TMP/h.db" export --format=csv >"$TMP/csv"
	same_events() {
		python3 - "$TMP/json" "$TMP/csv" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))["runs"][0]["events"]
csv.field_size_limit(1 << 30)
c = json.loads(next(csv.DictReader(open(sys.argv[2], newline="")))["events"])
print("  events: json %d, csv %d; first %s, last %s" % (len(j), len(c), c[:1], c[-1:]))
sys.exit(0 if j and c == j and c[0] == j[0] and c[-1] == j[-1] else 1)
PY
	}
	expect csv-events-as-json same_events
	if [ -n "$PERF" ]; then
		expect perf-as-thrashtop python3 - "$TMP/perf.txt" "$pid" "$TMP/json" <<'PY'
import collections, json, re, sys
# The run's counts are the totals at its end sample less those at its
# start sample: every event stamped up to a point S read at the start, up
# to E at the end. S lies between the start sample's tracer_drain and
# tracer_run_begin, E between the end sample's tracer_drain and the
# rc_run_end that follows it (both called on the main thread, nothing
# sampling between). perf records those calls as uprobes on the same
# clock as the tracepoints, so perf's count over (rb, dr_end] is a lower
# bound and over (dr_start, re] an upper bound of the exact one, whatever
# the load: the bounds differ only by events within the two gaps of
# about a millisecond each.
ev, tid = [], int(sys.argv[2])
for l in open(sys.argv[1]):
    if "LOST" in l:
        print("  perf lost events: " + l.strip())
        sys.exit(1)
    m = re.match(r"\s*(\d+)\s+(\d+\.\d+):\s+(\S+):\s*(.*)", l)
    if m:
        ev.append((float(m.group(2)), int(m.group(1)), m.group(3).split(":")[1], m.group(4)))
ev.sort(key=lambda e: e[0])
probe = lambda n: [e[0] for e in ev if e[2] == n and e[1] == tid]
rb, re_ = probe("run_begin"), probe("run_end")
if len(rb) != 1 or len(re_) != 1:
    print("  perf saw %d run begins and %d run ends of pid %d" % (len(rb), len(re_), tid))
    sys.exit(1)
rb, re_ = rb[0], re_[0]
s_lo = max(t for t in probe("drain") if t < rb)
e_lo = max(t for t in probe("drain") if t < re_)
inner, outer = (rb, e_lo), (s_lo, re_)
# direct stalls as thrashtop pairs them: an end whose thread's begin was seen
opened, ends, nid_of = {}, [], lambda a: int(re.search(r"nid=(\d+)", a).group(1))
awake, spans = {}, []
for t, who, name, args in ev:
    if name == "mm_vmscan_direct_reclaim_begin":
        opened[who] = t
    elif name == "mm_vmscan_direct_reclaim_end" and opened.pop(who, None) is not None:
        ends.append(t)
    elif name == "mm_vmscan_kswapd_wake":
        awake.setdefault(nid_of(args), t)
    elif name == "mm_vmscan_kswapd_sleep" and nid_of(args) in awake:
        spans.append((awake.pop(nid_of(args)), t))
spans += [(t, float("inf")) for t in awake.values()]
count = lambda ts, w: sum(1 for t in ts if w[0] < t <= w[1])
times = lambda name: [e[0] for e in ev if e[2] == name]
awake_s = lambda w: sum(max(0, min(b, w[1]) - max(a, w[0])) for a, b in spans)
overlapping = lambda w: sum(1 for a, b in spans if a < w[1] and b > w[0])
run = json.load(open(sys.argv[3]))["runs"][0]
stored = [e for e in run["events"] if e["kind"] == "kswapd"]
ok = True
print("  run window: start gap %.3f ms, end gap %.3f ms, %.1f s between" %
      ((rb - s_lo) * 1e3, (re_ - e_lo) * 1e3, e_lo - rb))
for what, ours, lo, hi in (
        ("kswapd wakes", run["reclaim_kswapd_wakes"], count(times("mm_vmscan_kswapd_wake"), inner),
         count(times("mm_vmscan_kswapd_wake"), outer)),
        ("direct stalls", run["reclaim_direct_stalls"], count(ends, inner), count(ends, outer)),
        ("OOM victims", run["reclaim_oom"], count(times("mark_victim"), inner),
         count(times("mark_victim"), outer)),
        ("kswapd awake spans stored", len(stored), overlapping(inner), overlapping(outer))):
    good = lo <= ours <= hi
    ok = ok and good
    print("  %s: thrashtop %d, perf %d..%d%s" % (what, ours, lo, hi, "" if good else "  <- outside"))
lo, hi, ours = awake_s(inner), awake_s(outer), run["reclaim_kswapd_awake_s"]
good = lo - 0.001 <= ours <= hi + 0.001
ok = ok and good
print("  kswapd awake: thrashtop %.3f s, perf %.3f..%.3f s%s" % (ours, lo, hi, "" if good else "  <- outside"))
# the summary is the stored events': the spans add up to its awake time
total = sum(e["dur_s"] for e in stored)
good = run["reclaim_events_past"] > 0 or abs(total - ours) <= 0.001 + 1e-6 * len(stored)
ok = ok and good
print("  stored kswapd spans: %d, %.3f s; the summary's %.3f s%s" %
      (len(stored), total, ours, "" if good else "  <- differ"))
sys.exit(0 if ok else 1)
PY
	fi
	expect global-tracing-as-before as_before global
	expect pool-back test "$(cat /proc/sys/vm/nr_hugepages)" -eq "$nr0"
else
	echo "  (no hugetlb pool: the global pressure part is left out)"
fi

# q and Ctrl-C in the monitor.
TUNE="--mem 64M --no-history"
for path in q ctrl-c; do
	S=ev-$path
	tm new-session -d -s "$S" -x 100 -y 30 "$T $TUNE -L ev-$path -- sleep 60 2>$TMP/err-$path; sleep 30"
	wait_for 10 main_pid "ev-$path" >/dev/null
	pid=$(main_pid "ev-$path")
	started "$pid"
	expect "$path-tracing" wait_for 20 tracing_on "$pid"
	wait_for 20 running "$pid"
	case $path in
	q) tm send-keys -t "$S" q ;;
	ctrl-c) tm send-keys -t "$S" C-c ;;
	esac
	expect "$path-exits" wait_for 20 gone "$pid"
	expect "$path-tracing-as-before" as_before "$path"
	expect "$path-no-record" bash -c "! grep -qs '^$pid ' '$THRASHTOP_STATE_DIR/state'"
	expect "$path-no-complaint" bash -c "! grep -q 'could not undo' $TMP/err-$path"
	tm kill-session -t "$S" 2>/dev/null
done

# SIGTERM in batch mode.
"$T" -b $TUNE -- sleep 60 >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
expect sigterm-tracing wait_for 20 tracing_on $pid
kill -TERM $pid
wait $pid; rc=$?
expect sigterm-exit-143 test $rc -eq 143
expect sigterm-tracing-as-before as_before sigterm

# SIGKILL: the instance (and a mount thrashtop made) stays, recorded; the
# next start removes it and says so.
"$T" -b $TUNE -- sleep 60 >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
expect sigkill-tracing wait_for 20 tracing_on $pid
kill_now $pid
expect sigkill-left-recorded grep -q "^$pid .* tracefs .*thrashtop-$pid instance" "$THRASHTOP_STATE_DIR/state"
expect sigkill-left-instance tracing_on $pid
"$T" -b -n 1000 -p 1 --no-history >"$TMP/out" 2>"$TMP/err"; rc=$?
expect next-start-runs test $rc -eq 0
expect next-start-says grep -q "tracefs instance .*thrashtop-$pid removed" "$TMP/err"
[ $rc -eq 0 ] || sed 's/^/  stderr: /' "$TMP/err"
expect next-start-tracing-as-before as_before sigkill

# Not root: every reclaim series n/a with the reason, nothing changed.
as_nobody "$T" --list-plots >"$TMP/plots" 2>&1
expect nobody-na grep -q '^direct-stalls .*no: needs root (tracefs)' "$TMP/plots"
expect nobody-tracing-as-before as_before nobody

# --no-events: a session that changes the machine leaves tracefs alone,
# and its reclaim figures are n/a with that reason.
"$T" -b --mem 2G --no-events -n 2000000 -p 1 --history "$TMP/ne.db" >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
wait $pid; rc=$?
expect no-events-runs test $rc -eq 0
expect no-events-na-reclaim-line grep -qx 'n/a reclaim' "$TMP/out"
expect no-events-silent bash -c "! grep -q 'reclaim events' $TMP/err"
expect no-events-tracing-as-before as_before no-events
expect no-events-none-stored test "$("$T" history --history "$TMP/ne.db" export --format=json |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][-1]; print(len(r.get("events") or []))')" = 0
[ $rc -eq 0 ] || sed 's/^/  stderr: /' "$TMP/err"
