# Sourced by every end-to-end test: pass, fail and skip print the lines
# tests/run.sh counts; cleanup hooks run on every exit path.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=${THRASHTOP:-$ROOT/build/thrashtop-san}
# Runs squeezed by a tight memory cgroup use the release build: ASan's shadow
# memory makes a worker's footprint bigger and harder to reclaim, and a v1
# cgroup OOM-killed the ASan build about half the time with swap still free
# (the release build: never, in the same set-up).
TP=${THRASHTOP_PRESSURE:-$ROOT/thrashtop}
NAME=$(basename "$0" .sh)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
TMP=$(mktemp -d "/tmp/thrashtop-$NAME.XXXXXX")
# The user's own config file (plots, delay) must not change what is tested.
export XDG_CONFIG_HOME=$TMP/config
CLEANUPS=()
# ours: the processes this test started, still running (they carry its
# XDG_CONFIG_HOME; the grep itself is gone when the list is read).
ours() {
	local p
	for p in $(grep -lsxzF "XDG_CONFIG_HOME=$TMP/config" /proc/[0-9]*/environ | cut -d/ -f3); do
		[ -d "/proc/$p" ] && echo "$p"
	done
}
on_exit() {
	local i p left
	for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${CLEANUPS[i]}" >/dev/null 2>&1; done
	# Nothing of this test may run on into the next: the sanitizer
	# build's leak check at exit can wait for ever on a helper task that
	# a hang-up killed, on a CPU.
	for i in $(seq 15); do left=$(ours); [ -z "$left" ] && break; sleep 0.2; done
	for p in $left; do
		echo "NOTE $NAME: pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-80)) outlived the test: killed"
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP
cleanup() { CLEANUPS+=("$*"); }
# no_err FILE: FILE says nothing but why a plain session has no stall
# figures (whether delay accounting is on depends on what other sessions
# on the machine run meanwhile).
STALLS_NA='^thrashtop: n/a stalls: kernel\.task_delayacct (is 0|was off during the run)'
no_err() { ! grep -Evq "$STALLS_NA" "$1"; }
# A result is one line of the log: a name that quotes output has its
# line breaks shown as " | ". A failure's evidence longer than fits one
# line (a whole screen) follows it, indented.
oneline() {
	local s=${1%$'\n'}
	s=${s//$'\n'/ | }
	printf '%s' "${s//$'\r'/}"
}
pass() { echo "PASS $NAME/$(oneline "$1")"; }
fail() {
	local why
	why=$(oneline "${2:-}")
	if [ ${#why} -le 200 ]; then
		echo "FAIL $NAME/$(oneline "$1")${why:+: $why}"
	else
		echo "FAIL $NAME/$(oneline "$1"): (below)"
		printf '%s\n' "$2" | sed 's/^/    /'
	fi
}
# skip WHY: the whole test not made here, and why; skip NAME WHY...: one
# check. A SKIP line, which tests/run.sh counts: every skip goes through it.
skip() {
	if [ $# -eq 1 ]; then
		echo "SKIP $NAME: $(oneline "$1")"
	else
		local n=$1; shift
		echo "SKIP $NAME/$(oneline "$n"): $(oneline "$*")"
	fi
}
# expect NAME COND-COMMAND... : pass if the command succeeds.
expect() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n" "$*"; fi; }
# Each test runs its own tmux server, as tmux's own regress tests do: a
# private socket and no configuration, so the user's server and
# ~/.tmux.conf are never touched. need_tmux keeps that server up for the
# whole test, then kills it and removes its socket at exit.
TMUX_SOCKET="thrashtop-$NAME-$$"
unset TMUX
tm() { command tmux -L "$TMUX_SOCKET" -f /dev/null "$@"; }
export TMUX_SOCKET
export -f tm
need_tmux() {
	command -v tmux >/dev/null || { fail tmux-missing; exit 1; }
	cleanup "tm kill-server; rm -f '${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TMUX_SOCKET'"
	# The server exits with its last session, and a session made just
	# then can find it dying: one that lasts the test keeps it up.
	tm new-session -d -s keep-server "sleep 3600"
	# A pane has the environment the server started with: the state
	# directory a test exports later is copied in for each new session
	# (without it, a thrashtop there would tune under the users' lock).
	tm set-option -ga update-environment THRASHTOP_STATE_DIR
}
# as_nobody CMD...: runs CMD as the user nobody, with a state directory and
# a configuration that a normal user cannot have ($TMP is root's alone).
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env THRASHTOP_STATE_DIR=/nonexistent XDG_CONFIG_HOME=/nonexistent "$@"
}
need_root() { [ "$(id -u)" -eq 0 ] || { skip "needs root"; exit 0; }; }
# alive PID: the process exists and has not exited. A process that has
# exited stays a zombie until its parent reaps it, and a tmux server can
# leave its pane's process unreaped: libutempter runs its helper with
# SIGCHLD at SIG_DFL, and a child that exits meanwhile signals nobody.
# Read without a fork: 21 asks it of 1024 workers at once.
alive() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}
gone() { ! alive "$1"; }
export -f alive gone
# wait_for SECONDS COMMAND...: poll until the command succeeds.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.2; done
}
# end_session S: kills tmux session S and waits (10 s at most a process)
# until what ran in its pane has exited: a thrashtop started next must not
# meet this one's teardown (its tuning lock, its delay accounting).
gone() { ! alive "$1"; }
end_session() {
	local pp p kids
	pp=$(tm display-message -p -t "$1" '#{pane_pid}' 2>/dev/null) || return 0
	[ -n "$pp" ] || { tm kill-session -t "$1" 2>/dev/null; return 0; }	# pane gone
	kids=$(pgrep -P "$pp")
	tm kill-session -t "$1" 2>/dev/null
	for p in $pp $kids; do wait_for 10 gone "$p"; done
	return 0
}
# quit_session SESSION: q to the thrashtop in its pane, that gone, then
# end_session. A hang-up that lands in a sanitizer build's exit (its leak
# check) can leave it spinning: a view is closed with its own key.
quit_session() {
	local pp p kids
	pp=$(tm display-message -p -t "$1" '#{pane_pid}' 2>/dev/null) || return 0
	kids=$(pgrep -P "$pp")
	tm send-keys -t "$1" q
	for p in $kids; do wait_for 10 gone "$p"; done
	end_session "$1"
}
# machine_lock SECONDS: the locks a test that changes or presses the whole
# machine takes, each waited for SECONDS at most. First the e2e machine
# lock, one such test at a time (another checkout's make check runs the
# same ones: they set the same sysctls and fill the same memory), held on
# fd 9 until exit or `exec 9>&-`; then users_lock. Fails with $BUSY saying
# why: 1 while another test held the machine, 2 while a user's session did.
machine_lock() {
	exec 9>/tmp/thrashtop-e2e-tuning.lock
	flock -w "$1" 9 || { BUSY="another tuning test held it for $1 s"; return 1; }
	users_lock "$1" || return 2
}
# need_machine_lock [SECONDS]: that (200 s by default), or the test ends:
# a failure while another test held the machine, a skip while a user's
# tuning session did.
need_machine_lock() {
	machine_lock "${1:-200}"
	case $? in
	1) fail machine-lock "$BUSY"; exit 1 ;;
	2) skip "$BUSY"; exit 0 ;;
	esac
}
# The tuning lock of the thrashtop sessions of this machine's users (their
# state directory's; each test gives its sessions a directory of their
# own). users_lock SECONDS: while a session of theirs holds it, a NOTE says
# so, and the test waits for it SECONDS at most; then the test holds it
# until it exits, so that none of theirs starts meanwhile (one with --wait
# queues behind the test). A session that outlasted one test's wait is not
# waited for again in the same tests/run.sh (THRASHTOP_E2E_WAITED lists
# it).
USERS_LOCK=${THRASHTOP_STATE_DIR:-/run/thrashtop}/session
users_lock() {
	local st=$TMP/users-lock helper line dead who said=
	# not on fd 9: `exec 9>&-` must let the e2e lock go
	python3 "$ROOT/tests/e2e/tuninglock.py" "$USERS_LOCK" "$1" >"$st" 2>&1 9>&- &
	helper=$!
	cleanup "kill $helper"
	while :; do
		dead=; alive "$helper" || dead=1
		line=$(tail -1 "$st")
		who="pid ${line#* } ($(cat "/proc/${line#* }/comm" 2>/dev/null))"
		case $line in
		held|none) return 0 ;;
		"busy "*)
			BUSY="$who was tuning this machine throughout a $1 s wait"
			[ -z "${THRASHTOP_E2E_WAITED:-}" ] || echo "${line#* }" >>"$THRASHTOP_E2E_WAITED"
			return 1 ;;
		"waiting "*)
			if grep -qsx -- "${line#* }" "${THRASHTOP_E2E_WAITED:-/dev/null}"; then
				kill_now "$helper"
				BUSY="$who is still tuning this machine (an earlier test waited for it)"
				return 1
			fi
			[ -n "$said" ] || echo "NOTE $NAME: waiting (at most $1 s) for $who, which is tuning this machine"
			said=1 ;;
		esac
		[ -z "$dead" ] || { fail users-lock "tuninglock.py ended: $(cat "$st")"; exit 1; }
		sleep 0.2
	done
}
# kill_now PID: SIGKILL a job of this shell and reap it, without bash's
# "Killed" line in the log.
kill_now() { { kill -KILL "$1" && wait "$1"; } 2>/dev/null; }
# started PID: a thrashtop this test started. kill_ours (a cleanup) kills
# only those, then a start undoes what they left (the state file is the
# test's own).
# joined REGEX FILE: the first line matching REGEX with the indented lines
# that continue it (a result line cut for a mail), on one line
joined() {
	awk -v re="$1" '!done && $0 ~ re { l = $0; on = 1; next }
		on && /^  / { sub(/^ +/, " "); l = l $0; next }
		on { on = 0; done = 1 } END { print l }' "$2"
}
started() { echo "$1" >>"$TMP/pids"; }
kill_ours() {
	local p
	for p in $(cat "$TMP/pids" 2>/dev/null); do
		case "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" in "$T "*|"$TP "*) kill -9 "$p" ;; esac
	done
	sleep 0.5
	"$T" -b -n 1000 -p 1 --no-history
}
# screen [SESSION]: the text of a tmux pane (default the session $S).
# has [SESSION] TEXT: TEXT is on it.
screen() { tm capture-pane -p -t "${1:-$S}"; }
has() {
	if [ $# -gt 1 ]; then screen "$1" | grep -q -- "$2"; else screen | grep -q -- "$1"; fi
}
# Boxes for --host on this machine: sshd in a network namespace of the
# test's own per box, reached over a veth pair, with a host name of its
# own (a UTS namespace), its host key and an authorized key made here.
# ssh_setup: the keys, /run/sshd (sshd's privilege separation directory,
# made if missing and removed after) and the client's config, given
# through $THRASHTOP_SSH as a user's ~/.ssh/config would be; $K holds
# them. ssh_box ALIAS NAME [I]: box I (0 to 3) named NAME, ALIAS to ssh,
# its agent's PATH $TMP/bin first, its state directory
# $TMP/state-ALIAS (a box is a machine of its own: its own tuning lock);
# BOX_NS[ALIAS] is its namespace, BOX_SSHD[ALIAS] its sshd and
# BOX_ADDR[ALIAS] its address. sshds
# ALIAS: sshd's own processes in it, the listener and one a connection.
# Needs root, ip, sshd and ssh (a test skips without them).
declare -A BOX_NS BOX_SSHD BOX_ADDR
ssh_setup() {
	command -v sshd >/dev/null || PATH=$PATH:/usr/sbin
	command -v sshd >/dev/null || { skip "no sshd (openssh-server)"; exit 0; }
	command -v ssh >/dev/null || { skip "no ssh (openssh-client)"; exit 0; }
	if [ ! -d /run/sshd ]; then
		mkdir -m 755 /run/sshd && cleanup "rmdir /run/sshd"
	fi
	K=$TMP/ssh
	mkdir -m 700 "$K" "$TMP/bin" "$TMP/rtmp"
	ssh-keygen -q -t ed25519 -N '' -f "$K/host" && ssh-keygen -q -t ed25519 -N '' -f "$K/user" ||
		{ fail keygen; exit 1; }
	cp "$K/user.pub" "$K/authorized_keys"
	cat >"$K/config" <<-EOC
	Host nobox
		HostName 127.0.0.1
		Port 1
	Host *
		IdentitiesOnly yes
		StrictHostKeyChecking no
		UserKnownHostsFile $K/known_hosts
		LogLevel ERROR
	EOC
	export THRASHTOP_SSH="ssh -F $K/config"
}
ssh_box() {
	local alias=$1 name=$2 i=${3:-0} ns n a b here box vh vb
	ns=thrashtop-$$-$alias
	# a /30 of 10.213/16 of this test's pid and the box's number
	n=$((($$ * 4 + i) % 16000)) a=$((n / 64)) b=$(((n % 64) * 4))
	here=10.213.$a.$((b + 1)) box=10.213.$a.$((b + 2))
	vh=tt${i}h$$ vb=tt${i}b$$
	ip netns add "$ns" || { fail "$alias-netns-add" "ip netns add $ns"; exit 1; }
	cleanup "ip netns del $ns"
	ip link add "$vh" type veth peer name "$vb" &&
		ip link set "$vb" netns "$ns" &&
		ip addr add "$here/30" dev "$vh" && ip link set "$vh" up &&
		ip -n "$ns" addr add "$box/30" dev "$vb" && ip -n "$ns" link set "$vb" up &&
		ip -n "$ns" link set lo up || { fail "$alias-veth" "the veth pair $vh/$vb"; exit 1; }
	cleanup "ip link del $vh"
	mkdir -p -m 700 "$TMP/state-$alias"
	cat >"$K/sshd-$alias" <<-EOC
	ListenAddress $box
	HostKey $K/host
	AuthorizedKeysFile $K/authorized_keys
	PidFile none
	StrictModes no
	UsePAM no
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	LogLevel ERROR
	SetEnv PATH=$TMP/bin:/usr/bin:/bin THRASHTOP_STATE_DIR=$TMP/state-$alias TMPDIR=$TMP/rtmp ASAN_OPTIONS=$ASAN_OPTIONS XDG_CONFIG_HOME=$TMP/config
	EOC
	printf 'Host %s\n\tHostName %s\n\tUser root\n\tIdentityFile %s\n' "$alias" "$box" "$K/user" |
		cat - "$K/config" >"$K/config.new" && mv "$K/config.new" "$K/config"
	# nsenter, not `ip netns exec`: that mounts a sysfs of its own,
	# without the cgroup hierarchies the agent's --mem needs
	nsenter --net="/run/netns/$ns" unshare --uts sh -c "hostname $name && exec $(command -v sshd) -D -e -f $K/sshd-$alias" \
		2>"$TMP/sshd-$alias.log" &
	BOX_NS[$alias]=$ns BOX_SSHD[$alias]=$! BOX_ADDR[$alias]=$box
	cleanup "kill ${BOX_SSHD[$alias]}"
	wait_for 10 $THRASHTOP_SSH -o BatchMode=yes "$alias" true 2>/dev/null ||
		{ fail "$alias-sshd-up" "$(cat "$TMP/sshd-$alias.log")"; exit 1; }
}
sshds() {
	local p
	for p in $(ip netns pids "${BOX_NS[$1]}"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = sshd ] && echo "$p"
	done
	return 0
}
