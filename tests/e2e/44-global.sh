#!/usr/bin/env bash
# lane: whole
# --global SIZE through a hugetlb pool: the pool sized so SIZE is left,
# recorded with the run, kswapd at work in the run that follows, and the
# pool given back on the normal path, SIGTERM, and SIGKILL followed by the
# next start.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
hp_kib=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
[ -n "$hp_kib" ] && [ -w /proc/sys/vm/nr_hugepages ] ||
	{ skip "no hugetlb pool to take memory with"; exit 0; }
read -r -a KPIDS <<<"$(pgrep -x 'kswapd[0-9]+' | tr '\n' ' ')"
[ "${#KPIDS[@]}" -gt 0 ] || { skip "no kswapd thread visible"; exit 0; }
nr0=$(cat /proc/sys/vm/nr_hugepages)
cleanup "echo $nr0 >/proc/sys/vm/nr_hugepages"
cleanup kill_ours
# kswapd's CPU in nanoseconds (schedstat's first field: finer than ticks)
kswapd_ns() {
	local p s=0
	for p in "${KPIDS[@]}"; do s=$((s + $(awk '{ print $1 }' "/proc/$p/schedstat"))); done
	echo "$s"
}
pgscan() { awk '$1 == "pgscan_kswapd" { print $2 }' /proc/vmstat; }
pool() { cat /proc/sys/vm/nr_hugepages; }
# poll PATTERN FILE SECONDS PID: until the file has the pattern, while PID
# lives. The file is removed before each start: the child truncates it only
# once it runs, and the last start's lines would match meanwhile.
poll() {
	local end=$((SECONDS + $3))
	until grep -qs "$1" "$2"; do
		alive "$4" && [ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}
# Page cache would be reclaimed first and cheaply; without it the
# workload's own pages go to swap.
sync
echo 3 >/proc/sys/vm/drop_caches
# SIZE: what the machine uses now (other work included) and about 1.3 GiB
# more, so thrashtop's own limit (512 MiB of MemAvailable kept) passes;
# want: the pages of the pool that leaves SIZE.
total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
size_now() {
	local avail_kib
	avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	size_kib=$(((total_kib - avail_kib + 1331200) / 1024 * 1024))
	want=$(((total_kib - size_kib) / hp_kib))
}
size_now
# More than is left, sized once the pool is there, and more again until
# kswapd has scanned: what other work uses comes and goes, and a fixed
# size once left the zones above their low watermark (kswapd never woke).
# Never more than the swap file takes: at most 2.5 GiB past what is
# available against 3 GiB of swap, the headroom from a global OOM kill
# (exit-0 below shows the OOM line if other work took the rest).
cat >"$TMP/press.py" <<'PY'
import mmap
def field(path, key):
    for line in open(path):
        f = line.split()
        if f[0] == key:
            return int(f[1])
avail = field("/proc/meminfo", "MemAvailable:") << 10
s0 = field("/proc/vmstat", "pgscan_kswapd")
step, least, most = 64 << 20, avail + (768 << 20), avail + (2560 << 20)
m = mmap.mmap(-1, most)
n = 0
while n < most:
    for i in range(n, n + step, 4096):
        m[i] = 1
    n += step
    if n >= least and field("/proc/vmstat", "pgscan_kswapd") > s0:
        break
PY
k0=$(kswapd_ns); s0=$(pgscan)
t0=$(date +%s.%N)
"$T" -b --global "${size_kib}K" --swap 3G --history "$DB" -L global \
	-- python3 "$TMP/press.py" >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
poll '^thrashtop: .*global .* (hugetlb' "$TMP/err" 60 $pid; up=$?
t1=$(date +%s.%N)
held=$(pool)
wait $pid; rc=$?
k1=$(kswapd_ns); s1=$(pgscan)
echo "  --global ${size_kib}K ready after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s;" \
     "pool $held x ${hp_kib}K (asked $want), kswapd $(((k1 - k0) / 1000000)) ms, pgscan_kswapd +$((s1 - s0))"
expect set-up-says-hugetlb test "$up" -eq 0
[ "$up" -eq 0 ] || { echo "  stderr:"; sed 's/^/    /' "$TMP/err"; echo "  buddyinfo:"; sed 's/^/    /' /proc/buddyinfo; }
expect exit-0 test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/  stdout: /' "$TMP/out"
# the kernel may give a few pages fewer (a balloon pins the rest)
near_want() { [ "$1" -le "$want" ] && [ "$1" -ge $((want * 9 / 10)) ]; }
expect pool-sized-to-leave-size near_want "$held"
expect pool-given-back test "$(pool)" -eq "$nr0"
expect no-record-left bash -c "! grep -qs . '$THRASHTOP_STATE_DIR/state'"
expect kswapd-scanned test "$s1" -gt "$s0"
expect kswapd-cpu-moved test "$k1" -gt "$k0"
"$T" history --history "$DB" show 1 >"$TMP/show"
expect recorded-global grep -q "^global_limit_kib .* ($size_kib KiB)" "$TMP/show"
expect recorded-hugetlb grep -Eqx 'global_by  *hugetlb(\+balloon)?' "$TMP/show"
"$T" history --history "$DB" export --format=json >"$TMP/json"
expect config-has-hugetlb grep -q 'global_by=hugetlb' "$TMP/json"
echo "  recorded: $(grep '^global' "$TMP/show" | tr -s ' ' | paste -sd';')"

# SIGTERM while the pool is held.
size_now
rm -f "$TMP/out" "$TMP/err"
"$T" -b --global "${size_kib}K" --no-history -- sleep 60 >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
poll 'global .* (hugetlb' "$TMP/err" 60 $pid || sed 's/^/  stderr: /' "$TMP/err"
expect term-pool-held near_want "$(pool)"
kill -TERM $pid
wait $pid; rc=$?
expect term-exit-143 test "$rc" -eq 143
expect term-pool-given-back test "$(pool)" -eq "$nr0"

# SIGKILL: the pool stays, recorded; the next start gives it back and says so.
size_now
rm -f "$TMP/out" "$TMP/err"
"$T" -b --global "${size_kib}K" --swap 256M --no-history -- sleep 60 >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
poll 'global .* (hugetlb' "$TMP/err" 60 $pid || sed 's/^/  stderr: /' "$TMP/err"
kill -KILL $pid
wait $pid 2>/dev/null
expect kill-pool-left near_want "$(pool)"
expect kill-recorded grep -q "^$pid .* sysctl vm.nr_hugepages $nr0\$" "$THRASHTOP_STATE_DIR/state"
"$T" -b -n 1000 -p 1 --no-history >"$TMP/out" 2>"$TMP/err"; rc=$?
expect next-start-runs test "$rc" -eq 0
expect next-start-says grep -q "vm.nr_hugepages restored to $nr0" "$TMP/err"
expect next-start-gives-back test "$(pool)" -eq "$nr0"
expect next-start-swap-off bash -c "! grep -q 'thrashtop-swap-$pid' /proc/swaps"

# Balloon only, and bad input.
"$T" -b --global-with hugetlb --no-history -n 1000 -p 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
expect with-needs-global test "$rc" -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1
"$T" -b --global 2G --sysctl vm.nr_hugepages=10 --no-history -n 1000 -p 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
expect pool-twice-refused test "$rc" -eq 2 -a "$(grep -c 'global-with balloon' "$TMP/err")" -eq 1
expect pool-untouched test "$(pool)" -eq "$nr0"
