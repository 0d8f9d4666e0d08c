#!/usr/bin/env bash
# The monitor's own CPU beside top's and htop's, measured in the same
# windows under the same load: 64 sorter workers started by thrashtop.
# Each monitor runs in its own tmux window at 200x60; its CPU is the
# utime+stime of its own process (not its children) over the window.
# Environment: P (workers, 64), N (elements per worker, 8000000),
# WINDOW (seconds, 15).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
P=${P:-64}
N=${N:-8000000}
WINDOW=${WINDOW:-15}
HZ=$(getconf CLK_TCK)
S=thrashtop-bench-$$

die() { echo "bench/monitor.sh: $*" >&2; exit 1; }
[ -x ./thrashtop ] || die "build ./thrashtop first (make)"
for c in tmux top htop; do command -v $c >/dev/null || die "$c is not installed (make bench installs it)"; done
trap 'tmux kill-session -t $S 2>/dev/null || true' EXIT

ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
pane_pid() { tmux display-message -p -t "$S:$1" '#{pane_pid}'; }

# phase INTERVAL: start the three monitors, wait for the load, measure.
phase() {
	local d=$1 htd
	htd=$(awk -v d="$d" 'BEGIN { printf "%d", d * 10 }')
	tmux new-session -d -s $S -x 200 -y 60 -n thrashtop \
		"exec ./thrashtop --no-history -p $P -n $N -d $d"
	tmux new-window -t $S -n top "exec top -d $d"
	tmux new-window -t $S -n htop "exec htop -d $htd"
	sleep 3	# start-up (calibration, first reads) is not steady state
	local names=(thrashtop top htop) pids=() t0=() t1=()
	for n in "${names[@]}"; do pids+=("$(pane_pid "$n")"); done
	for p in "${pids[@]}"; do t0+=("$(ticks "$p")"); done
	local w0 w1
	w0=$(date +%s.%N)
	sleep "$WINDOW"
	for p in "${pids[@]}"; do t1+=("$(ticks "$p")"); done
	w1=$(date +%s.%N)
	local running
	running=$(pgrep -c -P "${pids[0]}" || true)
	for i in 0 1 2; do
		awk -v n="${names[i]}" -v d="$d" -v a="${t0[i]}" -v b="${t1[i]}" \
		    -v hz="$HZ" -v w0="$w0" -v w1="$w1" \
		    'BEGIN { printf "%-10s %8.2f s %10.2f%%\n", n, d, (b - a) / hz / (w1 - w0) * 100 }'
	done
	[ "$running" -ge "$P" ] || echo "  (only $running of $P workers were still running at the end: raise N)"
	tmux kill-session -t $S
	sleep 1
}

echo "monitor CPU, % of one CPU, $P sorter workers (-n $N), ${WINDOW}s windows, $(nproc) CPUs, $(ls /proc | grep -c '^[0-9]') processes before the load"
printf '%-10s %10s %11s\n' monitor interval "own CPU"
phase 1
phase 0.1
