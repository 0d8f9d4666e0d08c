#!/usr/bin/env bash
# lane: whole
# No exit path leaves a memory cgroup, a swap file, a balloon or a changed
# sysctl behind: q, Ctrl-C, SIGTERM, SIGHUP, a set-up failure half-way, and
# SIGKILL followed by the next start. A normal user gets one line for each
# option that needs root, and the rest works.
. "$(dirname "$0")/lib.sh"
need_root
# One tuning test at a time on this machine (a make check of another
# checkout runs the same ones): they set and check the same sysctls.
need_machine_lock
[ -d /sys/fs/cgroup/memory ] || { skip "no v1 memory controller"; exit 0; }
need_tmux
export THRASHTOP_STATE_DIR=$TMP/state
sw0=$(cat /proc/sys/vm/swappiness)
sw1=$([ "$sw0" = 77 ] && echo 78 || echo 77)
cleanup "echo $sw0 >/proc/sys/vm/swappiness"
cleanup kill_ours
S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"

# Pin 256 MiB in a balloon: leave the rest of RAM to the machine.
total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
TUNE="--mem 32M --swap 64M --global $((total_kib - 262144))K --global-with balloon --sysctl vm.swappiness=$sw1"
WL="-n 20000000 -p 1 --no-history"

balloon_of() {	# the child with oom_score_adj 1000
	local c
	for c in $(pgrep -P "$1"); do
		[ "$(cat /proc/$c/oom_score_adj 2>/dev/null)" = 1000 ] && echo "$c"
	done
}
running() {	# pid: set up and sorting in its cgroup
	grep -qs . "/sys/fs/cgroup/memory/thrashtop-$1/cgroup.procs" &&
		grep -q "thrashtop-swap-$1" /proc/swaps && [ -n "$(balloon_of "$1")" ]
}
changed() { [ "$(cat /proc/sys/vm/swappiness)" = "$sw1" ]; }
# pid [balloon]: nothing of that session is left
clean() {
	[ ! -e "/sys/fs/cgroup/memory/thrashtop-$1" ] && ! grep -q "thrashtop-swap-$1" /proc/swaps &&
		! compgen -G "/var/tmp/thrashtop-swap-$1-*" >/dev/null && [ "$(cat /proc/sys/vm/swappiness)" = "$sw0" ] &&
		! grep -qs "^$1 " "$THRASHTOP_STATE_DIR/state" && { [ -z "${2:-}" ] || gone "$2"; }
}
main_pid() { pgrep -o -f "^$T .*$1"; }

# q, Ctrl-C and SIGHUP (the terminal goes away) in the monitor.
for path in q ctrl-c sighup; do
	tm new-session -d -s "$S" -x 80 -y 24 "$T $WL $TUNE -L safety-$path 2>$TMP/err-$path; sleep 30"
	wait_for 10 main_pid "safety-$path" >/dev/null
	pid=$(main_pid "safety-$path")
	started "$pid"
	if ! expect "$path-set-up" wait_for 20 running "$pid"; then
		tm kill-session -t "$S"
		continue
	fi
	b=$(balloon_of "$pid")
	expect "$path-sysctl-set" changed
	case $path in
	q) tm send-keys -t "$S" q ;;
	ctrl-c) tm send-keys -t "$S" C-c ;;
	sighup) tm kill-session -t "$S" ;;
	esac
	expect "$path-exits" wait_for 20 gone "$pid"
	expect "$path-nothing-left" clean "$pid" "$b"
	expect "$path-no-complaint" bash -c "! grep -q 'could not undo' $TMP/err-$path"
	tm kill-session -t "$S" 2>/dev/null
done

# SIGTERM in batch mode.
"$T" -b $WL $TUNE >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
expect sigterm-set-up wait_for 20 running $pid
b=$(balloon_of $pid)
kill -TERM $pid
wait $pid; rc=$?
expect sigterm-exit-143 test $rc -eq 143
expect sigterm-nothing-left clean $pid "$b"

# SIGKILL: everything stays (workers and balloon die with the monitor),
# and the next start undoes it.
"$T" -b $WL $TUNE >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
expect sigkill-set-up wait_for 20 running $pid
b=$(balloon_of $pid)
kill -KILL $pid
wait $pid 2>/dev/null
expect sigkill-balloon-dies wait_for 10 gone "$b"
expect sigkill-left-recorded grep -q "^$pid .* cgroup " "$THRASHTOP_STATE_DIR/state"
expect sigkill-left-swap grep -q "thrashtop-swap-$pid" /proc/swaps
expect sigkill-left-sysctl changed
"$T" -b -n 1000 -p 1 --no-history >"$TMP/out" 2>"$TMP/err"; rc=$?
expect next-start-runs test $rc -eq 0 -a "$(grep -c 'pf+0w' "$TMP/out")" -eq 1
expect next-start-says-what grep -q "thrashtop-$pid" "$TMP/err"
# one line for what it undid (delay accounting off again, a plain run
# says why it has no stall figures)
expect next-start-one-line test "$(grep -Evc "$STALLS_NA" "$TMP/err")" -eq 1
expect next-start-cleans clean $pid "$b"

