#!/usr/bin/env bash
# The monitor's own CPU beside top's, in the phases a user watches: P sorter
# workers started by thrashtop, each phase measured in a window of its own.
#   fill      the workers fill their arrays: faults move, the plots scroll
#   pressure  the same in a memory cgroup (--mem) with a swap file: major
#             faults and swap move (root; takes the tuning tests' machine
#             lock, as they do); stall figures and reclaim events on
#   pressure-bare  the same with --no-stalls --no-events: what those cost
#   pressure-batch the pressure phase's session in batch mode (-b): every
#             figure read as in the monitor but the rows', nothing drawn
#   fill-cg   the fill in a memory cgroup with room to spare (--mem ROOMY):
#             stall figures and reclaim events on (root, the lock), no
#             pressure; fill-cg-bare the same with them off
#   sort      every worker sorting: little moves but the worker rows
# Each monitor runs in a window of a private tmux server (-L, no config) at
# 200x60, top in another window beside it over the same seconds; CPU is
# the on-CPU time of every thread (/proc/PID/task/*/schedstat, ns), not the
# children's. A window starts once every row on screen shows the phase
# (under pressure, once swap-out passes 5,000 pages a second), and the
# phase is read again at its end. htop and btop join the fill
# windows. Every window is run at 1 s and 0.1 s, and the fill phase at
# 0.01 s too (thrashtop only: top and htop cannot go below 0.1 s).
# With BEFORE=PATH another thrashtop binary is measured the same way in
# alternate windows, its own top beside it. With ROUNDS=N each phase and
# interval is measured N times (before and after alternating when both
# are asked for) and the table gives the medians, thrashtop's range after
# them, and the median of the rounds' ratios to top: a window under
# pressure moves by a third from the next.
# Per frame: with THRASHTOP_PROFILE the monitor sums each part's thread
# CPU time (sampling, workers' /proc reads, their taskstats, model, drawing, terminal
# output; see include/prof.h) and every window prints it per frame. As
# root, each window's note gives the time interrupts ran on the monitor's
# threads, which the kernel counts as theirs (see irq_begin).
# Then two thrashtops whose workload is one sleep, one of them recording
# (--cast): what a recording costs; and the monitor's memory with BIG
# workers (1024) running, in a session of five runs of them, so that one
# run ending before the bench looks leaves the next to measure.
# Environment: P (64), WINDOW (seconds, 12), BIG (1024), PHASES ("fill
# fill-cg fill-cg-bare pressure pressure-bare pressure-batch sort"), BEFORE, ROUNDS (1),
# MEM (the pressure cgroup, 1G), SWAP (4G), ROOMY (the fill-cg cgroup, 16G).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
P=${P:-64}
WINDOW=${WINDOW:-12}
BIG=${BIG:-1024}
PHASES=${PHASES:-fill fill-cg fill-cg-bare pressure pressure-bare pressure-batch sort}
BEFORE=${BEFORE:-}
ROUNDS=${ROUNDS:-1}
MEM=${MEM:-1G}
SWAP=${SWAP:-4G}
ROOMY=${ROOMY:-16G}
SOCK=thrashtop-bench-$$
T="tmux -L $SOCK -f /dev/null"
CONF=$(mktemp -d)
export XDG_CONFIG_HOME=$CONF/config	# the user's delay and plots do not count
TRACEFS='' MOUNTED_TRACEFS='' IRQ_INST='' MON=''

die() { echo "bench/monitor.sh: $*" >&2; exit 1; }
[ -x ./thrashtop ] || die "build ./thrashtop first (make)"
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "BEFORE=$BEFORE is not executable"
for c in tmux top htop btop; do command -v $c >/dev/null || die "$c is not installed (make bench installs it)"; done
# tracefs is unmounted once the monitors, whose tracers use it, are gone
trap '$T kill-server 2>/dev/null || true; rm -rf "$CONF" "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
      [ -n "$IRQ_INST" ] && [ -d "$IRQ_INST" ] && rmdir "$IRQ_INST"
      for ((i = 0; i < 300; i++)); do [ -n "$MON" ] && [ -d "/proc/$MON" ] || break; sleep 0.1; done
      [ -n "$MOUNTED_TRACEFS" ] && umount "$TRACEFS"' EXIT
