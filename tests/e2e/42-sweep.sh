#!/usr/bin/env bash
# lane: confined
# Sweeps: every combination runs with a header line per cell, the cross
# table ends the output, the runs form one session in the history whose
# table reprints the same. Bad sweeps are refused in one line.
. "$(dirname "$0")/lib.sh"
DB=$TMP/h.db
H() { "$T" history --history "$DB" "$@"; }

# Without root: the workload's own keys.
"$T" -b --history "$DB" --sweep procs=1,2 --sweep elems=100000,200000 -r 2 >"$TMP/out" 2>"$TMP/err"
rc=$?
expect user-sweep-exit-0 test $rc -eq 0
expect user-sweep-8-runs test "$(grep -c 'pf+0w$' "$TMP/out")" -eq 8
expect user-sweep-headers test "$(grep '^cell ' "$TMP/out" | tr '\n' '|')" = \
	"cell 1/4: procs=1 elems=100000|cell 2/4: procs=1 elems=200000|cell 3/4: procs=2 elems=100000|cell 4/4: procs=2 elems=200000|"
expect user-sweep-table-title grep -q '^Wall time by procs (rows) and nelems (columns)' "$TMP/out"
expect user-sweep-table-rows test "$(grep -cE '^[12] +0:[0-9]{2}\.[0-9]{2} \+-[0-9.]+% n=2 +0:[0-9]{2}\.[0-9]{2} \+-[0-9.]+% n=2$' "$TMP/out")" -eq 2
sid=$(sed -nE 's/^session ([^:]+): .*/\1/p' "$TMP/out")
expect user-sweep-session-named test -n "$sid"
table_of() { awk '/^Wall time by/ { p = 1 } /^session / { p = 0 } p' "$1" | sed '$d'; }
table_of "$TMP/out" >"$TMP/printed"
H export --format=table --session "$sid" >"$TMP/reprinted"
expect user-sweep-reprint-same cmp -s "$TMP/printed" "$TMP/reprinted"
# the line's own command, pasted, reads the database the sweep wrote
hint=$(sed -nE 's/^session [^:]+: thrashtop (.*)/\1/p' "$TMP/out")
eval "\"\$T\" $hint" >"$TMP/hinted" 2>&1
expect user-sweep-hint-reprints cmp -s "$TMP/printed" "$TMP/hinted" || echo "hint: $hint"
H export --format=json --session "$sid" >"$TMP/json"
expect user-sweep-cells-recorded python3 - "$TMP/json" <<'EOF'
import json, sys
runs = json.load(open(sys.argv[1]))
runs = runs["runs"] if isinstance(runs, dict) else runs
assert len(runs) == 8, len(runs)
for r in runs:
    cell = dict(kv.split("=") for kv in r["cell"].split())
    assert int(cell["procs"]) == r["procs"] and int(cell["elems"]) == r["nelems"], r["cell"]
    assert r["repeat_n"] == 2
EOF

for bad in "--sweep mem=64M --mem 64M" "--sweep colour=1,2" "--sweep swappiness=60,300" \
	   "--sweep procs=1,1" "--sweep swappiness=60 --sysctl vm.swappiness=10"; do
	# shellcheck disable=SC2086
	"$T" -b --no-history -n 1000 $bad >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "bad[$bad]" test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1 -a ! -s "$TMP/o"
done
"$T" -b --no-history --sweep procs=1,2 -- true >"$TMP/o" 2>"$TMP/e"; rc=$?
expect bad-procs-with-command test $rc -eq 2 -a "$(grep -c 'a command' "$TMP/e")" -eq 1

# The monitor's sweep: at its exit each cell is named above its runs, as
# batch mode names it.
need_tmux
S="thrashtop-e2e-$$"
tm new-session -d -s "$S" -x 80 -y 50 \
	"$T --no-history --sweep procs=1,2 -n 200000 2>$TMP/err-mon; echo EXIT=\$? >$TMP/rc-mon; sleep 30"
expect monitor-sweep-runs wait_for 60 has 'procs=2'
sleep 2
tm send-keys -t "$S" q
expect monitor-sweep-exit wait_for 15 grep -qs EXIT= "$TMP/rc-mon"
cells=$(tm capture-pane -p -t "$S" | grep -E '^cell |pf\+0w' | sed -E 's/^[0-9.]+u .*/RUN/' | tr '\n' '|')
expect monitor-sweep-cells-named test "$cells" = "cell 1/2: procs=1|RUN|cell 2/2: procs=2|RUN|" ||
	tm capture-pane -p -t "$S"
tm kill-session -t "$S"

