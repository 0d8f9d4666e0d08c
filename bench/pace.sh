#!/usr/bin/env bash
# Whether the monitor keeps its pace when the machine thrashes: the monitor
# runs in a 200x60 tmux pane under global pressure (a hugetlb pool leaving
# ROOM_MIB of RAM, a swap file, a sort of PROCS x SORT_MIB), and the run's
# stored sample times are compared with the nominal interval: p50, p99 and
# max of the intervals between samples, as multiples of it, and the reclaim
# events the run took and lost. A session ends
# with its run, or with q after PACE_SECONDS (90), the run then kept as
# aborted with every sample taken so far.
# Usage: bench/pace.sh [NAME ROOM_MIB SWAP_GIB PROCS SORT_MIB INTERVAL]...
# (root; the defaults are two sessions, "moderate" and "hard"). It takes
# the tuning tests' machine lock, so it never presses a machine they use.
set -u
cd "$(dirname "$0")/.."
T=${THRASHTOP:-./thrashtop}
[ "$(id -u)" -eq 0 ] || { echo "pace: needs root (a hugetlb pool and a swap file)"; exit 0; }
[ -w /proc/sys/vm/nr_hugepages ] || { echo "pace: no hugetlb pool here"; exit 0; }
SECS=${PACE_SECONDS:-90}
exec 9>/tmp/thrashtop-e2e-tuning.lock
flock -w 600 9 || { echo "pace: the tuning tests' lock stayed taken for 10 min"; exit 1; }
TMP=$(mktemp -d /tmp/thrashtop-pace.XXXXXX)
# The user's own config file (a delay, plots) must not change what is measured.
export XDG_CONFIG_HOME=$TMP/config
SOCK=thrashtop-pace-$$
tm() { command tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP" "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"' EXIT

one() {	# one NAME ROOM_MIB SWAP_GIB PROCS SORT_MIB INTERVAL
	local name=$1 room=$2 swap=$3 procs=$4 mib=$5 iv=$6
	local hp total pages n db=$TMP/$1.db
	# free memory in pieces leaves the pool short (9,788 of 11,282 pages
	# here), and the session with gigabytes more room than it names
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory
	hp=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	total=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	pages=$(((total - room * 1024) / hp))
	n=$((mib * 1024 * 1024 / 4))
	local cmd="$T -n $n -p $procs -d $iv --swap ${swap}G --sysctl vm.nr_hugepages=$pages --history $db"
	echo "$name: $cmd"
	tm new-session -d -s "$name" -x 200 -y 60 "$cmd 2>$TMP/$name.err"
	local end=$((SECONDS + SECS))
	until [ -s "$db" ] && "$T" history list --history "$db" 2>/dev/null | grep -q '^ *1 '; do
		[ $SECONDS -ge $end ] && break
		tm has-session -t "$name" 2>/dev/null || { echo "$name: monitor ended: $(cat "$TMP/$name.err")"; break; }
		sleep 1
	done
	tm send-keys -t "$name" q
	while tm has-session -t "$name" 2>/dev/null && pgrep -f "^$T -n $n -p $procs" >/dev/null; do
		sleep 0.5
	done
	"$T" history export --format=json --history "$db" 2>/dev/null | python3 -c '
import json, sys
iv = float(sys.argv[1])
runs = json.load(sys.stdin)["runs"]
if not runs:
    sys.exit("  no run")
r = runs[0]
t = r["series"]["t"]
# the first and last intervals end at the start and the end of the run,
# off the tick schedule: only the ticks between count
d = sorted((b - a) / iv for a, b in zip(t[1:-2], t[2:-1]))
if not d:
    sys.exit("  too few samples")
q = lambda p: d[min(len(d) - 1, int(p * len(d)))]
wall, status, ksw, maj = r["wall_us"] / 1e6, r["status"], r["kswapd_s"], r["majflt"]
print(f"  {len(t)} samples over {wall:.1f} s ({status}), kswapd {ksw} s, majflt {maj}: "
      f"interval p50 {q(0.5):.2f}x  p99 {q(0.99):.2f}x  max {d[-1]:.2f}x nominal")
# reclaim events: every one taken, or the lost count shown
ev = [r.get("reclaim_" + k) for k in ("direct_stalls", "memcg_stalls", "kswapd_wakes", "lost")]
print("  reclaim events: %s direct stalls, %s memcg, %s kswapd wakes; lost %s" % tuple(ev))
# the kernel may find fewer huge pages than asked, and leave more room
left = (r["ram_kib"] - r["hugetlb_kib"]) // 1024
pool = r["sysctls"].strip()
print(f"  MemTotal less the pool: {left} MiB ({pool}, sized to leave {sys.argv[2]} MiB available)")
' "$iv" "$room"
}

if [ $# -eq 0 ]; then
	set -- moderate 1024 6 2 1536 0.25 hard 384 8 2 2048 0.1
fi
while [ $# -ge 6 ]; do
	one "$1" "$2" "$3" "$4" "$5" "$6"
	shift 6
done
