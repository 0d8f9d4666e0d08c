#!/usr/bin/env bash
# lane: other
# The one loop goes on whatever view is open: with the history view open
# the run is sampled, reaped and stored with its true wall time, and a
# signal ends the session; the monitor guards itself; a worker that cannot
# be forked ends the run (1024 workers: 21-loop-p1024).
. "$(dirname "$0")/lib.sh"
need_tmux

now() { date +%s.%N; }
# main_of PATTERN: the oldest process whose command line starts with it.
main_of() { pgrep -o -f "^$1"; }
all_gone() { local p; for p in $1; do alive "$p" && return 1; done; return 0; }

# ---- the history view does not stop the monitor ----
H=$TMP/h.db
t_launch=$(now)
tm new-session -d -s hv -x 100 -y 30 \
	"$T -n 30000000 -p 1 -d 0.5 --history $H 2>$TMP/hv.err; echo EXIT=\$? >$TMP/hv.rc; sleep 60"
expect hv-monitor-up wait_for 20 has hv 'major faults'
main=$(main_of "$T -n 30000000")
worker=$(pgrep -P "$main" | head -1)
expect hv-worker-found test -n "$worker"
tm send-keys -t hv h
expect hv-history-open wait_for 5 has hv 'thrashtop history'
# The worker ends while the history view is open: it is reaped and its run
# stored at once, and the view says so.
expect hv-worker-ends wait_for 120 gone "$worker"
t_exit=$(now)
expect hv-run-stored-while-open wait_for 5 has hv 'run 1 added to the history'
sleep 4
expect hv-still-open has hv 'thrashtop history'
tm send-keys -t hv q
expect hv-monitor-back wait_for 5 has hv 'major faults'
tm send-keys -t hv q
expect hv-exit-0 wait_for 10 grep -qs EXIT=0 "$TMP/hv.rc"
"$T" history export --format=json --history "$H" >"$TMP/hv.json" 2>&1
# The stored wall time ends when the worker did, not when the view closed
# 4 s later; and the samples go on to the end of the run.
if python3 - "$TMP/hv.json" "$t_launch" "$t_exit" >"$TMP/hv.check" 2>&1 <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
launch, exit_ = float(sys.argv[2]), float(sys.argv[3])
wall = run["wall_us"] / 1e6
t = run["series"]["t"]
print(f"wall {wall:.2f} s, launch to worker exit {exit_ - launch:.2f} s, "
      f"{len(t)} samples, the last at {t[-1]:.2f} s")
sys.exit(0 if wall <= exit_ - launch + 0.5 and t[-1] >= wall - 1.0 else 1)
EOF
then pass hv-wall-and-samples; else fail hv-wall-and-samples "$(cat "$TMP/hv.check")"; fi

# A signal while the history view is open ends the session at once.
tm new-session -d -s hs -x 100 -y 30 \
	"$T -n 400000000 -p 2 -d 0.5 --history $TMP/hs.db 2>$TMP/hs.err; echo EXIT=\$? >$TMP/hs.rc; sleep 60"
expect hs-monitor-up wait_for 20 has hs 'major faults'
main=$(main_of "$T -n 400000000")
workers=$(pgrep -P "$main" | tr '\n' ' ')
tm send-keys -t hs h
expect hs-history-open wait_for 5 has hs 'thrashtop history'
kill -TERM "$main"
expect hs-sigterm-ends wait_for 3 grep -qs EXIT=143 "$TMP/hs.rc"
expect hs-workers-reaped all_gone "$workers"

# ---- the monitor guards itself (root): a raised priority and a
# real-time loop that its workers do not inherit, and its memory locked ----
if [ "$(id -u)" -eq 0 ]; then
	tm new-session -d -s g -x 100 -y 30 "$TP -n 400000000 -p 2 -d 0.5 --no-history 2>$TMP/g.err; sleep 60"
	expect guard-up wait_for 20 has g 'major faults'
	main=$(main_of "$TP -n 400000000")
	worker=$(pgrep -P "$main" | head -1)
	nice_of() { awk '{ print $19 }' "/proc/$1/stat"; }
	expect guard-monitor-nice test "$(nice_of "$main")" -eq -20
	expect guard-worker-nice test "$(nice_of "$worker")" -eq "$(nice)"
	# the scheduling policy, /proc/PID/stat field 41: 1 SCHED_FIFO, 0 normal
	policy_of() { awk '{ print $41 }' "/proc/$1/stat"; }
	expect guard-monitor-fifo test "$(policy_of "$main")" -eq 1
	expect guard-worker-normal test "$(policy_of "$worker")" -eq 0
	lck=$(awk '/^VmLck/ { print $2 }' "/proc/$main/status")
	expect guard-memory-locked test "${lck:-0}" -gt 0
	expect guard-worker-unlocked test "$(awk '/^VmLck/ { print $2 }' "/proc/$worker/status")" -eq 0
	expect guard-header-quiet bash -c "! tm capture-pane -p -t g | grep -q 'not locked'"
	tm send-keys -t g q
	tm kill-session -t g 2>/dev/null
else
	skip guard "needs root"
fi

# ---- a worker that cannot be forked ends the run with one line, and
# takes the ones already forked with it ----
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	# The label tells this run's processes from a thrashtop that another
	# test runs as nobody meanwhile.
	as_nobody bash -c "ulimit -u 40; '$T' -b -p 100 -n 1000 --no-history -L nofork-$$" \
		>"$TMP/nf.out" 2>"$TMP/nf.err"
	rc=$?
	expect nofork-exit-2 test "$rc" -eq 2
	expect nofork-line bash -c "grep -qx 'thrashtop: cannot fork worker [0-9]* of 100: Resource temporarily unavailable' $TMP/nf.err || { cat $TMP/nf.err >&2; false; }"
	expect nofork-none-left wait_for 5 bash -c "! pgrep -u nobody -f -- '-L nofork-$$' >/dev/null"
else
	skip nofork "needs root and the user nobody"
fi
