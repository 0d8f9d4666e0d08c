#!/usr/bin/env bash
# lane: confined
# Another host over ssh (--host): sshd in a network namespace of the
# test's own, reached over a veth pair, with a host name of its own (a UTS
# namespace), its host key and an authorized key made here. No thrashtop
# there, and no key: one line each. --host-copy runs this binary there
# and leaves nothing of it; with a thrashtop there, the stored run (place
# ssh, the box's host name, its series) is like a local run of the same
# options; the monitor names the place; sshd killed mid-run: the run kept
# as aborted, one line, and nothing left on either side (no agent, no
# cgroup, no undo state). Changes nothing but the namespace, the agent's
# own cgroup and /run/sshd (sshd's privilege separation directory, made
# if missing and removed after).
. "$(dirname "$0")/lib.sh"
need_root
command -v sshd >/dev/null || PATH=$PATH:/usr/sbin
command -v sshd >/dev/null || { skip "no sshd (openssh-server)"; exit 0; }
command -v ssh >/dev/null || { skip "no ssh (openssh-client)"; exit 0; }
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
CSH='^[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9]+:[0-9]{2}\.[0-9]{2} [0-9.]+% [0-9]+\+[0-9]+k [0-9]+\+[0-9]+io [0-9]+pf\+[0-9]+w$'
need_machine_lock 300
cleanup kill_ours

# The namespace and its sshd. The addresses: a /30 of 10.213/16 of this
# test's own pid.
NS=thrashtop-82-$$
n=$(($$ % 16000)) ; a=$((n / 64)) b=$(((n % 64) * 4))
HERE=10.213.$a.$((b + 1)) BOX=10.213.$a.$((b + 2))
VH=tt82h$$ VB=tt82b$$
BOXNAME=tt-box-$$
ip netns add "$NS" || { fail netns-add "ip netns add $NS"; exit 1; }
cleanup "ip netns del $NS"
ip link add "$VH" type veth peer name "$VB" &&
	ip link set "$VB" netns "$NS" &&
	ip addr add "$HERE/30" dev "$VH" && ip link set "$VH" up &&
	ip -n "$NS" addr add "$BOX/30" dev "$VB" && ip -n "$NS" link set "$VB" up &&
	ip -n "$NS" link set lo up || { fail veth "the veth pair $VH/$VB"; exit 1; }
cleanup "ip link del $VH"
if [ ! -d /run/sshd ]; then
	mkdir -m 755 /run/sshd && cleanup "rmdir /run/sshd"
fi
K=$TMP/ssh
mkdir -m 700 "$K" "$TMP/bin" "$TMP/rtmp" "$THRASHTOP_STATE_DIR"
ssh-keygen -q -t ed25519 -N '' -f "$K/host" && ssh-keygen -q -t ed25519 -N '' -f "$K/user" ||
	{ fail keygen; exit 1; }
cp "$K/user.pub" "$K/authorized_keys"
cat >"$K/sshd_config" <<EOF
ListenAddress $BOX
HostKey $K/host
AuthorizedKeysFile $K/authorized_keys
PidFile none
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
SetEnv PATH=$TMP/bin:/usr/bin:/bin THRASHTOP_STATE_DIR=$THRASHTOP_STATE_DIR TMPDIR=$TMP/rtmp ASAN_OPTIONS=$ASAN_OPTIONS XDG_CONFIG_HOME=$TMP/config
EOF
# the client's: what a user's ~/.ssh/config would say, given through
# $THRASHTOP_SSH
cat >"$K/config" <<EOF
Host box
	HostName $BOX
	User root
	IdentityFile $K/user
Host *
	IdentitiesOnly yes
	StrictHostKeyChecking no
	UserKnownHostsFile $K/known_hosts
	LogLevel ERROR
EOF
export THRASHTOP_SSH="ssh -F $K/config"
ip netns exec "$NS" unshare --uts sh -c "hostname $BOXNAME && exec $(command -v sshd) -D -e -f $K/sshd_config" \
	2>"$TMP/sshd.log" &
sshd_pid=$!
cleanup "kill $sshd_pid"
# sshd's own processes in the namespace: the listener, one per connection
sshds() { for p in $(ip netns pids "$NS"); do [ "$(cat /proc/$p/comm 2>/dev/null)" = sshd ] && echo "$p"; done; }
up() { $THRASHTOP_SSH -o BatchMode=yes box true 2>/dev/null; }
wait_for 10 up || { fail sshd-up "$(cat "$TMP/sshd.log")"; exit 1; }
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
