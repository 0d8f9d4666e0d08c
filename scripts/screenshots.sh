#!/usr/bin/env bash
# Regenerates screenshots/*.png from real runs:
#   monitor-80x24, monitor-160x50: mid-run under a memory cgroup limit below
#     the workload with a temporary swap file;
#   chooser-100x30: the plot chooser (c) over that live monitor;
#   reclaim-160x50: a reclaim-heavy layout (--plots) under global pressure
#     (--global, a hugetlb pool leaving 1 GiB) with a temporary swap file;
#   against-160x50: the same workload at swappiness 100 with the run at 60
#     drawn faintly behind it (--against);
#   zram-160x50: the cgroup sort swapping to a zram device of its own, with
#     data that compresses (--swap zram:1G --fill=text).
#   stalls-160x50: why the run is slow, under global pressure: the workers'
#     stall columns (d), the stall and reclaim-event series, and the lane
#     of kswapd's awake time under the plots.
#   kernel-6.1-80x40, kernel-6.12-80x40: the same cgroup sort in two guests
#     at once (--kernel, TCG here), Debian 12's 6.1 and its 6.12, from the
#     kernel cache (make guest-kernels).
#   hosts-160x50: the cgroup sort at two boxes side by side on one screen
#     (--host lab1 --host lab2), each an sshd in a network namespace of
#     its own on this machine (tests/e2e/lib.sh's ssh_box), this thrashtop
#     their agent; their cgroups' and workers' figures.
# ONLY=NAME makes only the shots whose name has NAME.
# Needs root (for --mem, --global and --swap), tmux, python3-pil, and for
# the boxes ip, sshd and ssh; takes the
# tuning tests' machine lock so it never presses a machine they use.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "screenshots.sh: needs root for --mem, --global and --swap" >&2; exit 1; }
/usr/bin/python3 -c 'import PIL' 2>/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pil >/dev/null
make --no-print-directory thrashtop >/dev/null
exec 9>/tmp/thrashtop-e2e-tuning.lock
flock -w 600 9 || { echo "screenshots.sh: the tuning lock stayed taken for 10 min" >&2; exit 1; }
S=thrashtop-shot-$$
DB=$(mktemp -d /tmp/thrashtop-shot.XXXXXX)
# a server per shot: a new one on the socket of one just killed can fail
tm() { tmux -L "$S-$SHOT" -f /dev/null "$@"; }
SHOT=0
trap 'tm kill-server 2>/dev/null || true; for k in 6.1 6.12; do tmux -L "$S-k$k" kill-server 2>/dev/null || true; done
	rm -rf "$DB" "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S-$SHOT"' EXIT
export XDG_CONFIG_HOME=$DB	# the user's plots do not change the pictures
# the cgroup sort ends after about 12 s on a quiet machine: catch it mid-run
WAIT=${WAIT:-6}
CG="--mem 160M --swap 1G -n 45000000 -p 2 -d 0.25"
GLOBAL="--global 1G --swap 4G -m 800 -p 2 -d 0.25"
ZRAM="--mem 160M --swap zram:1G --fill=text -n 45000000 -p 2 -d 0.25"
STALLS=stall-swapin,stall-reclaim,stall-thrashing,stall-io,direct-stalls,direct-p99-ms,kswapd-awake,majflt,swap-used,throttled
RECLAIM=scan-kswapd,scan-direct,steal-kswapd,steal-direct,pswpout,pswpin,refault-anon,psi-some-rate,allocstall,psi-full-rate,kswapd-cpu,free

# shot COLS ROWS NAME KEYS ARGS...: starts the monitor with ARGS, waits,
# sends KEYS (none: ""), captures, quits.
shot() {
	local cols=$1 rows=$2 name=$3 keys=$4
	shift 4
	case $name in *"${ONLY:-}"*) ;; *) return 0 ;; esac
	SHOT=$((SHOT + 1))
	tm new-session -d -s main -x "$cols" -y "$rows" "exec ./thrashtop $*"
	sleep "$WAIT"
	for k in $keys; do	# one at a time, as typed
		tm send-keys -t main "$k"
		sleep 0.2
	done
	sleep 1
	tm capture-pane -e -p -t main >"$DB/$name.ans"
	tm send-keys -t main q
	sleep 0.5
	[ -z "$keys" ] || tm send-keys -t main q 2>/dev/null || true
	sleep 4
	tm kill-server 2>/dev/null || true
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S-$SHOT"
	/usr/bin/python3 scripts/ansi2png.py "$DB/$name.ans" "screenshots/$name.png" "$cols" "$rows"
	echo "screenshots/$name.png"
}
shot 80 24 monitor-80x24 "" --no-history $CG
shot 160 50 monitor-160x50 "" --no-history $CG
shot 100 30 chooser-100x30 "c Down Down Down Down Down Down Down Down Down Down Down Down Space" \
	--no-history $CG
shot 160 50 zram-160x50 "" --no-history $ZRAM
WAIT=12 shot 160 50 reclaim-160x50 "" --no-history --plots=$RECLAIM $GLOBAL
WAIT=14 shot 160 50 stalls-160x50 "d" --no-history --plots=$STALLS $GLOBAL
# two guests at once, each its own monitor: booted (15-25 s under TCG) and
# well into the run before both are taken
KERNEL_RUN="--no-history --boot-mem 512M --mem 48M --swap zram:256M -n 30000000 -p 2 -d 0.5"
case kernel in *"${ONLY:-}"*)
	for k in 6.1 6.12; do
		tmux -L "$S-k$k" -f /dev/null new-session -d -s main -x 80 -y 40 \
			"exec ./thrashtop --kernel $k $KERNEL_RUN"
	done
	sleep "${KWAIT:-50}"
	for k in 6.1 6.12; do
		tmux -L "$S-k$k" capture-pane -e -p -t main >"$DB/kernel-$k.ans"
		tmux -L "$S-k$k" send-keys -t main q
	done
	sleep 5
	for k in 6.1 6.12; do
		tmux -L "$S-k$k" kill-server 2>/dev/null || true
		rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$S-k$k"
		/usr/bin/python3 scripts/ansi2png.py "$DB/kernel-$k.ans" "screenshots/kernel-$k-80x40.png" 80 40
		echo "screenshots/kernel-$k-80x40.png"
	done ;;
esac
# two boxes, each with its own host name, in a subshell whose exit takes
# their namespaces and sshds away (lib.sh's cleanups)
case hosts in *"${ONLY:-}"*) (
	. tests/e2e/lib.sh
	ssh_setup
	ssh_box lab1 lab1 0
	ssh_box lab2 lab2 1
	ln -s "$ROOT/thrashtop" "$TMP/bin/thrashtop"
	# the workers' and the cgroups' figures are each box's own; the
	# system's, the one machine's
	WAIT=12 shot 160 50 hosts-160x50 "" --no-history --host lab1 --host lab2 \
		--plots=cg-swap,cg-majflt,cg-mem,stall-swapin,stall-reclaim,stall-thrashing,swap-used,majflt,cg-refault $CG
) ;;
esac
# the run at swappiness 60, kept; then 100 against it
case against in *"${ONLY:-}"*) ./thrashtop -b --history "$DB/h.db" -L swappiness-60 $GLOBAL >/dev/null
WAIT=20 shot 160 50 against-160x50 "" --history "$DB/h.db" --sysctl vm.swappiness=100 \
	--against 1 --plots=swap-used,majflt,free,scan-kswapd,available,scan-direct,kswapd-cpu,psi-some $GLOBAL ;;
esac
