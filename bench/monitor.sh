#!/usr/bin/env bash
# The monitor's own CPU beside top's, htop's and btop's, measured in the
# same windows under the same load: P sorter workers started by thrashtop.
# Each monitor runs in its own window of a private tmux server (-L, no
# config) at 200x60; its CPU is the on-CPU time of every one of its
# threads (/proc/PID/task/*/schedstat, nanoseconds; btop draws from
# several threads), not its children's, over the window.
# Beside them, two more thrashtops whose workload is one sleep, the same
# screen each, one of them recording it (--cast): what a recording costs.
# Then the monitor's memory with BIG workers (1024) on the same screen: its
# VmHWM once all of them run, the monitor at a real-time priority that its
# workers do not inherit (chrt -R) so that it keeps up with their forks.
# Environment: P (workers, 64), N (elements per worker, 12000000),
# WINDOW (seconds, 20), BIG (1024).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
P=${P:-64}
N=${N:-12000000}
WINDOW=${WINDOW:-20}
BIG=${BIG:-1024}
SOCK=thrashtop-bench-$$
T="tmux -L $SOCK -f /dev/null"
CONF=$(mktemp -d)

die() { echo "bench/monitor.sh: $*" >&2; exit 1; }
[ -x ./thrashtop ] || die "build ./thrashtop first (make)"
for c in tmux top htop btop; do command -v $c >/dev/null || die "$c is not installed (make bench installs it)"; done
trap '$T kill-server 2>/dev/null || true; rm -rf "$CONF"' EXIT

# Summed on-CPU nanoseconds of every thread of PID.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}
pane_pid() { $T display-message -p -t "bench:$1" '#{pane_pid}'; }

# btop takes its interval only from its configuration file.
btop_conf() {
	mkdir -p "$CONF/btop"
	printf 'update_ms = %d\nshown_boxes = "cpu mem net proc"\n' "$1" >"$CONF/btop/btop.conf"
}

declare -A RES
# phase INTERVAL: start the monitors, let them settle, measure one window.
phase() {
	local d=$1 tenths ms
	tenths=$(awk -v d="$d" 'BEGIN { printf "%d", d * 10 + 0.5 }')
	ms=$(awk -v d="$d" 'BEGIN { printf "%d", d * 1000 + 0.5 }')
	btop_conf "$ms"
	$T new-session -d -s bench -x 200 -y 60 -n thrashtop \
		"exec ./thrashtop --no-history -p $P -n $N -d $d"
	$T new-window -t bench -n top "exec top -d $d"
	$T new-window -t bench -n htop "exec htop -d $tenths"
	$T new-window -t bench -n btop "XDG_CONFIG_HOME=$CONF exec btop"
	$T new-window -t bench -n nocast "exec ./thrashtop --no-history -d $d -- sleep 3600"
	$T new-window -t bench -n cast "exec ./thrashtop --no-history -d $d --cast $CONF/$d.cast -- sleep 3600"
	sleep 3	# start-up (first reads, the workers' forks) is not steady state
	local names=(thrashtop top htop btop nocast cast) pids=() t0=() t1=() w0 w1 running
	for n in "${names[@]}"; do pids+=("$(pane_pid "$n")"); done
	w0=$(date +%s%N)
	for p in "${pids[@]}"; do t0+=("$(cpu_ns "$p")"); done
	sleep "$WINDOW"
	for p in "${pids[@]}"; do t1+=("$(cpu_ns "$p")"); done
	w1=$(date +%s%N)
	running=$(pgrep -c -P "${pids[0]}" || true)
	for i in "${!names[@]}"; do
		[ -d "/proc/${pids[i]}" ] || die "${names[i]} exited during the window"
		RES[$d,${names[i]}]=$(awk -v a="${t0[i]}" -v b="${t1[i]}" -v w0="$w0" -v w1="$w1" \
			'BEGIN { printf "%.3f", (b - a) / (w1 - w0) * 100 }')
	done
	[ "$running" -ge "$P" ] || echo "  (only $running of $P workers were still running at the end of the $d s window: raise N)"
	CASTSIZE[$d]=$(stat -c %s "$CONF/$d.cast")
	$T kill-server
	sleep 1
}
declare -A CASTSIZE

echo "monitor CPU, % of one CPU (schedstat of every thread), $P sorter workers (-n $N), 200x60 tmux, ${WINDOW} s windows, $(nproc) CPUs, $(ls /proc | grep -c '^[0-9]') processes before the load"
phase 1
phase 0.1
printf '%-9s %10s %10s %10s %10s %14s\n' interval thrashtop top htop btop thrashtop/top
for d in 1 0.1; do
	awk -v d="$d" -v a="${RES[$d,thrashtop]}" -v b="${RES[$d,top]}" -v c="${RES[$d,htop]}" \
	    -v e="${RES[$d,btop]}" 'BEGIN {
		goal = d == 1 ? 0.1 : 1
		r = b > 0 ? a / b : 0
		printf "%-9s %9.2f%% %9.2f%% %9.2f%% %9.2f%% %13.2fx   goal <= %.1f%% and <= 0.2x top: %s\n",
			d " s", a, b, c, e, r, goal, (a <= goal && r <= 0.2) ? "met" : "NOT met"
	}'
done
printf '\n%-9s %14s %14s %12s\n' interval "--cast off" "--cast on" "cast file"
for d in 1 0.1; do
	awk -v d="$d" -v a="${RES[$d,nocast]}" -v b="${RES[$d,cast]}" -v z="${CASTSIZE[$d]}" -v w="$WINDOW" 'BEGIN {
		printf "%-9s %13.2f%% %13.2f%% %8.1f KiB   (thrashtop -- sleep, 200x60, %d s + 3 s start)\n",
			d " s", a, b, z / 1024, w
	}'
done

$T new-session -d -s bench -x 200 -y 60 -n thrashtop \
	"exec chrt -R -f 1 ./thrashtop --no-history -p $BIG -n 300000 -d 0.1"
pid=$(pane_pid thrashtop)
for ((i = 0; i < 600; i++)); do
	[ "$(pgrep -c -P "$pid" || true)" -ge "$BIG" ] && break
	sleep 0.1
done
running=$(pgrep -c -P "$pid" || true)
sleep 2
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
$T kill-server
awk -v n="$running" -v b="$BIG" -v h="$hwm" -v r="$rss" 'BEGIN {
	printf "monitor memory with %d of %d workers running, 200x60: VmRSS %.1f MiB, VmHWM %.1f MiB; goal <= 8 MiB: %s\n",
		n, b, r / 1024, h / 1024, (h <= 8192 ? "met" : "NOT met")
}'
