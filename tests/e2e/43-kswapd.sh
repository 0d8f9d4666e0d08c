#!/usr/bin/env bash
# lane: whole
# kswapd's CPU as thrashtop reports it (the "0:01 kswapd" line and the
# history's kswapd_s) against the kernel's own count in /proc/PID/stat,
# under real global pressure: all but ROOM of free memory taken, a
# workload bigger than ROOM, a temporary swap file.
#
# The pressure comes from a hugetlb pool (thrashtop's own --sysctl
# vm.nr_hugepages=N, so its undo state restores it even after a crash), not
# from --global: the balloon has to fault in and zero 22 GiB, which took
# 16 to 94 s on this virtual machine, while reserving 20 GiB of huge pages
# touches no page and took 37 ms. Either way
# the zones' free memory falls to the watermarks and kswapd works as on a
# small machine; a memory cgroup would not wake it (direct reclaim only).
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
TCK=$(getconf CLK_TCK)
# The zones' high watermarks (pages, summed): kswapd wakes when a zone
# falls below its low mark and works up to the high one. The free memory
# left beside the pool is 512 MiB above them, so the workload's 1.5 GiB must
# push every zone under its marks.
PAGE_KIB=$(($(getconf PAGESIZE) / 1024))
HIGH_KIB=$(awk -v p="$PAGE_KIB" '$1 == "high" { s += $2 } END { print s * p }' /proc/zoneinfo)
ROOM_KIB=$((HIGH_KIB + 512 * 1024))	# free memory left beside the pool
scanned() { awk '$1 == "pgscan_kswapd" { print $2 }' /proc/vmstat; }
read -r -a KPIDS <<<"$(pgrep -x 'kswapd[0-9]+' | tr '\n' ' ')"
NK=${#KPIDS[@]}
[ "$NK" -gt 0 ] || { skip "no kswapd thread visible"; exit 0; }
hp_kib=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
[ -n "$hp_kib" ] && [ -w /proc/sys/vm/nr_hugepages ] ||
	{ skip "no hugetlb pool to take memory with"; exit 0; }
nr0=$(cat /proc/sys/vm/nr_hugepages)
cleanup "echo $nr0 >/proc/sys/vm/nr_hugepages"
kill_ours() {
	[ -n "${bpid:-}" ] && kill -9 "$bpid" 2>/dev/null
	[ -n "${pid:-}" ] && kill -9 "$pid"
	sleep 0.5
	"$T" -b -n 1000 -p 1 --no-history
}
cleanup kill_ours

# utime + stime of every kswapd thread, in ticks (fields 14 and 15; the
# comm field "(kswapd0)" has no blanks, so awk's fields are the kernel's)
ticks() {
	local p s=0
	for p in "${KPIDS[@]}"; do s=$((s + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done
	echo "$s"
}
# the same threads' time on a CPU in ns (/proc/PID/schedstat), to tell
# how long kswapd ran with more than ticks' precision
ran_ns() {
	local p s=0
	for p in "${KPIDS[@]}"; do s=$((s + $(awk '{ print $1 }' "/proc/$p/schedstat"))); done
	echo "$s"
}

# Page cache would be reclaimed first and cheaply; without it the workload's
# own pages go to swap.
sync
echo 3 >/proc/sys/vm/drop_caches
free_kib=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
nr=$(((free_kib - ROOM_KIB) / hp_kib))
[ "$nr" -gt 0 ] || { fail pool-size "only $free_kib KiB free"; exit 1; }
# 512 MiB more than is free when the pressure starts (a pool that came up
# short, or memory others freed, leaves more than ROOM), once: a second
# pass, faulting back what the first pushed out, doubled the run for
# kswapd seconds where the check needs a few ticks. Until kswapd has
# scanned 128 MiB, 256 MiB more at a time, up to 512 MiB, and a last pass
# over it all.
# The 2 GiB swap file takes what does not fit. It starts once the test has
# read kswapd's time: under pressure the test's own forks stall in
# reclaim, and a late first reading would miss kswapd's first work.
cat >"$TMP/press.py" <<'PY'
import mmap, os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.005)
def vmstat(name):
    for line in open("/proc/vmstat"):
        f = line.split()
        if f[0] == name:
            return int(f[1])
def touch(maps, p):
    for m in maps:
        for i in range(0, len(m), 4096):
            m[i] = p
s0 = vmstat("pgscan_kswapd")
free = vmstat("nr_free_pages") * mmap.PAGESIZE
maps = [mmap.mmap(-1, free + (512 << 20))]
touch(maps, 1)
while vmstat("pgscan_kswapd") - s0 < (128 << 20) // mmap.PAGESIZE and len(maps) < 3:
    maps.append(mmap.mmap(-1, 256 << 20))
    touch(maps[-1:], 1)
if len(maps) > 1:
    touch(maps, 3)
PY
# Bracket the run from a reader as steady as thrashtop's own sampling
# thread: locked in memory and SCHED_FIFO, polling without a fork. A shell
# loop of greps, under a pool that leaves the machine at its watermarks,
# stalled in reclaim while kswapd ran: the first reading came 0.4 s late.
# It reads kswapd's ticks as the tuning line on stderr appears (just before
# the run's first sample), starts the pressure, and reads again as the
# kswapd line on stdout appears (just after the last sample).
cat >"$TMP/bracket.py" <<'PY'
import ctypes, os, sys, time
err, out, go, done, res = sys.argv[1:6]
pids = sys.argv[6:]
libc = ctypes.CDLL(None, use_errno=True)
libc.mlockall(3)	# MCL_CURRENT | MCL_FUTURE
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
except OSError:
    pass
def ticks():
    s = 0
    for p in pids:
        f = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
        s += int(f[11]) + int(f[12])
    return s
def ran_ns():
    return sum(int(open("/proc/%s/schedstat" % p).read().split()[0]) for p in pids)
def scanned():
    for line in open("/proc/vmstat"):
        f = line.split()
        if f[0] == "pgscan_kswapd":
            return int(f[1])
def meminfo(name):
    for line in open("/proc/meminfo"):
        if line.startswith(name + ":"):
            return int(line.split()[1])
def seen(path, test, stop):
    # until the line is there, or thrashtop has exited without it
    while True:
        last = os.path.exists(stop)
        try:
            for line in open(path):
                if test(line.rstrip("\n")):
                    return True
        except FileNotFoundError:
            pass
        if last:
            return False
        time.sleep(0.002)
ok_a = seen(err, lambda l: l.startswith("thrashtop: ") and "vm.nr_hugepages=" in l, done)
a, ns_a, scan_a = ticks(), ran_ns(), scanned()
pool, free = meminfo("HugePages_Total"), meminfo("MemFree")
t_a = time.monotonic()
open(go, "w").close()
ok_b = seen(out, lambda l: l.endswith("kswapd"), done)
b, ns_b, scan_b = ticks(), ran_ns(), scanned()
with open(res, "w") as f:
    print(0 if ok_a and ok_b else 1, a, ns_a, scan_a, pool, free, b, ns_b, scan_b,
          "%.2f" % (time.monotonic() - t_a), file=f)
PY
# Headroom from the OOM killer: the workload goes at most 1 GiB past free
# memory and the 2 GiB swap file takes it, so a global kill needs other
# work to take the other GiB of swap meanwhile; a kill fails exit-0 with
# its OOM line shown.
p0=$(ticks)
python3 "$TMP/bracket.py" "$TMP/err" "$TMP/out" "$TMP/go" "$TMP/done" "$TMP/bracket" "${KPIDS[@]}" &
bpid=$!
"$T" -b --swap 2G --sysctl "vm.nr_hugepages=$nr" --history "$DB" -L kswapd \
	-- python3 "$TMP/press.py" "$TMP/go" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait "$pid"; rc=$?
pid=
touch "$TMP/done"
wait "$bpid"
bpid=
[ -s "$TMP/bracket" ] || { fail bracket "no readings: stderr $(cat "$TMP/err"); stdout $(cat "$TMP/out")"; exit 1; }
read -r started a ns_a scan_a pool free_at_start b ns_b scan_b secs <"$TMP/bracket"
p1=$(ticks)
expect run-started test "$started" -eq 0
expect exit-0 test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/  stdout: /' "$TMP/out"
expect no-stderr-but-tuning test "$(grep -vc '^thrashtop: ' "$TMP/err")" -eq 0
expect pool-taken test "${pool:-0}" -ge $((nr * 9 / 10))
# the tuning line gives the pool the kernel found, and what was asked when
# that is less
shown=$(sed -n 's/.*vm\.nr_hugepages=\([0-9]*\).*/\1/p' "$TMP/err" | head -1)
expect "tuning-line-is-pool[$shown, pool $pool of $nr]" test "$shown" = "$pool"
[ "$pool" = "$nr" ] || expect tuning-line-says-asked grep -q "vm.nr_hugepages=$pool (asked $nr)" "$TMP/err"
expect pool-restored test "$(cat /proc/sys/vm/nr_hugepages)" -eq "$nr0"

line=$(grep 'kswapd$' "$TMP/out")
printed=$(awk '{ split($1, t, ":"); print t[1] * 60 + t[2] }' <<<"$line")
ks=$("$T" history --history "$DB" show 1 | awk '$1 == "kswapd_s" { print $2 }')
d=$((b - a))
echo "  kswapd: $NK thread(s), /proc delta $d ticks over the run of $secs s ($((p1 - p0)) over the" \
     "whole process), thrashtop \"$line\", history kswapd_s $ks, CLK_TCK $TCK, pool $pool x ${hp_kib}K"

echo "  pressure: MemFree $free_at_start KiB at the start (room $ROOM_KIB, high watermarks" \
     "$HIGH_KIB KiB), pgscan_kswapd +$((scan_b - scan_a)) over the run," \
     "kswapd on a CPU $(((ns_b - ns_a) / 1000000)) ms (schedstat)"
# kswapd's time is asserted only once the kernel says it was woken: pages
# it scanned. Not woken means the machine could not be pressed (others
# freed memory beside the pool, or the pool came up short): a skip with
# the figures, not a pass and not a failure.
if [ "$((scan_b - scan_a))" -le 0 ]; then
	skip kswapd "not woken (pgscan_kswapd unchanged, MemFree $free_at_start KiB" \
	     "at the start for a workload 0.5-1 GiB over it, pool $pool of $nr pages)"
	exit 0
fi
# Ticks can only be compared once kswapd ran for a few of them: 2229
# pages scanned once took it 4.5 ms, under half a tick.
if [ "$((ns_b - ns_a))" -lt $((3 * 1000000000 / TCK)) ]; then
	skip kswapd "woken but on a CPU only $(((ns_b - ns_a) / 1000)) us" \
	     "(pgscan_kswapd +$((scan_b - scan_a))), under 3 ticks"
	exit 0
fi
# The test can fail: kswapd ran 3 ticks' time, its ticks must show it.
expect kswapd-ran test "$d" -gt 0
# The tolerance, per thread. /proc/PID/stat's utime and stime are the
# thread's sum_exec_runtime (the same nanoseconds thrashtop reads in
# /proc/PID/schedstat) split in two and each truncated to ticks: a reading
# is up to 2 ticks below the true time, so a difference of two readings is
# off by less than 2 ticks either way. The bracket reads lag the run's
# first and last samples by one 2 ms poll of a reader that neither stalls
# in reclaim nor waits for a CPU, in which a thread runs for at most that
# long: 2 ticks more leave room for a poll 20 ms late. Anything beyond
# 4 ticks per thread is a wrong figure.
tol=$((4 * NK))
near() { awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { d = x - y; exit !(d <= t && -d <= t) }'; }
expect history-matches-proc near "$(awk -v k="$ks" -v c="$TCK" 'BEGIN { print k * c }')" "$d" "$tol"
# m:ss is truncated, as ps's TIME: the line is kswapd_s's whole seconds,
# and lies between the whole seconds of the /proc delta's bounds.
expect line-is-history-truncated test "$printed" -eq "$(awk -v k="$ks" 'BEGIN { print int(k) }')"
lo=$(((d - tol) / TCK)); hi=$(((d + tol) / TCK))
expect line-matches-proc test "$printed" -ge "$lo" -a "$printed" -le "$hi"
# Nothing thrashtop counts lies outside the process's lifetime.
expect within-process-delta awk -v k="$ks" -v c="$TCK" -v p="$((p1 - p0))" -v t="$((2 * NK))" \
	'BEGIN { exit !(k * c <= p + t) }'