trap 'exit 1' INT TERM HUP PIPE	# the cleanup above on these too

# Interrupts that ran while one of the monitor's threads was on a CPU:
# device handlers, softirqs and the APIC vectors (timer, IPIs), read from
# a private tracefs instance whose events are filtered to those threads.
# This kernel charges that time to the thread it interrupted (no
# CONFIG_IRQ_TIME_ACCOUNTING), so it is inside the schedstat figures; a
# sampling profiler cannot size it, since its own timer's interrupts run
# the pending softirqs. Root only; the instance goes with the bench.
if [ "$(id -u)" -eq 0 ]; then
	TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -z "$TRACEFS" ] && [ -d /sys/kernel/tracing ] &&
	   mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		TRACEFS=/sys/kernel/tracing MOUNTED_TRACEFS=1
	fi
	[ -n "$TRACEFS" ] && [ -d "$TRACEFS/instances" ] && IRQ_INST=$TRACEFS/instances/thrashtop-bench-irq-$$
fi
irq_begin() {
	local f="" t e
	[ -n "$IRQ_INST" ] && mkdir "$IRQ_INST" 2>/dev/null || return 0
	for t in /proc/"$1"/task/*; do f+="${f:+ || }common_pid == ${t##*/}"; done
	echo 1024 >"$IRQ_INST/buffer_size_kb"
	for e in "$IRQ_INST"/events/irq/{irq_handler,softirq}_{entry,exit} \
		 "$IRQ_INST"/events/irq_vectors/*_{entry,exit}; do
		[ -d "$e" ] || continue
		echo "$f" >"$e/filter" && echo 1 >"$e/enable"
	done
}
# Microseconds in interrupts over the window, the union of nested ones
# per CPU, and how many events the buffer lost if it lost any.
irq_end() {
	[ -n "$IRQ_INST" ] && [ -d "$IRQ_INST" ] || { echo; return 0; }
	echo 0 >"$IRQ_INST/tracing_on"
	awk -v lost="$(cat "$IRQ_INST"/per_cpu/cpu*/stats | awk '/^overrun/ { s += $2 } END { print s + 0 }')" '
	match($0, /\[[0-9]+\]/) {
		cpu = substr($0, RSTART + 1, RLENGTH - 2)
		if (!match($0, / [0-9]+\.[0-9]+: [a-z_]+_(entry|exit):/)) next
		split(substr($0, RSTART + 1, RLENGTH - 2), f, ": ")
		t = f[1] + 0
		if (f[2] ~ /_entry$/) { if (!d[cpu]++) t0[cpu] = t }
		else if (d[cpu] > 0 && !--d[cpu]) us += (t - t0[cpu]) * 1e6
	}
	END { printf "%.0f%s", us, lost ? sprintf(" (%d events lost)", lost) : "" }' "$IRQ_INST/trace"
	rmdir "$IRQ_INST"
}

# Summed on-CPU nanoseconds of every thread of PID.
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}
pane_pid() { $T display-message -p -t "bench:$1" '#{pane_pid}'; }
# The PHASE column of the worker rows on screen: "fill 28" and so on.
phases() { $T capture-pane -p -t bench:thrashtop | awk '$1 ~ /^[0-9]+$/ && NF > 8 {
	for (i = 2; i <= NF; i++) if ($i ~ /^(start|alloc|fill|sort|verify|done)$/) { n[$i]++; break } }
	END { for (p in n) printf "%s %d ", p, n[p] }'; }
