#!/usr/bin/env bash
# lane: confined
# --wait: while a user's tuning session (a sysctl set, its command running)
# holds the machine, a second tuning session is refused in one line, exit
# 2; with --wait=2 it is refused the same after about 2 s, having said
# once whom it waited for; a signal while it waits ends it with nothing
# changed; with --wait it starts once the first has ended, in batch mode
# and in the monitor, whose screen comes only then. Afterwards the
# swappiness is as it was and no record is left.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
need_tmux
export THRASHTOP_STATE_DIR=$TMP/state
sw0=$(cat /proc/sys/vm/swappiness)
sw1=$([ "$sw0" = 61 ] && echo 62 || echo 61)
sw2=$([ "$sw0" = 63 ] && echo 64 || echo 63)
cleanup "echo $sw0 >/proc/sys/vm/swappiness"
cleanup kill_ours
S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"
swappiness() { [ "$(cat /proc/sys/vm/swappiness)" = "$1" ]; }
ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
WAITING="thrashtop: waiting for thrashtop pid"
# Each step writes files of its own: a wait for a line of one must not
# find the step before's.

# user_session: the user's session, tuning until $TMP/go-on is removed
user_session() {
	touch "$TMP/go-on"
	"$T" -b --no-history --sysctl vm.swappiness="$sw1" -- \
		sh -c "while [ -e '$TMP/go-on' ]; do sleep 0.1; done" >"$TMP/user.out" 2>"$TMP/user.err" &
	user=$!
	started $user
	wait_for 20 swappiness "$sw1"
}
expect user-set-up user_session

# Without --wait: refused at once.
"$T" -b -n 1000 -p 1 --no-history --sysctl vm.swappiness="$sw2" >"$TMP/out1" 2>"$TMP/err1"; rc=$?
expect refused-exit-2 test $rc -eq 2
expect "refused-one-line[$(cat "$TMP/err1")]" test "$(wc -l <"$TMP/err1")" -eq 1
expect refused-names-the-first grep -q "another thrashtop (pid $user) is tuning this machine" "$TMP/err1"
expect refused-nothing-changed swappiness "$sw1"

# --wait=2: the same, after about 2 s, having said whom it waited for.
t0=$(ms)
"$T" -b -n 1000 -p 1 --no-history --wait=2 --sysctl vm.swappiness="$sw2" >"$TMP/out2" 2>"$TMP/err2"; rc=$?
took=$(($(ms) - t0))
expect wait2-exit-2 test $rc -eq 2
expect "wait2-took-2s[$took ms]" test $took -ge 2000 -a $took -lt 10000
expect "wait2-said-once[$(cat "$TMP/err2")]" test "$(grep -c "^$WAITING $user, which is tuning this machine\$" "$TMP/err2")" -eq 1
expect wait2-then-refused grep -q "another thrashtop (pid $user) is tuning this machine: one tuning session at a time" "$TMP/err2"
expect wait2-two-lines test "$(wc -l <"$TMP/err2")" -eq 2
expect wait2-nothing-changed swappiness "$sw1"

# A signal while it waits: nothing changed, the signal's exit status.
"$T" -b -n 1000 -p 1 --no-history --wait --mem 64M --sysctl vm.swappiness="$sw2" >"$TMP/out3" 2>"$TMP/err3" &
w=$!
started $w
expect sigterm-waits wait_for 20 grep -q "^$WAITING $user," "$TMP/err3"
kill -TERM $w
wait $w; rc=$?
expect sigterm-exit-143 test $rc -eq 143
expect "sigterm-says-so[$(cat "$TMP/err3")]" grep -q "stopped waiting for thrashtop pid $user: nothing was changed" "$TMP/err3"
expect sigterm-nothing-changed swappiness "$sw1"
expect sigterm-no-cgroup test ! -e "/sys/fs/cgroup/memory/thrashtop-$w" -a ! -e "/sys/fs/cgroup/thrashtop-$w"
expect sigterm-nothing-recorded bash -c "! grep -qs '^$w ' '$THRASHTOP_STATE_DIR/state'"

# --wait: it starts once the user's session has ended, with its own value.
"$T" -b --no-history --wait --sysctl vm.swappiness="$sw2" -- cat /proc/sys/vm/swappiness \
	>"$TMP/out4" 2>"$TMP/err4" &
w=$!
started $w
expect queued-waits wait_for 20 grep -q "^$WAITING $user," "$TMP/err4"
sleep 1
expect queued-still-waiting alive $w
expect queued-nothing-changed-yet swappiness "$sw1"
rm "$TMP/go-on"
wait $user; rc=$?
expect user-exit-0 test $rc -eq 0
wait $w; rc=$?
expect "queued-runs[$(cat "$TMP/err4")]" test $rc -eq 0
expect "queued-ran-with-its-value[$(head -1 "$TMP/out4")]" test "$(head -1 "$TMP/out4")" = "$sw2"
expect queued-said-once test "$(grep -c "$WAITING" "$TMP/err4")" -eq 1
expect queued-restored swappiness "$sw0"

# The monitor: it says so on the terminal, and its screen comes once the
# user's session has ended.
expect user-set-up-again user_session
tm new-session -d -s "$S" -x 100 -y 30 \
	"$T --wait -n 30000000 -p 1 --no-history --sysctl vm.swappiness=$sw2 -L wait-monitor; sleep 30"
expect monitor-waits wait_for 20 has "$WAITING $user"
expect monitor-no-screen-yet bash -c "! tm capture-pane -p -t $S | grep -q 'major faults'"
rm "$TMP/go-on"
wait $user
expect monitor-starts wait_for 20 has 'major faults'
expect monitor-sets-its-value wait_for 10 swappiness "$sw2"
quit_session "$S"
expect restored swappiness "$sw0"
expect no-record-left bash -c "! grep -qs . '$THRASHTOP_STATE_DIR/state'"
