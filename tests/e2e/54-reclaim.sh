#!/usr/bin/env bash
# lane: whole
# Reclaim and memory pressure as a run records them, against the kernel's
# own counters, under real global pressure: --global leaves the machine
# 1.3 GiB more than it uses now, two workers write 1 GiB more than that,
# a temporary swap file takes it. Each rate series (pages/s, % of time
# stalled) summed over the run's samples must give what /proc/vmstat and
# /proc/pressure/memory counted meanwhile. Then the monitor, under the
# same pressure, must show kswapd's scanning and PSI in its plot titles.
. "$(dirname "$0")/lib.sh"
need_root
need_tmux
[ -r /proc/pressure/memory ] || { skip "no /proc/pressure/memory (kernel without PSI)"; exit 0; }
hp_kib=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
[ -n "$hp_kib" ] && [ -w /proc/sys/vm/nr_hugepages ] ||
	{ skip "no hugetlb pool (a balloon would take a minute to pin)"; exit 0; }
machine_lock 120 || { skip "$BUSY"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
nr0=$(cat /proc/sys/vm/nr_hugepages)
cleanup "echo $nr0 >/proc/sys/vm/nr_hugepages"
# SIGTERM first: thrashtop kills its workload and undoes the pool and the
# swap file itself. Else the workload's process group goes, and the next
# start undoes what the state file says.
stop_ours() {
	local c
	[ -n "${pid:-}" ] || return 0
	kill -TERM "$pid"
	wait_for 20 gone "$pid" && return 0
	for c in $(pgrep -P "$pid"); do kill -9 -- "-$c"; done
	kill -9 "$pid"
	sleep 0.5
	"$T" -b -n 1000 -p 1 --no-history
}
cleanup stop_ours

# Others' builds may run meanwhile, but not in a machine already short of
# memory: what they do at the run's edges would count in the test's deltas.
roomy() { [ "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)" -ge $((4 << 20)) ]; }
wait_for 30 roomy ||
	{ skip "less than 4 GiB available for 30 s ($(grep MemAvailable /proc/meminfo))"; exit 0; }

# The counters, with builtins only: no fork between the run's edge and the read.
snap() {
	local v p
	mapfile -t v </proc/vmstat
	mapfile -t p </proc/pressure/memory
	printf '%s\n' "${v[@]}" "${p[@]}" >"$TMP/snap.$1"
	echo "$EPOCHREALTIME" >"$TMP/at.$1"
}
# poll REGEX FILE SECONDS: until a line of FILE matches, while thrashtop lives
poll() {
	local end=$((SECONDS + $3)) l x
	while :; do
		if [ -e "$2" ]; then
			mapfile -t l <"$2"
			for x in "${l[@]}"; do [[ $x =~ $1 ]] && return 0; done
		fi
		alive "$pid" && [ $SECONDS -lt $end ] || return 1
		sleep 0.01
	done
}

# Page cache would be reclaimed first and cheaply; without it the
# workers' own pages go to swap.
press() {
	local total_kib avail_kib
	sync
	echo 3 >/proc/sys/vm/drop_caches
	total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	size_kib=$(((total_kib - avail_kib + 1331200) / 1024 * 1024))
}
press
# Each worker: half of what is left once the pool is there, and 512 MiB,
# written a page at a time; then its first 256 MiB, the pages swapped out
# first, once more; 15-30 s here, cut at 30 s on a machine others load.
# When nothing has gone to swap after that (other work freed memory
# meanwhile), half of what is left then and 256 MiB more, at most twice:
# 1 GiB a worker past what is free, in all, which the 3 GiB swap file takes.
# Not from /dev/zero: the kernel keeps a page of zeros out of swap without
# writing it (swpout_zero), and pswpout would not move.
cat >"$TMP/touch.py" <<'PY'
import mmap, sys, time
def field(path, key):
    for line in open(path):
        f = line.split()
        if f[0] == key:
            return int(f[1])
def touch(m, end, p):
    for i in range(0, end, 4096):
        m[i] = p
        if i % (16 << 20) == 0 and time.monotonic() > stop:
            sys.exit(0)
stop = time.monotonic() + 30
out0 = field("/proc/vmstat", "pswpout")
maps = []
mib = (field("/proc/meminfo", "MemAvailable:") >> 11) + 512
for _ in range(3):
    maps.append(mmap.mmap(-1, mib << 20))
    touch(maps[-1], mib << 20, 1)
    if field("/proc/vmstat", "pswpout") - out0 >= 16384:	# 64 MiB of pages
        break
    mib = (field("/proc/meminfo", "MemAvailable:") >> 11) + 256
touch(maps[0], 256 << 20, 2)
PY
work="python3 $TMP/touch.py & p=\$!; python3 $TMP/touch.py || exit 1; wait \$p"
# Headroom from the OOM killer: 2 GiB written past what is free, a 3 GiB
# swap file, so a global kill needs other work to take 1 GiB of swap
# meanwhile; the evidence below then shows the OOM line.
cmd=("$T" -b -d 0.1 --global "${size_kib}K" --swap 3G --history "$DB" -L reclaim -- sh -c "$work")
# Two windows: the outer one holds all of thrashtop's life, so every sample
# it takes; the inner one opens at the tuning line (printed once the pool
# and the swap file are there, just before the run's first sample) and
# closes at the kswapd line (just after its last).
snap outer0
"${cmd[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
poll '^thrashtop: .*global' "$TMP/err" 60; up=$?
snap inner0
poll 'kswapd$' "$TMP/out" 90; ended=$?
snap inner1
wait "$pid"; rc=$?
pid=
snap outer1
evidence() {
	echo "  command: ${cmd[*]}"
	echo "  exit $rc; stdout: $(tr '\n' ' ' <"$TMP/out")"
	sed 's/^/  stderr: /' "$TMP/err"
}
bad=
# ck NAME EVIDENCE COMMAND...: expect, with evidence, remembering a failure
ck() {
	local n=$1 e=$2; shift 2
	if "$@"; then pass "$n"; else fail "$n" "$e"; bad=1; fi
}
expect set-up test "$up" -eq 0
expect run-ended test "$ended" -eq 0
expect exit-0 test "$rc" -eq 0
expect pool-given-back test "$(cat /proc/sys/vm/nr_hugepages)" -eq "$nr0"
expect swap-file-gone bash -c "! grep -q thrashtop-swap /proc/swaps"
[ "$up$ended$rc" = 000 ] || { evidence; exit 1; }

"$T" --history "$DB" history export --format=json >"$TMP/json" 2>"$TMP/export.err" ||
	{ fail export "$(cat "$TMP/export.err")"; exit 1; }
python3 - "$TMP" "$(nproc)" >"$TMP/check" 2>&1 <<'PY'
import json, math, sys
tmp, ncpu = sys.argv[1], int(sys.argv[2])

def counters(name):
    c = {}
    for line in open(f"{tmp}/snap.{name}"):
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            c[f[0]] = int(f[1])
        elif f and f[0] in ("some", "full"):
            c["psi_" + f[0]] = int(f[-1].split("=")[1])
    c["allocstall"] = sum(v for k, v in c.items() if k.startswith("allocstall_"))
    return c

def at(name):
    return float(open(f"{tmp}/at.{name}").read())

snap = {n: counters(n) for n in ("outer0", "inner0", "inner1", "outer1")}
run = json.load(open(f"{tmp}/json"))["runs"][-1]
ser = run["series"]
t = ser["t"]
span = t[-1] - t[0]
print(f"info samples {len(t)} over {span:.2f} s; test windows: inner "
      f"{at('inner1') - at('inner0'):.2f} s, outer {at('outer1') - at('outer0'):.2f} s")
print(f"info psi-some-max {max((x for x in ser['psi-some'] if x is not None), default=0)}")
# series, counter, counter units per series unit-second, lower fraction.
# Reclaim by the workers stops when they exit: 0.9 of the inner window.
# Swap-ins, refaults and the stall they cause also come from other
# processes faulting back what the run pushed out, after it: 0.75.
pairs = [("scan-kswapd", "pgscan_kswapd", 1, 0.9), ("scan-direct", "pgscan_direct", 1, 0.9),
         ("steal-kswapd", "pgsteal_kswapd", 1, 0.9), ("steal-direct", "pgsteal_direct", 1, 0.9),
         ("allocstall", "allocstall", 1, 0.9), ("pswpout", "pswpout", 1, 0.9),
         ("pswpin", "pswpin", 1, 0.75), ("refault-anon", "workingset_refault_anon", 1, 0.75),
         ("refault-file", "workingset_refault_file", 1, 0.75),
         # % of time: 1/100 of a second stalled per second, 1e6 us a second
         ("psi-some-rate", "psi_some", 1e4, 0.75), ("psi-full-rate", "psi_full", 1e4, 0.75)]
for name, key, k, frac in pairs:
    v = ser.get(name)
    if v is None or key not in snap["outer0"]:
        print("absent", name, key)
        continue
    # v[i] is the rate over (t[i-1], t[i]]; v[0]'s began before the run.
    iv = [(x, b - a) for x, a, b in zip(v[1:], t, t[1:])]
    ok = [(x, d) for x, d in iv if x is not None and not math.isnan(x)]
    integ = sum(x * d for x, d in ok) * k
    # Times are kept to the ms, so each interval is off by under 1 ms;
    # values to 0.001 of their unit.
    q = (sum(abs(x) for x, _ in ok) * 0.001 + 0.0005 * span) * k
    # workingset_refault_* are per-CPU batched node counters: each read
    # may lag by up to 125 pages a CPU. The event counters and PSI's
    # microseconds are exact.
    slack = 125 * ncpu if key.startswith("workingset") else 2
    outer = snap["outer1"][key] - snap["outer0"][key]
    inner = snap["inner1"][key] - snap["inner0"][key]
    hi, lo = outer + q + slack, frac * inner - q - slack
    moved = sum(1 for x, _ in ok if x > 0)
    print(f"pair {name} {key} {integ:.0f} {inner} {outer} {lo:.0f} {hi:.0f} {moved} {len(iv) - len(ok)}")
PY
sed -n 's/^info /  /p' "$TMP/check"
echo "  series: integral over the run / kernel's delta, inner (outer) window; samples > 0, gaps"
awk '$1 == "pair" { printf "    %-14s %12s / %s (%s) in %s, %s > 0, %s gaps\n", $2, $4, $5, $6, $3, $9, $10 }' "$TMP/check"
ck series-present "$(grep -v '^pair\|^info' "$TMP/check" | tr '\n' ' ')" \
	bash -c "! grep -q '^absent\|Traceback' '$TMP/check'"
row() { awk -v n="$1" '$1 == "pair" && $2 == n' "$TMP/check"; }
# check NAME: the kernel's counter moved, so did the series, and its
# integral lies within the bounds
check() {
	local r name key integ inner outer lo hi moved gaps
	r=$(row "$1")
	[ -n "$r" ] || return
	read -r _ name key integ inner outer lo hi moved gaps <<<"$r"
	ck "$name-moved" "$key +$inner in the run's window, $moved samples > 0, $gaps gaps" \
		test "$inner" -gt 0 -a "$moved" -gt 0 -a "$gaps" -eq 0
	ck "$name-matches-$key" "integral $integ outside [$lo, $hi] (kernel: +$inner, +$outer)" \
		awk "BEGIN { exit !($integ >= $lo && $integ <= $hi) }"
}
# What the workers' pressure must move; the rest is checked when the
# kernel counted any in the run (direct reclaim only when the workers
# allocate faster than kswapd frees, swap-ins once the second pass comes).
for s in scan-kswapd pswpout psi-some-rate psi-full-rate; do
	check "$s"
done
for s in scan-direct steal-kswapd steal-direct allocstall pswpin refault-anon refault-file; do
	n=$(row "$s" | awk "{ print \$5 }")
	if [ "${n:-0}" -gt 0 ]; then
		check "$s"
	else
		echo "  $s: the kernel counted none in the run"
	fi
done
psimax=$(awk '$1 == "info" && $2 == "psi-some-max" { print $3 }' "$TMP/check")
ck psi-some-avg10-rose "highest psi-some $psimax" awk "BEGIN { exit !(${psimax:-0} > 0) }"
[ -z "$bad" ] || evidence

# The monitor under the same pressure: the titles of its scan kswapd and
# PSI plots show the latest value, which must leave 0 while the workers
# press. q then ends the run early.
S="thrashtop-e2e-$$"
# title NAME: the value in NAME's title row, "2.9k/s", "27.8%"
title() { screen | grep -Eo "$1 [0-9.]+[kMGT]?(/s|%)" | head -1 | sed "s/^$1 //"; }
# shown NAME SECONDS: until NAME's title shows a value other than 0, while
# the monitor lives; the value seen is left in $shown
shown() {
	local end=$((SECONDS + $2))
	while :; do
		shown=$(title "$1")
		[[ $shown =~ [1-9] ]] && return 0
		alive "$pid" && [ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}
press
mon="exec $T --plots=scan-kswapd,psi-some -d 0.1 --global ${size_kib}K --swap 3G --no-history -- sh -c '$work'"
printf '%s\n' "$mon" >"$TMP/mon.cmd"
tm new-session -d -s "$S" -x 100 -y 30 "echo \$\$ >$TMP/mon.pid; exec bash $TMP/mon.cmd 2>$TMP/mon.err"
wait_for 10 test -s "$TMP/mon.pid" && pid=$(cat "$TMP/mon.pid")
mbad=
for p in 'scan kswapd' 'PSI some avg10'; do
	if shown "$p" 45; then
		pass "monitor-${p// /-}-moved"
		echo "  monitor: $p $shown"
	else
		fail "monitor-${p// /-}-moved" "its title showed '$shown' for 60 s"
		mbad=1
	fi
done
[ -z "$mbad" ] || { echo "  command: $mon"; screen | sed 's/^/  screen: /'; sed 's/^/  stderr: /' "$TMP/mon.err"; }
tm send-keys -t "$S" q
if wait_for 30 gone "$pid"; then
	pass monitor-quits
else
	fail monitor-quits "still running 30 s after q"
	ps -o pid,stat,wchan:32,etime,cmd -p "$pid" --ppid "$pid" | sed 's/^/  /'
	screen | sed 's/^/  screen: /'
	bad=1
fi
pid=
expect monitor-pool-given-back test "$(cat /proc/sys/vm/nr_hugepages)" -eq "$nr0"
expect monitor-swap-file-gone bash -c "! grep -q thrashtop-swap /proc/swaps"