# As root, the third seed's table: memory x swappiness.
need_root
# One tuning test at a time on this machine (a make check of another
# checkout runs the same ones): they set and check the same sysctls.
need_machine_lock
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
sw0=$(cat /proc/sys/vm/swappiness)
cleanup "echo $sw0 >/proc/sys/vm/swappiness"
cleanup "kill -9 \$(cat $TMP/pid) 2>/dev/null; sleep 0.5; $T -b -n 1000 -p 1 --no-history"
# 23 MiB of sort against 16 MiB (it swaps) and 48 MiB (it fits). A memory
# cgroup this small may OOM-kill a run now and then: the table marks it.
"$TP" -b -n 6000000 -p 1 --swap 128M --sweep mem=16M,48M --sweep swappiness=60,100 \
	--history "$DB" -L seed3 >"$TMP/out" 2>"$TMP/err" &
echo $! >"$TMP/pid"
wait "$(cat "$TMP/pid")"; rc=$?
nooms=$(grep -c '^Out of Memory: Killed process' "$TMP/out")
expect root-sweep-exit-status test $rc -eq $((nooms > 0 ? 1 : 0))
expect root-sweep-4-runs test "$(grep -c 'pf+0w$' "$TMP/out")" -eq 4
expect root-sweep-headers test "$(grep -c '^cell [1-4]/4: mem=[0-9]*M swappiness=[0-9]*$' "$TMP/out")" -eq 4
expect root-sweep-table-title grep -q '^Wall time by mem (rows) and swappiness (columns)' "$TMP/out"
expect root-sweep-table-head grep -Eq '^mem +60 +100$' "$TMP/out"
cell='(0:[0-9]{2}\.[0-9]{2} n=1|1 of 1 runs killed)'
expect root-sweep-table-16M grep -Eq "^16M +$cell +$cell\$" "$TMP/out"
expect root-sweep-table-48M grep -Eq "^48M +$cell +$cell\$" "$TMP/out"
expect root-sweep-ooms-marked test "$(grep -Eo '1 of 1 runs killed' "$TMP/out" | wc -l)" -eq "$nooms"
expect root-sweep-swappiness-restored test "$(cat /proc/sys/vm/swappiness)" = "$sw0"
expect root-sweep-swap-gone bash -c "! grep -q thrashtop-swap-$(cat "$TMP/pid") /proc/swaps"
sid=$(sed -nE 's/^session ([^:]+): .*/\1/p' "$TMP/out")
table_of "$TMP/out" >"$TMP/printed"
H export --format=table --session "$sid" >"$TMP/reprinted"
expect root-sweep-reprint-same cmp -s "$TMP/printed" "$TMP/reprinted"
H export --format=json --session "$sid" >"$TMP/json"
expect root-sweep-state-recorded python3 - "$TMP/json" <<'EOF'
import json, sys
runs = json.load(open(sys.argv[1]))
runs = runs["runs"] if isinstance(runs, dict) else runs
assert len(runs) == 4, len(runs)
for r in runs:
    cell = dict(kv.split("=") for kv in r["cell"].split())
    # what the run actually ran with, read back from the machine
    assert r["swappiness"] == int(cell["swappiness"]), r
    assert r["mem_limit_kib"] == int(cell["mem"].rstrip("M")) * 1024, r
    assert r["tmp_swap_kib"] == 128 * 1024, r
# the 16M cells swapped: major faults
assert all(r["majflt"] > 100 for r in runs if r["mem_limit_kib"] == 16384), runs
EOF

# What the workload's cgroup reclaims at: a v1 memory cgroup keeps the
# swappiness it was made with, so vm.swappiness set after (--sysctl, a
# sweep's cell, s/S) must reach it too. v2 has no such file.
if [ -d /sys/fs/cgroup/memory ]; then
	own='cat /sys/fs/cgroup/memory$(grep -m1 ":memory:" /proc/self/cgroup | cut -d: -f3)/memory.swappiness'
	"$T" -b --no-history --mem 64M --sysctl vm.swappiness=100 -- sh -c "$own >>$TMP/sw1" \
		>/dev/null 2>"$TMP/err1"
	got=$(cat "$TMP/sw1" 2>/dev/null)
	expect cg-swappiness-sysctl test "$got" = 100
	[ "$got" = 100 ] || sed 's/^/  stderr: /' "$TMP/err1"
	"$T" -b --no-history --mem 64M --sweep swappiness=30,100 -- sh -c "$own >>$TMP/sw2" \
		>/dev/null 2>"$TMP/err2"
	got=$(tr '\n' ' ' <"$TMP/sw2" 2>/dev/null)
	expect cg-swappiness-sweep test "$got" = "30 100 "
	[ "$got" = "30 100 " ] || sed 's/^/  stderr: /' "$TMP/err2"
	expect cg-swappiness-restored test "$(cat /proc/sys/vm/swappiness)" = "$sw0"
fi
