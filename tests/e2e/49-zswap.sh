#!/usr/bin/env bash
# lane: whole
# zram and zswap sessions on the real machine: a zram device of the
# session's own, gone after the run, q, SIGTERM and SIGKILL plus the next
# start; zswap's parameters set for a run and put back; a compressor the
# kernel lacks refused; the zswap sweep's cross table.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock 300
[ -w /sys/class/zram-control/hot_add ] || { skip "no zram-control"; exit 0; }
[ -d /sys/module/zswap/parameters ] || { skip "no zswap"; exit 0; }
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
H() { "$T" history --history "$DB" "$@"; }
ZP=/sys/module/zswap/parameters
params() { for p in enabled compressor max_pool_percent accept_threshold_percent shrinker_enabled; do
	echo "$p=$(cat $ZP/$p)"; done; }
params >"$TMP/zswap0"
# zswap as it was, whatever fails below
cleanup "while IFS='=' read -r k v; do echo \"\$v\" >$ZP/\$k; done <$TMP/zswap0"
zrams() { ls /sys/block | grep '^zram' | sort; }
swaps() { awk '$1 ~ /^\/dev\/zram/ {print $1}' /proc/swaps | sort; }
zrams >"$TMP/zram0"
swaps >"$TMP/swaps0"
cleanup kill_ours
as_before() {
	zrams >"$TMP/zram1"; swaps >"$TMP/swaps1"
	cmp -s "$TMP/zram0" "$TMP/zram1" && cmp -s "$TMP/swaps0" "$TMP/swaps1" && ! grep -qs zram "$THRASHTOP_STATE_DIR/state" ||
		{ echo "zram before: $(cat "$TMP/zram0") after: $(cat "$TMP/zram1"); swaps after: $(cat "$TMP/swaps1")"; false; }
}
# What a run that failed printed: its result lines and stderr.
evidence() { tail -6 "$1" | sed 's/^/  out: /'; sed 's/^/  err: /' "$2"; }
# the session's device: in the state file, a zram swap at priority 32767
ours_on() { grep -qs " zram zram" "$THRASHTOP_STATE_DIR/state" &&
	awk '$1 ~ /^\/dev\/zram/ && $5 == 32767 { f = 1 } END { exit !f }' /proc/swaps; }

# The v1 memory cgroup of a run below now and then OOM-kills its worker
# with swap free (here about 1 run in 10, all its anon pages on the active
# list at the kill): the kernel's doing, said by the run and counted apart
# in the sweep. A single run that must complete is tried up to three times.
oom_killed() { test $rc -eq 1 && grep -q '^Out of Memory: Killed process' "$TMP/out"; }
retry_note() { echo "NOTE $NAME: $1 run $2 of 3 OOM-killed by its memory cgroup"; }

# A batch run on zram: stored with its backend, stored bytes and a ratio.
# 32 MiB more than its cgroup holds is enough to store pages there.
for try in 1 2 3; do
	LZ=zram$try
	"$TP" -b --mem 128M --swap zram:512M -m 160 -p 1 --history "$DB" -L $LZ >"$TMP/out" 2>"$TMP/err" &
	pid=$!; started $pid
	[ $try -eq 1 ] && expect zram-on wait_for 20 ours_on
	wait $pid; rc=$?
	oom_killed || break
	retry_note zram $try
done
expect zram-exit-0 test $rc -eq 0
[ $rc -eq 0 ] || evidence "$TMP/out" "$TMP/err"
expect zram-header-names-it grep -q "swap zram[0-9]* 512M lzo-rle prio 32767" "$TMP/err"
expect zram-gone-after-run as_before
H export --format=json -L $LZ >"$TMP/json"
python3 - "$TMP/json" >"$TMP/py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
assert r["swap_backend"].startswith("zram 512M lzo-rle prio 32767"), r["swap_backend"]
assert r["zram_orig_kib"] > 0 and r["zram_compr_kib"] > 0, (r["zram_orig_kib"], r["zram_compr_kib"])
assert "swap_backend=zram 512M" in r["config"], r["config"]
s = r["series"]
assert max(v for v in s["zram-orig"] if v is not None) == r["zram_orig_kib"], "peak"
assert any(v for v in s["zram-ratio"] if v), s["zram-ratio"]
print("ok ratio %.2f" % (r["zram_orig_kib"] / r["zram_compr_kib"]))
PY
expect zram-recorded grep -q "^ok" "$TMP/py"
grep -q "^ok" "$TMP/py" || cat "$TMP/py"

# SIGTERM mid-run: the device goes on the way out.
"$TP" -b --mem 128M --swap zram:256M -m 400 -p 1 --no-history >/dev/null 2>&1 &
pid=$!; started $pid
expect term-zram-on wait_for 20 ours_on
kill -TERM $pid; wait $pid
expect term-gone as_before

# SIGKILL: left for the next start, which removes it.
"$TP" -b --mem 128M --swap zram:256M -m 400 -p 1 --no-history >/dev/null 2>&1 &
pid=$!; started $pid
expect kill-zram-on wait_for 20 ours_on
kill -KILL $pid; wait $pid 2>/dev/null
expect kill-left-recorded grep -qs "^$pid .* zram zram" "$THRASHTOP_STATE_DIR/state"
"$T" -b -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/err"
expect kill-next-start-removes grep -q "zram device zram[0-9]* turned off and removed" "$TMP/err"
expect kill-gone as_before