vmstat_sum() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# The median of the numbers given; nothing for none.
median() { [ $# -gt 0 ] || return 0; printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
	printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

btop_conf() {
	mkdir -p "$CONF/btop"
	printf 'update_ms = %d\nshown_boxes = "cpu mem net proc"\n' "$1" >"$CONF/btop/btop.conf"
}

declare -A RES NOTE
# window BIN PHASE INTERVAL: one monitor in one phase, top beside it.
window() {
	local bin=$1 ph=$2 d=$3 irq who tenths ms n args names pids=() t0=() t1=() w0 w1 f0 f1 s0 s1
	local mode=""
	who=$([ "$bin" = ./thrashtop ] && echo after || echo before)
	tenths=$(awk -v d="$d" 'BEGIN { t = int(d * 10 + 0.5); print t < 1 ? 1 : t }')
	ms=$(awk -v d="$d" 'BEGIN { printf "%d", d * 1000 + 0.5 }')
	case $ph in
	fill) n=30000000; args="" ;;
	fill-cg) n=30000000; args="--mem $ROOMY" ;;
	fill-cg-bare) n=30000000; args="--mem $ROOMY --no-stalls --no-events" ;;
	pressure) n=12000000; args="--mem $MEM --swap $SWAP" ;;
	pressure-bare) n=12000000; args="--mem $MEM --swap $SWAP --no-stalls --no-events" ;;
	pressure-batch) n=12000000; args="--mem $MEM --swap $SWAP"; mode="-b" ;;
	sort) n=6000000; args="" ;;
	esac
	$T new-session -d -s bench -x 200 -y 60 -n thrashtop \
		"THRASHTOP_PROFILE=$CONF/prof exec $bin $mode --no-history -p $P -n $n -d $d $args ${mode:+>$CONF/out} 2>$CONF/err"
	MON=$(pane_pid thrashtop)
	names=(thrashtop)
	if [ "$d" != 0.01 ]; then
		$T new-window -d -t bench -n top "exec top -d $d"
		names+=(top)
		if [ "$ph" = fill ]; then
			btop_conf "$ms"
			$T new-window -d -t bench -n htop "exec htop -d $tenths"
			$T new-window -d -t bench -n btop "XDG_CONFIG_HOME=$CONF exec btop"
			names+=(htop btop)
		fi
	fi
	# every row on screen in the phase (the sort: no row filling any
	# more); under pressure, swap-out past 5,000 pages a second: the fill
	# of 48 MB a worker can end on one row before it starts on another
	for ((i = 0; i < 600; i++)); do
		[ -d "/proc/$MON" ] || die "thrashtop ended: $(cat "$CONF/err")"
		if [[ $ph = pressure* ]]; then
			s0=$(vmstat_sum pswpout); sleep 1; s1=$(vmstat_sum pswpout)
			[ $((s1 - s0)) -ge 5000 ] && break
			continue
		fi
		[[ $(phases) =~ ^${ph%%-*}\ [0-9]+\ $ ]] && break
		sleep 0.5
	done
	((i < 600)) || die "$ph: not reached in 5-10 minutes (rows: $(phases))"
	sleep 1
	for nm in "${names[@]}"; do pids+=("$(pane_pid "$nm")"); done
	f0=$(vmstat_sum pgfault); s0=$(vmstat_sum pswpout)
	irq_begin "${pids[0]}"
	w0=$(date +%s%N)
	for p in "${pids[@]}"; do t0+=("$(cpu_ns "$p")"); done
	sleep "$WINDOW"
	for p in "${pids[@]}"; do t1+=("$(cpu_ns "$p")"); done
	w1=$(date +%s%N)
	irq=$(irq_end)
	f1=$(vmstat_sum pgfault); s1=$(vmstat_sum pswpout)
	for i in "${!names[@]}"; do
		[ -d "/proc/${pids[i]}" ] || die "${names[i]} exited during the window"
		RES[$who,$ph,$d,${names[i]}]+=" $(awk -v a="${t0[i]}" -v b="${t1[i]}" -v w0="$w0" -v w1="$w1" \
			'BEGIN { printf "%.3f", (b - a) / (w1 - w0) * 100 }')"
	done
	NOTE[$who,$ph,$d]=$(awk -v f="$((f1 - f0))" -v s="$((s1 - s0))" -v w0="$w0" -v w1="$w1" -v e="$(phases)" \
		-v irq="$irq" -v a="${t0[0]}" -v b="${t1[0]}" 'BEGIN { w = (w1 - w0) / 1e9
		printf "faults %.0fk/s swapout %.0f/s; at the end: %s", f / w / 1000, s / w, e
		if (irq != "") printf "; interrupts on its threads %.0f us, %.1f%% of its CPU%s", irq,
			(b > a ? irq * 1e5 / (b - a) : 0), (irq ~ /lost/ ? substr(irq, index(irq, " ")) : "") }')
	# q (Ctrl-C in batch), and the session's swap and cgroup undone before the next
	$T send-keys -t bench:thrashtop "$([ -n "$mode" ] && echo C-c || echo q)"
	for ((i = 0; i < 1200; i++)); do [ -d "/proc/${pids[0]}" ] || break; sleep 0.1; done
	if [ -s "$CONF/prof" ]; then
		# per frame; in batch, which draws none, per tick
		PROF[$who,$ph,$d]+="$(awk '/^frames/ { f = $2 } /^sample/ { t = $3 }
			!/^frames/ { printf "%s %.0f  ", $1, f ? $9 : $3 ? $5 / t : 0 }
			END { printf f ? "[%d frames]" : "[%d ticks, none drawn]", f ? f : t }' "$CONF/prof")
