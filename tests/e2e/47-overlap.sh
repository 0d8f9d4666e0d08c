#!/usr/bin/env bash
# lane: whole
# One tuning session at a time: while one session has the machine changed
# (swap file, memory cgroup, hugetlb pool or balloon, a sysctl), a second
# tuning session is refused before it changes anything, in one line naming
# the first's pid, exit 2; a session that changes nothing runs beside it.
# After both the machine is exactly as before, and the history holds the
# first's run as it was set up and nothing of the refused one.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
[ -d /sys/fs/cgroup/memory ] || { skip "no v1 memory controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
H() { "$T" history --history "$DB" "$@"; }
sw0=$(cat /proc/sys/vm/swappiness)
nr0=$(cat /proc/sys/vm/nr_hugepages)
cleanup "echo $sw0 >/proc/sys/vm/swappiness; echo $nr0 >/proc/sys/vm/nr_hugepages"
cleanup kill_ours
# What a session can change, as one text to compare.
machine() {
	echo "swappiness $(cat /proc/sys/vm/swappiness)"
	echo "nr_hugepages $(cat /proc/sys/vm/nr_hugepages)"
	echo "swaps $(awk 'NR > 1 { print $1 }' /proc/swaps | sort | paste -sd' ')"
	echo "cgroups $(ls /sys/fs/cgroup/memory | grep '^thrashtop-' | paste -sd' ')"
	echo "balloons $(for p in $(pgrep -f "^$T "); do
		[ "$(cat /proc/$p/oom_score_adj 2>/dev/null)" = 1000 ] && echo "$p"; done | paste -sd' ')"
	echo "records $(cat "$THRASHTOP_STATE_DIR/state" 2>/dev/null | wc -l)"
}
total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
leave_kib=$((total_kib - 262144))
swa=$([ "$sw0" = 71 ] && echo 72 || echo 71)
swb=$([ "$sw0" = 81 ] && echo 82 || echo 81)
set_up() {	# pid swappiness: that session has its changes made
	[ "$(cat /proc/sys/vm/swappiness)" = "$2" ] && grep -q "thrashtop-swap-$1-" /proc/swaps &&
		grep -qs . "/sys/fs/cgroup/memory/thrashtop-$1/cgroup.procs"
}
json_of() {	# label: its runs, one "field value" a line
	H export --format=json -L "$1" | python3 -c '
import json, sys
runs = json.load(sys.stdin)
runs = runs["runs"] if isinstance(runs, dict) else runs
print("runs", len(runs))
for r in runs:
    for k in ("status", "sysctls", "mem_limit_kib", "tmp_swap_kib", "global_limit_kib", "swappiness"):
        print(k, repr(r[k]))
'
}

before=$(machine)
# The first session's command lasts until the checks made beside it are
# done: it waits for $TMP/go (60 s at most).
for with in hugetlb balloon; do
	TUNE="--swap 64M --mem 64M --global ${leave_kib}K --global-with $with"
	rm -f "$TMP/go"
	"$T" -b --history "$DB" -L "first-$with" $TUNE --sysctl vm.swappiness=$swa -- \
		timeout 60 sh -c "until [ -e '$TMP/go' ]; do sleep 0.1; done" >"$TMP/out-a" 2>"$TMP/err-a" &
	a=$!
	started $a
	if ! expect "$with-first-set-up" wait_for 30 set_up $a $swa; then
		cat "$TMP/err-a"
		touch "$TMP/go"
		wait $a
		continue
	fi
	during=$(machine)
	"$T" -b --history "$DB" -L "second-$with" $TUNE --sysctl vm.swappiness=$swb -- true \
		>"$TMP/out-b" 2>"$TMP/err-b"
	rc=$?
	expect "$with-second-exit-2" test $rc -eq 2
	expect "$with-second-names-first" grep -q "another thrashtop (pid $a) is tuning this machine" "$TMP/err-b"
	expect "$with-second-one-line" test "$(wc -l <"$TMP/err-b")" -eq 1
	grep -q "another thrashtop (pid $a)" "$TMP/err-b" && [ "$(wc -l <"$TMP/err-b")" -eq 1 ] ||
		sed 's/^/  stderr: /' "$TMP/err-b"
	# nothing changed by the refused one: the machine as the first left it
	now=$(machine)
	expect "$with-second-changed-nothing" test "$now" = "$during"
	[ "$now" = "$during" ] || diff <(echo "$during") <(echo "$now")
	out=$("$T" -b --no-history -n 1000 -p 1 2>&1); rc=$?
	expect "$with-untuned-runs-beside" test $rc -eq 0
	[ $rc -eq 0 ] || echo "$out"
	touch "$TMP/go"
	wait $a; rc=$?
	expect "$with-first-exit-0" test $rc -eq 0
	[ $rc -eq 0 ] || cat "$TMP/err-a"
	after=$(machine)
	expect "$with-machine-as-before" test "$after" = "$before"
	[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after")
	json_of "first-$with" >"$TMP/first"
	expect "$with-first-record-true" diff - "$TMP/first" <<EOF
runs 1
status 'ok'
sysctls 'vm.swappiness=$swa\n'
mem_limit_kib 65536
tmp_swap_kib 65536
global_limit_kib $leave_kib
swappiness $swa
EOF
	json_of "second-$with" >"$TMP/second"
	expect "$with-second-no-record" grep -qx "runs 0" "$TMP/second"
	# once the first is gone, the second's turn
	"$T" -b --history "$DB" -L "then-$with" $TUNE --sysctl vm.swappiness=$swb -- true \
		>"$TMP/out-c" 2>"$TMP/err-c"
	rc=$?
	expect "$with-after-first-runs" test $rc -eq 0
	[ $rc -eq 0 ] || cat "$TMP/err-c"
	json_of "then-$with" >"$TMP/then"
	expect "$with-after-first-record-true" grep -qx "sysctls 'vm.swappiness=$swb\\\\n'" "$TMP/then"
	after=$(machine)
	expect "$with-machine-as-before-again" test "$after" = "$before"
	[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after")
done
