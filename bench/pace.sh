#!/usr/bin/env bash
# Whether the monitor keeps its pace when the machine thrashes: the monitor
# runs in a 200x60 tmux pane under global pressure (a hugetlb pool leaving
# ROOM_MIB of RAM, a swap file, a sort of PROCS x SORT_MIB), and the run's
# stored sample times are compared with the nominal interval: p50, p99 and
# max of the intervals between samples, as multiples of it.
# Usage: bench/pace.sh [NAME ROOM_MIB SWAP_GIB PROCS SORT_MIB INTERVAL]...
# (root; the defaults are two sessions, "moderate" and "hard").
set -u
cd "$(dirname "$0")/.."
T=${THRASHTOP:-./thrashtop}
[ "$(id -u)" -eq 0 ] || { echo "pace: needs root (a hugetlb pool and a swap file)"; exit 0; }
[ -w /proc/sys/vm/nr_hugepages ] || { echo "pace: no hugetlb pool here"; exit 0; }
TMP=$(mktemp -d /tmp/thrashtop-pace.XXXXXX)
SOCK=thrashtop-pace-$$
tm() { command tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$TMP"' EXIT

one() {	# one NAME ROOM_MIB SWAP_GIB PROCS SORT_MIB INTERVAL
	local name=$1 room=$2 swap=$3 procs=$4 mib=$5 iv=$6
	local hp total pages n db=$TMP/$1.db
	hp=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	total=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	pages=$(((total - room * 1024) / hp))
	n=$((mib * 1024 * 1024 / 4))
	local cmd="$T -n $n -p $procs -d $iv --swap ${swap}G --sysctl vm.nr_hugepages=$pages --history $db"
	echo "$name: $cmd"
	tm new-session -d -s "$name" -x 200 -y 60 "$cmd 2>$TMP/$name.err"
	local end=$((SECONDS + 900))
	until [ -s "$db" ] && "$T" history list --history "$db" 2>/dev/null | grep -q '^ *1 '; do
		[ $SECONDS -ge $end ] && { echo "$name: no run stored in 900 s"; break; }
		tm has-session -t "$name" 2>/dev/null || { echo "$name: monitor ended: $(cat "$TMP/$name.err")"; break; }
		sleep 1
	done
	tm send-keys -t "$name" q
	sleep 2
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
print(f"  {len(t)} samples over {r[\"wall_us\"] / 1e6:.1f} s, kswapd {r[\"kswapd_s\"]} s, "
      f"majflt {r[\"majflt\"]}: interval p50 {q(0.5):.2f}x  p99 {q(0.99):.2f}x  max {d[-1]:.2f}x nominal")
' "$iv"
}

if [ $# -eq 0 ]; then
	set -- moderate 1024 6 2 1536 0.25 hard 384 8 2 2048 0.1
fi
while [ $# -ge 6 ]; do
	one "$1" "$2" "$3" "$4" "$5" "$6"
	shift 6
done