# The balloon is our child, not the command's: each of two runs of a
# command sees it (oom_score_adj 1000 among the monitor's children), and
# the command's end neither counts nor kills it as left behind.
# shellcheck disable=SC2016
"$T" -b --no-history -r 2 --global $((total_kib - 262144))K --global-with balloon -- \
	sh -c 'for c in $(cat /proc/$PPID/task/$PPID/children); do cat /proc/$c/oom_score_adj; done' \
	>"$TMP/out" 2>"$TMP/err"; rc=$?
expect command-balloon-each-run test $rc -eq 0 -a "$(grep -cx 1000 "$TMP/out")" -eq 2
expect command-balloon-not-left bash -c "! grep -q 'left .* running' $TMP/err" || cat "$TMP/out" "$TMP/err"

# A set-up failure half-way: swap and cgroup made, then the kernel refuses
# the sysctl. One line, exit 2, nothing left: no history made either.
"$T" -b ${WL% --no-history} --history "$TMP/halfway.db" --mem 32M --swap 64M --sysctl vm.swappiness=999 >"$TMP/out" 2>"$TMP/err" &
pid=$!
started $pid
wait $pid; rc=$?
expect halfway-exit-2 test $rc -eq 2
expect halfway-one-line test "$(wc -l <"$TMP/err")" -eq 1 -a "$(grep -c 'vm.swappiness=999' "$TMP/err")" -eq 1
expect halfway-nothing-left clean $pid
expect halfway-no-history test ! -e "$TMP/halfway.db"
"$T" -b $WL --mem 32M --global 1M >"$TMP/out" 2>"$TMP/err"; rc=$?
expect global-refused-one-line test $rc -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1

# A normal user: one line naming root for each tuning option; the rest works.
for opt in "--mem 64M" "--swap 64M" "--global $((total_kib - 262144))K" "--sysctl vm.swappiness=$sw1"; do
	# shellcheck disable=SC2086
	as_nobody "$T" -b -n 100000 -p 1 --no-history $opt >"$TMP/out" 2>"$TMP/err"; rc=$?
	expect "user[$opt]-one-line" test $rc -eq 2 -a "$(wc -l <"$TMP/err")" -eq 1 -a ! -s "$TMP/out"
	expect "user[$opt]-says-root" grep -q root "$TMP/err"
done
expect user-nothing-changed test "$(cat /proc/sys/vm/swappiness)" = "$sw0"
as_nobody "$T" -b -n 100000 -p 1 --no-history >"$TMP/out" 2>"$TMP/err"; rc=$?
# stderr says once why there are no stall figures, and nothing else
expect user-plain-run test $rc -eq 0 -a "$(grep -c 'pf+0w' "$TMP/out")" -eq 1 -a \
	"$(grep -vc '^thrashtop: n/a stalls: delay accounting needs root' "$TMP/err")" -eq 0 -a \
	"$(wc -l <"$TMP/err")" -eq 1
as_nobody "$T" -b --no-history -- sh -c 'sleep 0.5 & wait' >"$TMP/out" 2>"$TMP/err"; rc=$?
expect user-command-run test $rc -eq 0 -a "$(grep -c 'pf+0w' "$TMP/out")" -eq 1
# The monitor's s key as a normal user: one line on the status, no change.
tm new-session -d -s "$S" -x 80 -y 24 "setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_CONFIG_HOME=/nonexistent $T -n 30000000 -p 1 --no-history -L safety-user; sleep 30"
expect user-monitor-up wait_for 10 bash -c "tm capture-pane -p -t $S | grep -q 'major faults'"
tm send-keys -t "$S" s
expect user-s-needs-root wait_for 5 bash -c "tm capture-pane -p -t $S | grep -q 'vm.swappiness (needs root)'"
expect user-s-no-change test "$(cat /proc/sys/vm/swappiness)" = "$sw0"
# q, and the monitor gone before its pane is: a hang-up in the middle of
# the sanitizer build's exit leak check left it spinning as nobody
pid=$(pgrep -o -f "^$T .*-L safety-user")
tm send-keys -t "$S" q
expect user-monitor-quits wait_for 30 gone "${pid:-0}"
gone "${pid:-0}" || kill_now "$pid"
end_session "$S"
