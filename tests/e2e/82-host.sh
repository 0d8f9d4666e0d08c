#!/usr/bin/env bash
# lane: confined
# Another host over ssh (--host): sshd in a network namespace of the
# test's own, reached over a veth pair, with a host name of its own (a UTS
# namespace), its host key and an authorized key made here. No thrashtop
# there, and no key: one line each. --host-copy runs this binary there
# and leaves nothing of it; with a thrashtop there, the stored run (place
# ssh, the box's host name, its series) is like a local run of the same
# options; a sweep over two boxes, one unreachable, keeps the other's run;
# the monitor names the place; sshd killed mid-run: the run kept
# as aborted, one line, and nothing left on either side (no agent, no
# cgroup, no undo state). Changes nothing but the namespace, the agent's
# own cgroup and /run/sshd (lib.sh's ssh_box).
. "$(dirname "$0")/lib.sh"
need_root
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
CSH='^[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9]+:[0-9]{2}\.[0-9]{2} [0-9.]+% [0-9]+\+[0-9]+k [0-9]+\+[0-9]+io [0-9]+pf\+[0-9]+w$'
need_machine_lock 300
cleanup kill_ours
mkdir -m 700 "$THRASHTOP_STATE_DIR"

# The box and its sshd (lib.sh), reached as "box"; "nobox" is a port
# nothing listens on.
BOXNAME=tt-box-$$
ssh_setup
ssh_box box "$BOXNAME"
NS=${BOX_NS[box]} sshd_pid=${BOX_SSHD[box]} BOX=${BOX_ADDR[box]}
expect "box-has-its-own-name[$($THRASHTOP_SSH box hostname)]" test "$($THRASHTOP_SSH box hostname)" = "$BOXNAME"

# No thrashtop there: one line naming this one's version.
"$T" -b --no-history --host box -n 1000 -p 1 >"$TMP/none" 2>&1
rc=$?
expect "no-thrashtop-one-line[$rc: $(cat "$TMP/none")]" test "$rc" = 2 -a "$(wc -l <"$TMP/none")" = 1
expect "no-thrashtop-said" grep -q "^thrashtop: --host box: no thrashtop there (.*): this is thrashtop $("$T" --version | awk '{print $2}'); .*--host-copy" "$TMP/none"
# No key: ssh's own reason, no prompt (stdin is a terminal-less pipe anyway)
THRASHTOP_SSH="ssh -F $K/config -o IdentityFile=/nonexistent" \
	"$T" -b --no-history --host "root@$BOX" -n 1000 -p 1 >"$TMP/nokey" 2>&1 </dev/null
rc=$?
expect "no-key-one-line[$rc: $(cat "$TMP/nokey")]" test "$rc" = 2 -a "$(wc -l <"$TMP/nokey")" = 1
expect "no-key-is-sshs-reason" grep -q "^thrashtop: --host root@$BOX: ssh: .*Permission denied (publickey)" "$TMP/nokey"

# --host-copy: this binary runs there, and nothing of it is left.
"$T" -b --history "$TMP/h.db" -L copied --host box --host-copy -n 2000000 -p 2 >"$TMP/copy" 2>"$TMP/copy-err"
rc=$?
expect "copy-exit[$rc: $(tr '\n' ' ' <"$TMP/copy-err")]" test "$rc" = 0
expect "copy-time-line[$(head -1 "$TMP/copy")]" grep -qE "$CSH" "$TMP/copy"
expect "copy-nothing-left[$(ls "$TMP/rtmp")]" test -z "$(ls -A "$TMP/rtmp")"

# A thrashtop there: the run stored as the box's, like a local run's.
ln -s "$T" "$TMP/bin/thrashtop"
"$T" -b --history "$TMP/h.db" -L local -n 2000000 -p 2 >"$TMP/local" 2>"$TMP/local-err"
"$T" -b --history "$TMP/h.db" -L there --host box -n 2000000 -p 2 >"$TMP/there" 2>"$TMP/there-err"
rc=$?
expect "host-exit[$rc: $(tr '\n' ' ' <"$TMP/there-err")]" test "$rc" = 0
expect "host-time-line[$(head -1 "$TMP/there")]" grep -qE "$CSH" "$TMP/there"
expect "host-lines-as-local[$(sed -E 's/[0-9.:]+/N/g' "$TMP/there" | tr '\n' '|') vs $(sed -E 's/[0-9.:]+/N/g' "$TMP/local" | tr '\n' '|')]" \
	test "$(sed -E 's/[0-9.:]+/N/g' "$TMP/there")" = "$(sed -E 's/[0-9.:]+/N/g' "$TMP/local")"