"
	fi
	rm -f "$CONF/prof"
	$T kill-server 2>/dev/null || true
	sleep 1
}
declare -A PROF

echo "monitor CPU, % of one CPU (schedstat of every thread), $P sorter workers, 200x60 tmux, ${WINDOW} s windows, $(nproc) CPUs, $(ls /proc | grep -c '^[0-9]') processes before the load, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ph in $PHASES; do
	if [[ $ph = pressure* || $ph = fill-cg* ]]; then
		[ "$(id -u)" -eq 0 ] || { echo "$ph: needs root (--mem): skipped"; continue; }
		exec 9>/tmp/thrashtop-e2e-tuning.lock
		flock -w 600 9 || die "the tuning tests' lock stayed taken for 10 min"
	fi
	ivs="1 0.1"
	[ "$ph" = fill ] && ivs="1 0.1 0.01"
	for d in $ivs; do
		for ((round = 0; round < ROUNDS; round++)); do
			# an older thrashtop may not take -d 0.01
			if [ -n "$BEFORE" ] && "$BEFORE" -d "$d" --list-plots >/dev/null 2>&1; then
				window "$BEFORE" "$ph" "$d"
			fi
			window ./thrashtop "$ph" "$d"
		done
	done
	[[ $ph = pressure* || $ph = fill-cg* ]] && exec 9>&-
done
printf '%-13s %-9s %-7s %10s %10s %10s %10s %9s  %s\n' phase interval binary thrashtop top htop btop "x top" "goal"
for ph in $PHASES; do
	for d in 1 0.1 0.01; do
		for who in before after; do
			[ -n "${RES[$who,$ph,$d,thrashtop]:-}" ] || continue
			awk -v ph="$ph" -v d="$d" -v who="$who" -v A="${RES[$who,$ph,$d,thrashtop]}" \
			    -v B="${RES[$who,$ph,$d,top]:-}" -v C="${RES[$who,$ph,$d,htop]:-}" -v E="${RES[$who,$ph,$d,btop]:-}" '
			# the median of a blank-separated list; "" for none
			function med(list,   v, n, i, j, t) {
				n = split(list, v, " ")
				if (!n) return ""
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			}
			BEGIN {
				goal = d == 1 ? 0.1 : d == 0.1 ? 1 : 3
				a = med(A); b = med(B); c = med(C); e = med(E)
				n = split(A, x, " "); split(B, y, " "); lo = hi = x[1]; q = ""
				for (i = 1; i <= n; i++) {
					lo = x[i] + 0 < lo + 0 ? x[i] : lo; hi = x[i] + 0 > hi + 0 ? x[i] : hi
					if (y[i] > 0) q = q " " x[i] / y[i]
				}
				r = b == "" ? 0 : med(q)
				ok = a <= goal && (d != 1 || r <= 0.25)
				printf "%-13s %-9s %-7s %9.3f%% %10s %10s %10s %9s  <= %g%%%s: %s%s\n", ph, d " s", who, a,
					b == "" ? "-" : sprintf("%.3f%%", b), c == "" ? "-" : sprintf("%.3f%%", c),
					e == "" ? "-" : sprintf("%.3f%%", e), b == "" ? "-" : sprintf("%.2fx", r),
					goal, d == 1 ? " and <= 0.25x top" : "", ok ? "met" : "NOT met",
					(n > 1 ? sprintf("  (%d rounds, %.3f-%.3f%%)", n, lo, hi) : "")
			}'
			echo "                                (${NOTE[$who,$ph,$d]})"
		done
	done
