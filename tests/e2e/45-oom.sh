#!/usr/bin/env bash
# lane: whole
# A command's OOM kills are seen though the command itself exits 0: its
# child is killed, under --mem by the cgroup's OOM killer, and without a
# cgroup under --global by the machine's. The child mlocks what it
# touches, so no swap (another checkout's either) can take it and the kill
# is certain; each time the run prints the kernel's victim as the seeds
# printed a sorter's, is stored as oom and exits 1.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
[ -r /dev/kmsg ] || { skip "/dev/kmsg cannot be read to name the victim"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
cleanup kill_ours
# eat.sh MiB: the child writes its pid, waits two sampling intervals (so
# that a tick sees it in the command's tree too: without a cgroup a kill is
# matched to the run by its pid), is made the OOM killer's first choice,
# locks and touches MiB; the parent says how the child ended and exits 0.
cat >"$TMP/eat.sh" <<EOF2
#!/bin/bash
python3 -c '
import ctypes, os, time
open("$TMP/child", "w").write(str(os.getpid()))
time.sleep(2)
open("/proc/self/oom_score_adj", "w").write("1000")
if ctypes.CDLL(None).mlockall(3) != 0:
    raise SystemExit("mlockall failed")
b = bytearray(int(__import__("sys").argv[1]) << 20)
' "\$1"
echo "child status \$?"
exit 0
EOF2
chmod +x "$TMP/eat.sh"
# check NAME: the run's output in $TMP/out, status in rc, run ID in the history
check() {
	local child
	child=$(cat "$TMP/child" 2>/dev/null)
	expect "$1-child-killed" grep -qx 'child status 137' "$TMP/out"
	expect "$1-oom-line" grep -qx "Out of Memory: Killed process ${child:-x} (python3)." "$TMP/out"
	expect "$1-exit-1" test "$rc" -eq 1
	expect "$1-stored-oom" grep -Eqx 'status +oom' <("$T" history --history "$DB" show "$2")
	# the victim is kept with the run: shown, and in its time export as
	# the batch printed it
	expect "$1-stored-victim" grep -Eqx "victim +${child:-x} \(python3\)" \
		<("$T" history --history "$DB" show "$2")
	expect "$1-time-victim" grep -qx "Out of Memory: Killed process ${child:-x} (python3)." \
		<("$T" history --history "$DB" export "$2" --format=time)
	grep -q '^Out of Memory' "$TMP/out" || sed 's/^/  stdout: /' "$TMP/out"
}

"$T" -b --mem 64M --history "$DB" -- "$TMP/eat.sh" 200 >"$TMP/out" 2>"$TMP/err" &
echo $! >>"$TMP/pids"
wait $!; rc=$?
check mem 1
# a time export imported keeps the victim with its run
"$T" history --history "$DB" export 1 --format=time >"$TMP/time.txt"
"$T" history --history "$TMP/posted.db" import "$TMP/time.txt" >/dev/null 2>&1
expect mem-posted-victim grep -Eqx "victim +$(cat "$TMP/child" 2>/dev/null || echo x) \(python3\)" \
	<("$T" history --history "$TMP/posted.db" show 1)

# Whether a run's cgroup was new is kept with it: the first run of a
# session's cgroup, then one that reuses it.
"$T" -b -r 2 --mem 64M -n 1000 -p 1 --history "$DB" >"$TMP/out" 2>"$TMP/err"
expect cgroup-new-first grep -Eqx 'cgroup_new +1' <("$T" history --history "$DB" show 2)
expect cgroup-reused-then grep -Eqx 'cgroup_new +0' <("$T" history --history "$DB" show 3)

# The monitor marks the kill with a K in the lane under its plots (the row
# above the workers' header): live while the kill is in view, in the ?
# list's legend, and in the stored run's replay.
# lane SESSION: that row of the pane
lane() { screen "$1" | awk '/^ +PID S PHASE/ { print prev; exit } { prev = $0 }'; }
# lane_kill SESSION: a K among the lane's marks
lane_kill() { lane "$1" | grep -Eq '^[ =T━]*K[ =T━K]*$'; }
g=4	# the global run's ID
if [ -d /sys/kernel/tracing ]; then
	g=5
	need_tmux
	S=oom-lane
	tm new-session -d -s $S -x 100 -y 30 \
		"$T --mem 64M --history $DB -L oom-lane -- $TMP/eat.sh 200 2>$TMP/err-lane; sleep 60"
	expect lane-kill-live wait_for 30 lane_kill $S
	lane_kill $S || { screen $S | sed 's/^/  screen: /'; sed 's/^/  stderr: /' "$TMP/err-lane"; }
	tm send-keys -t $S '?'
	expect lane-legend wait_for 10 has $S 'K         OOM kill'
	expect lane-legend-heading has $S 'marks in the event lane'
	tm send-keys -t $S '?'
	wait_for 10 bash -c "! tm capture-pane -p -t $S | grep -q 'marks in the event lane'"
	tm send-keys -t $S q
	pid=$(pgrep -o -f "^$T .*-L oom-lane")
	expect lane-monitor-exits wait_for 20 gone "${pid:-0}"
	end_session $S
	expect lane-run-stored-oom grep -Eqx 'status +oom' <("$T" history --history "$DB" show 4)
	S=oom-replay
	tm new-session -d -s $S -x 100 -y 30 "$T --history $DB history replay 4 --speed 4; sleep 60"
	expect lane-kill-replayed wait_for 30 lane_kill $S
	lane_kill $S || screen $S | sed 's/^/  screen: /'
	quit_session $S
else
	echo "  (no tracefs: the lane part is left out)"
fi

# A victim no tick saw: a plain session (no cgroup of its own to match the
# kill by) at -d 60, whose command's child is killed within a second in a
# cgroup the test made. The kernel reported the child's fork; the run is
# the kill's.
if [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/thrashtop-test-oom-$$
	cleanup "rmdir $CG"
	mkdir "$CG" && echo 64M >"$CG/memory.limit_in_bytes"
	"$T" -b -d 60 --history "$TMP/quick.db" -- sh -c "echo \$\$ >$CG/cgroup.procs; python3 -c '
import ctypes, os
open(\"$TMP/child\", \"w\").write(str(os.getpid()))
open(\"/proc/self/oom_score_adj\", \"w\").write(\"1000\")
ctypes.CDLL(None).mlockall(3)
b = bytearray(200 << 20)'; echo child status \$?" >"$TMP/out" 2>"$TMP/err" &
	echo $! >>"$TMP/pids"
	wait $!; rc=$?
	DB=$TMP/quick.db check unseen 1
	grep -q '^Out of Memory' "$TMP/out" || sed 's/^/  stderr: /' "$TMP/err"
else
	echo "  (no v1 memory controller: the unseen victim is left out)"
fi

hp_kib=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
[ -n "$hp_kib" ] && [ -w /proc/sys/vm/nr_hugepages ] ||
	{ skip global "no hugetlb pool to take memory with"; exit 0; }
nr0=$(cat /proc/sys/vm/nr_hugepages)
cleanup "echo $nr0 >/proc/sys/vm/nr_hugepages"
# What the machine uses now and about 1.3 GiB more is left (thrashtop keeps
# 512 MiB of MemAvailable); the child locks 4 GiB more than that.
total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
avail_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
size_kib=$(((total_kib - avail_kib + 1331200) / 1024 * 1024))
"$T" -b --global "${size_kib}K" --history "$DB" -- "$TMP/eat.sh" 5400 >"$TMP/out" 2>"$TMP/err" &
echo $! >>"$TMP/pids"
wait $!; rc=$?
check global "$g"
expect cgroup-none grep -Eqx 'cgroup_new +n/a' <("$T" history --history "$DB" show "$g")
expect global-pool-given-back test "$(cat /proc/sys/vm/nr_hugepages)" -eq "$nr0"