# q in the monitor.
need_tmux
tm new-session -d -s q -x 120 -y 40 "THRASHTOP_STATE_DIR=$THRASHTOP_STATE_DIR $T --swap zram:256M -n 200000000 -p 1 --no-history 2>$TMP/qerr; echo EXIT=\$? >$TMP/qrc"
expect q-zram-on wait_for 30 ours_on
expect q-header-names-it wait_for 10 sh -c "tmux -L $TMUX_SOCKET -f /dev/null capture-pane -p -t q | grep -q 'swap zram[0-9]* 256M lzo-rle'"
tm send-keys -t q q
# q mid-run: exit 1, the run did not complete
expect q-exit-1 wait_for 30 grep -qs "EXIT=1" "$TMP/qrc"
grep -qs EXIT=1 "$TMP/qrc" || cat "$TMP/qrc" "$TMP/qerr"
expect q-gone as_before

# zswap for a run: it stores pages, the run says so, the parameters come back.
for try in 1 2 3; do
	LW=zswap$try
	"$TP" -b --mem 128M --swap 512M --zswap lzo-rle:25 -m 160 -p 1 --history "$DB" -L $LW >"$TMP/out" 2>"$TMP/err" &
	pid=$!; started $pid
	[ $try -eq 1 ] && expect zswap-set wait_for 20 sh -c "grep -q Y $ZP/enabled && grep -qx lzo-rle $ZP/compressor && grep -qx 25 $ZP/max_pool_percent"
	wait $pid; rc=$?
	oom_killed || break
	retry_note zswap $try
done
expect zswap-exit-0 test $rc -eq 0
[ $rc -eq 0 ] || evidence "$TMP/out" "$TMP/err"
params >"$TMP/zswap1"
expect zswap-params-restored cmp "$TMP/zswap0" "$TMP/zswap1"
zs=$(H export --format=json -L $LW | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["zswpout"], r["zswap_with"], r["zswap_stored_kib"])')
expect zswap-recorded sh -c "set -- $zs; test \$1 -gt 0 && test \$2 = lzo-rle && test \$3 = 25% && test \$4 -gt 0" || echo "got: $zs"

# A compressor the kernel lacks: refused before anything starts.
"$T" -b --zswap lz4 -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/err"; rc=$?
expect lz4-exit-2 test $rc -eq 2
expect lz4-names-the-ones-it-has grep -q "it takes lzo lzo-rle deflate" "$TMP/err"
grep -q "it takes lzo lzo-rle deflate" "$TMP/err" || cat "$TMP/err"
expect lz4-one-line test "$(wc -l <"$TMP/err")" -eq 1
params >"$TMP/zswap1"
expect lz4-params-untouched cmp "$TMP/zswap0" "$TMP/zswap1"
expect lz4-nothing-recorded sh -c "! grep -qs param $THRASHTOP_STATE_DIR/state"

# The sweep: off against lzo-rle, two runs each, one line of the table each.
# Its runs fit their cgroup: the table, the groups and the parameters put
# back are checked here, what zswap does to a run above.
"$TP" -b --mem 128M --swap 512M --sweep zswap=off,lzo-rle -r 2 -m 64 -p 1 \
	--history "$DB" -L sweep >"$TMP/out" 2>"$TMP/err"; rc=$?
# a small v1 cgroup OOM-kills a run now and then (see 40-tuning):
# then the status is 1 and the table counts it apart
oomed() { test $rc -eq 1 && H list -L sweep | grep -qw oom; }
if oomed; then
	pass sweep-done-oom-counted-apart
else
	expect sweep-done test $rc -eq 0
	[ $rc -eq 0 ] || { H list -L sweep; cat "$TMP/err"; }
fi
# a row per setting: a median time, or the runs the OOM killer took
table_ok() {
	grep -q '^zswap_with ' "$TMP/out" &&
		grep -Eq '^lzo-rle 20% +([0-9]+:|[0-9]+ OOM|[0-9]+ of [0-9]+ runs killed)' "$TMP/out" &&
		grep -Eq '^off +([0-9]+:|[0-9]+ OOM|[0-9]+ of [0-9]+ runs killed)' "$TMP/out" ||
		{ cat "$TMP/out"; false; }
}
expect sweep-table-by-zswap table_ok
params >"$TMP/zswap1"
expect sweep-params-restored cmp "$TMP/zswap0" "$TMP/zswap1"
expect sweep-two-groups test "$(H list -L sweep | awk 'NR>1{print $0}' | wc -l)" -ge 4
ids=$(H export --format=json -L sweep | python3 -c '
import json, sys
runs = json.load(sys.stdin)["runs"]
print(" ".join("g:%d" % min(r["id"] for r in runs if r["zswap_with"] == w) for w in ("off", "lzo-rle 20%")))')
H compare $ids >"$TMP/cmp" 2>&1
expect sweep-compare-two-groups grep -Eq "^Amean +wall .*\(" "$TMP/cmp"
grep -Eq "^Amean +wall" "$TMP/cmp" || cat "$TMP/cmp"
expect sweep-compare-says-significance grep -q "Welch's t-test" "$TMP/cmp"