done
# stall figures and reclaim events on against off, in the same cgroup
for ph in fill-cg pressure; do
	for d in 1 0.1; do
		a=$(median ${RES[after,$ph,$d,thrashtop]:-}) b=$(median ${RES[after,$ph-bare,$d,thrashtop]:-})
		[ -n "$a" ] && [ -n "$b" ] && awk -v ph="$ph" -v d="$d" -v a="$a" -v b="$b" 'BEGIN {
			printf "stalls and events, %s at %s s: %.3f%% on, %.3f%% off (--no-stalls --no-events): %+.3f points\n", ph, d, a, b, a - b }'
	done
done
# the screen against none, the same session and figures
for d in 1 0.1; do
	a=$(median ${RES[after,pressure,$d,thrashtop]:-}) b=$(median ${RES[after,pressure-batch,$d,thrashtop]:-})
	[ -n "$a" ] && [ -n "$b" ] && awk -v d="$d" -v a="$a" -v b="$b" 'BEGIN {
		printf "the screen, pressure at %s s: %.3f%% the monitor, %.3f%% batch (-b, nothing drawn, no rows read): %+.3f points\n", d, a, b, a - b }'
done
echo "thrashtop's CPU per frame in each window, us (THRASHTOP_PROFILE: thread CPU time, user and"
echo "kernel, from 5 s after the monitor's start to its end); the kernel's share of the system sample: build/sample_cost"
for ph in $PHASES; do
	for d in 1 0.1 0.01; do
		for who in before after; do
			while IFS= read -r line; do
				[ -n "$line" ] && printf '%-13s %-6s %-7s %s\n' "$ph" "$d s" "$who" "$line"
			done <<<"${PROF[$who,$ph,$d]:-}"
		done
	done
done

# What a recording costs: thrashtop -- sleep, with and without --cast.
declare -A CASTSIZE
for d in 1 0.1; do
	$T new-session -d -s bench -x 200 -y 60 -n nocast "exec ./thrashtop --no-history -d $d -- sleep 3600"
	$T new-window -t bench -n cast "exec ./thrashtop --no-history -d $d --cast $CONF/$d.cast -- sleep 3600"
	sleep 3
	pa=$(pane_pid nocast); pb=$(pane_pid cast); MON=$pb
	w0=$(date +%s%N); a0=$(cpu_ns "$pa"); b0=$(cpu_ns "$pb")
	sleep "$WINDOW"
	a1=$(cpu_ns "$pa"); b1=$(cpu_ns "$pb"); w1=$(date +%s%N)
	RES[cast,$d,off]=$(awk -v a="$a0" -v b="$a1" -v w="$((w1 - w0))" 'BEGIN { printf "%.3f", (b - a) / w * 100 }')
	RES[cast,$d,on]=$(awk -v a="$b0" -v b="$b1" -v w="$((w1 - w0))" 'BEGIN { printf "%.3f", (b - a) / w * 100 }')
	CASTSIZE[$d]=$(stat -c %s "$CONF/$d.cast")
	$T kill-server
	sleep 1
done
printf '\n%-9s %14s %14s %12s\n' interval "--cast off" "--cast on" "cast file"
for d in 1 0.1; do
	awk -v d="$d" -v a="${RES[cast,$d,off]}" -v b="${RES[cast,$d,on]}" -v z="${CASTSIZE[$d]}" -v w="$WINDOW" 'BEGIN {
		printf "%-9s %13.2f%% %13.2f%% %8.1f KiB   (thrashtop -- sleep, 200x60, %d s + 3 s start)\n",
			d " s", a, b, z / 1024, w
	}'
done

$T new-session -d -s bench -x 200 -y 60 -n thrashtop \
	"exec chrt -R -f 1 ./thrashtop --no-history -p $BIG -n 300000 -r 5 -d 0.1"
pid=$(pane_pid thrashtop); MON=$pid
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