id_of() { "$T" history --history "$TMP/h.db" list -L "$1" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ { print $1 }' | tail -1; }
"$T" history --history "$TMP/h.db" show "$(id_of there)" >"$TMP/show-there" 2>&1
"$T" history --history "$TMP/h.db" show "$(id_of local)" >"$TMP/show-local" 2>&1
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$2"; }
expect "stored-place[$(field place "$TMP/show-there")]" test "$(field place "$TMP/show-there")" = ssh
expect "stored-hostname-is-the-boxs[$(field hostname "$TMP/show-there")]" \
	test "$(field hostname "$TMP/show-there")" = "$BOXNAME"
expect "stored-status[$(field status "$TMP/show-there")]" test "$(field status "$TMP/show-there")" = ok
for f in majflt minflt maxrss_kib kswapd_s mem_free_min_kib ram_kib swappiness kernel_release; do
	v=$(field $f "$TMP/show-there") l=$(field $f "$TMP/show-local")
	expect "stored-$f-as-local[$v vs $l]" test -n "$v" -a "${v#n/a}" = "$v" -a "${l#n/a}" = "$l"
done
nplots() { grep -c ', whole machine during run' "$1"; }
expect "stored-series-as-local[$(nplots "$TMP/show-there") plots vs $(nplots "$TMP/show-local")]" \
	test "$(nplots "$TMP/show-there")" -ge 3 -a "$(nplots "$TMP/show-there")" = "$(nplots "$TMP/show-local")"

# A sweep over boxes: one that cannot be reached costs its own runs only.
"$T" -b --history "$TMP/h.db" -L swept --sweep host=nobox,box -n 1000000 -p 1 >"$TMP/sweep" 2>"$TMP/sweep-err"
rc=$?
expect "sweep-bad-box-said[$rc: $(tr '\n' '|' <"$TMP/sweep-err")]" grep -q "^thrashtop: --host nobox: ssh: .*refused" "$TMP/sweep-err"
expect "sweep-box-ran[$(tr '\n' '|' <"$TMP/sweep")]" grep -qE "$CSH" "$TMP/sweep"
n=$("$T" history --history "$TMP/h.db" list -L swept 2>/dev/null | grep -c "$BOXNAME")
expect "sweep-box-stored[$n]" test "$n" = 1

# The monitor at 80x24 names the box and the place.
need_tmux
S="thrashtop-e2e-host-$$"
cleanup "tm kill-session -t $S"
tm new-session -d -s "$S" -x 80 -y 24 \
	"THRASHTOP_SSH='$THRASHTOP_SSH' $T --no-history --host box -n 100000000 -p 2 -d 0.5; sleep 30"
expect "monitor-names-the-place[$(screen | head -1)]" wait_for 20 has "$S" "$BOXNAME.* ssh"
tm send-keys -t "$S" q
wait_for 10 has "$S" "0:00 kswapd" >/dev/null
end_session "$S"

# sshd killed mid-run: the run kept as aborted, one line, nothing left.
"$T" -b --history "$TMP/h.db" -L killed --host box -n 50000000 -p 2 --mem 1G >"$TMP/killed" 2>"$TMP/killed-err" &
host=$!
started "$host"
cg_of() { ls -d /sys/fs/cgroup/memory/thrashtop-"$1" /sys/fs/cgroup/thrashtop-"$1" 2>/dev/null; }
# the agent: of the processes named so in the namespace (it and its
# workers), the one whose cgroup it is
agent_pid() {
	local p
	for p in $(ip netns pids "$NS"); do
		[ "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" = "thrashtop agent " ] &&
			[ -n "$(cg_of "$p")" ] && echo "$p"
	done
	return 0
}
sorting() { local a; a=$(agent_pid) && [ -n "$a" ] && [ -n "$(cat "$(cg_of "$a")/cgroup.procs" 2>/dev/null)" ]; }
if expect killed-set-up wait_for 30 sorting; then
	ag=$(agent_pid); cg=$(cg_of "$ag"); workers=$(cat "$cg/cgroup.procs")
	sleep 1
	kill -9 $(sshds box)
	wait "$sshd_pid" 2>/dev/null
	wait "$host"; rc=$?
	said=$(grep -v "at the agent's place" "$TMP/killed-err")
	expect "killed-exit-one-line[$rc: $said]" test "$rc" != 0 -a "$(wc -l <<<"$said")" = 1
	expect "killed-line-is-sshs" grep -q "^thrashtop: --host box: ssh: " <<<"$said"
	undone() { gone "$ag" && [ ! -e "$cg" ]; }
	expect "killed-agent-and-cgroup-gone[agent $ag, $cg]" wait_for 30 undone
	left=; for w in $workers; do alive "$w" && left="$left $w"; done
	expect "killed-workers-gone[$left]" test -z "$left"
	expect "killed-state-empty" test ! -s "$TMP/state-box/state"
	"$T" history --history "$TMP/h.db" show "$(id_of killed)" >"$TMP/show-killed" 2>&1
	expect "killed-kept-aborted[$(field status "$TMP/show-killed")]" test "$(field status "$TMP/show-killed")" = aborted
	expect "killed-kept-its-series[$(nplots "$TMP/show-killed") plots]" test "$(nplots "$TMP/show-killed")" -ge 3
	here=$(pgrep -f "ssh -F $K/config")
	expect "killed-no-ssh-left[$here]" test -z "$here"
fi
