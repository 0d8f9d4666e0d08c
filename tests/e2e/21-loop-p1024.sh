#!/usr/bin/env bash
# lane: whole
# With 1024 workers on this machine, SIGTERM, SIGHUP (the terminal going
# away) and q end the session, every worker reaped, within 2 s at any
# moment of the start. It needs the whole machine: it takes the machine
# lock the pressure tests take.
. "$(dirname "$0")/lib.sh"
need_tmux

# main_of PATTERN: the oldest process whose command line starts with it.
main_of() { pgrep -o -f "^$1"; }
all_gone() { local p; for p in $1; do alive "$p" && return 1; done; return 0; }

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
	# and other work may have started meanwhile (the first moment comes
	# just after the wait below found it quiet)
	if [ -z "$QUIET" ] && ! wait_for 60 quiet; then
		skip "$name" "the machine stayed busy for 1 min (loadavg $(cat /proc/loadavg))"
		return
	fi
	QUIET=
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
		skip "$name" "the machine was not ours: $what"
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
QUIET=
# The machine-wide lock the pressure tests take: another checkout's 1024
# workers or memory pressure would not come meanwhile.
if ! machine_lock 100; then
	skip p1024 "$BUSY"
elif wait_for 120 quiet; then
	QUIET=1
	stop_at p1024-term-early 0 term
	stop_at p1024-hup-early 0.1 hup
	stop_at p1024-q-early 0.2 q
	stop_at p1024-term-later 2 term
	stop_at p1024-q-later 3 q
else
	skip p1024 "the machine stayed busy for 2 min (loadavg $(cat /proc/loadavg), $(grep MemAvailable /proc/meminfo))"
fi
exec 9>&-
