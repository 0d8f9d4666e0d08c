#!/usr/bin/env bash
# `make bench`: every figure side by side in one run. Sections can be
# picked by name: bench/run.sh [sort] [faults] [sampling] [events] [start] [draw] [monitor] [history]
set -u
cd "$(dirname "$0")"
rc=0
# the sections' files, gone however the run ends
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
SECTIONS=" ${*:-sort faults sampling events start draw monitor history} "
want() { [[ $SECTIONS == *" $1 "* ]]; }
if want sort; then
	echo "== sorter CPU against qsbench 0.93 (same compiler, flags, N and seed; alternating runs; medians)"
	./sort.sh || rc=1
	echo
fi
if want faults; then
	echo "== fault fidelity against qsbench 0.93"
	./faults.sh || rc=1
	echo
fi
if want sampling; then
	echo "== sampling cost per tick (system sample + every worker's /proc/PID/stat; CPU time, median of 200 ticks)"
	../build/sample_cost 200 || rc=1
	echo
fi
if want events; then
	echo "== a tracer round's reclaim events put in time order (CPU time, 2000 rounds)"
	../build/order_cost || rc=1
	echo
fi
if want start; then
	echo "== first frame after exec, 200x60 pseudo-terminal"
	d=$W/start
	mkdir "$d"
	printf '%-40s ' "thrashtop -p 2 -n 20000000"
	../build/firstframe 9 ../thrashtop --history "$d/h.db" -p 2 -n 20000000 -d 1 || rc=1
	printf '%-40s ' "thrashtop (default workload)"
	../build/firstframe 5 ../thrashtop --history "$d/h.db" -d 1 || rc=1
	rm -rf "$d"
	echo
fi
if want draw; then
	echo "== the monitor's drawing alone, 200x60 tmux, us a frame (build/draw_cost, 2000 frames after 5 s)"
	d=$W/draw
	mkdir "$d"
	for a in "" -a; do
		tmux -L "thrashtop-draw-$$" -f /dev/null new-session -d -x 200 -y 60 \
			"THRASHTOP_PROFILE=$d/prof exec ../build/draw_cost $a 2000"
		for ((i = 0; i < 600; i++)); do [ -s "$d/prof" ] && break; sleep 0.2; done
		sleep 0.3
		tmux -L "thrashtop-draw-$$" kill-server 2>/dev/null
		rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/thrashtop-draw-$$"
		if [ -n "$a" ]; then what="the same, a trace behind, marks"; else what="default plots, 64 rows"; fi
		printf '%-34s ' "$what"
		awk '/^(draw|output)/ { printf "%s %s  ", $1, $NF } END { print "" }' "$d/prof" 2>/dev/null ||
			{ echo "no profile"; rc=1; }
		rm -f "$d/prof"
	done
	rm -rf "$d"
	echo
fi
if want monitor; then
	echo "== the monitor's own CPU against top, htop and btop"
	./monitor.sh || rc=1
	echo
fi
if want history; then
	echo "== history"
	./history.sh || rc=1
fi
exit $rc
