#!/usr/bin/env bash
# The one loop goes on whatever view is open: with the history view open
# the run is sampled, reaped and stored with its true wall time, and a
# signal ends the session; with 1024 workers on this machine, SIGTERM,
# SIGHUP (the terminal going away) and q end it, every worker reaped,
# within 2 s at any moment of the start; the monitor guards itself.
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
	echo "SKIP $NAME/guard: needs root"
fi

# ---- 1024 workers on 2 CPUs: every way out works during the start ----
# A dying worker still needs the CPU to exit, and its memory must not be
# in swap: another thousand busy processes beside ours, or another test's
# hugetlb pool, would time the machine rather than the monitor. Wait for
# a quiet machine: few runnable tasks and 4 GiB available for 3 s.
quiet() {
	local i r a
	for i in 1 2 3; do
		r=$(awk '{ split($4, a, "/"); print a[1] }' /proc/loadavg)
		a=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
		[ "$r" -le 6 ] && [ "$a" -ge $((4 << 20)) ] || return 1
		sleep 1
	done
}

# The release build: ASan's shadow makes 1024 forks needlessly heavy.
W="$TP -p 1024 -n 500000 -d 0.5 --no-history"
# stop_at NAME DELAY HOW: starts the monitor, and DELAY s after its first
# frame ends it by HOW (term, hup, q); the monitor must be gone, every
# worker reaped, within 2 s. The clock runs in one process that sends the
# signal (or the tmux command) and waits on the monitor's pidfd, so the
# figure is not the test's own polling under 1024 busy workers.
stop_at() {
	local name=$1 delay=$2 how=$3 main workers out rc took busy top
	# each moment on a quiet machine: the last one's workers are gone,
	# and other work may have started meanwhile
	if ! wait_for 60 quiet; then
		echo "SKIP $NAME/$name: the machine stayed busy for 1 min (loadavg $(cat /proc/loadavg))"
		return
	fi
	tm new-session -d -s "$name" -x 80 -y 24 "$W 2>$TMP/$name.err; echo EXIT=\$? >$TMP/$name.rc; sleep 60"
	if ! wait_for 20 has "$name" 'thrashtop'; then
		fail "$name-up" "$(screen "$name"; cat "$TMP/$name.err")"
		return
	fi
	main=$(main_of "$W")
	sleep "$delay"
	workers=$(pgrep -P "$main" | tr '\n' ' ')
	out=$(python3 - "$main" "$how" "$TMUX_SOCKET" "$name" <<'EOF'
import os, select, signal, subprocess, sys, time
main, how, sock, name = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
fd = os.pidfd_open(main)
# The tmux client and server that carry q or the hang-up are not what is
# timed: at the monitor's own priority they do not queue behind the workers.
if os.geteuid() == 0:
    os.setpriority(os.PRIO_PROCESS, 0, -20)
    server = subprocess.run(tmux + ["display-message", "-p", "#{pid}"],
                            capture_output=True, text=True).stdout.strip()
    if server:
        os.setpriority(os.PRIO_PROCESS, int(server), -20)
# CPU time by pid, from every /proc/PID/stat: (command, parent, ticks)
def cpu():
    d = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            s = open(f"/proc/{p}/stat").read()
        except (OSError, ValueError):
            continue
        r = s.rfind(")")
        f = s[r + 2:].split()
        d[int(p)] = (s[s.find("(") + 1:r], int(f[1]), int(f[11]) + int(f[12]))
    return d
hz = os.sysconf("SC_CLK_TCK")
before = cpu()
t0 = time.monotonic()
if how == "term":
    os.kill(main, signal.SIGTERM)
elif how == "hup":
    subprocess.run(tmux + ["kill-session", "-t", name])
else:
    subprocess.run(tmux + ["send-keys", "-t", name, "q"])
ready = select.select([fd], [], [], 10)[0]
took = f"{time.monotonic() - t0:.2f}" if ready else "never"
after = cpu()
# What the rest of the machine ran meanwhile: neither the monitor, its
# workers, this script nor tmux.
ours = {main, os.getpid()}
others = {}
for pid, (comm, ppid, t) in after.items():
    if pid in ours or ppid in ours or comm.startswith("tmux"):
        continue
    d = t - before.get(pid, (comm, 0, 0))[2]
    if d > 0:
        others[comm] = others.get(comm, 0) + d
busy = sum(others.values()) / hz
top = ",".join(f"{c}:{t / hz:.2f}" for c, t in sorted(others.items(), key=lambda x: -x[1])[:4])
print(took, f"{busy:.2f}", top or "-")
EOF
)
	read -r took busy top <<<"$out"
	local what="$how after ${delay}s: $(wc -w <<<"$workers") workers, monitor over after ${took}s; other processes ran ${busy} CPU s meanwhile (${top})"
	if [ "$took" != never ] && all_gone "$workers" &&
	   python3 -c "import sys; sys.exit(0 if $took <= 2.0 else 1)"; then
		pass "$name"
		echo "  $what"
	elif all_gone "$workers" && python3 -c "import sys; sys.exit(0 if $busy > 0.5 else 1)"; then
		# the timing measured the others' work, not the monitor's
		echo "SKIP $NAME/$name: the machine was not ours: $what"
	else
		fail "$name" "$what, workers left: $(for p in $workers; do alive "$p" && echo -n "$p "; done)"
	fi
	case $how in
	# q before the run completed: 1, as the man page gives
	term) rc=143 ;; hup) rc=129 ;; q) rc=1 ;;
	esac
	[ "$how" = hup ] || expect "$name-exit" wait_for 5 grep -qs "EXIT=$rc" "$TMP/$name.rc"
	[ "$how" = hup ] || grep -qs "EXIT=$rc" "$TMP/$name.rc" || cat "$TMP/$name.rc"
	tm kill-session -t "$name" 2>/dev/null
}
# The machine-wide lock the pressure tests take: another checkout's 1024
# workers or memory pressure would not come meanwhile.
if ! machine_lock 100; then
	echo "SKIP $NAME/p1024: another whole-machine test held the machine for 100 s"
elif wait_for 120 quiet; then
	stop_at p1024-term-early 0 term
	stop_at p1024-hup-early 0.1 hup
	stop_at p1024-q-early 0.2 q
	stop_at p1024-term-later 2 term
	stop_at p1024-q-later 3 q
else
	echo "SKIP $NAME/p1024: the machine stayed busy for 2 min (loadavg $(cat /proc/loadavg), $(grep MemAvailable /proc/meminfo))"
fi
exec 9>&-

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
	echo "SKIP $NAME/nofork: needs root and the user nobody"
fi
