#!/usr/bin/env bash
# Compares one sorter worker (build/sortbench) with qsbench 0.93 (build/qsbench-ref),
# both built with the release compiler and flags, in alternating runs.
# Prints median wall and median CPU (user+sys) of each and their ratio; exits 1
# if the CPU ratio ours/ref is outside 0.98..1.02.
# Environment: N (elements, default 20000000), SEED (1), K (runs each, 5),
# CC (gcc), OPT (-O2 -g), QSBENCH_SRC (qsbench.c in the repo's sibling shared/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

N=${N:-20000000}
SEED=${SEED:-1}
K=${K:-5}
CC=${CC:-gcc}
OPT=${OPT:-"-O2 -g"}
QSBENCH_SRC=${QSBENCH_SRC:-$ROOT/../shared/qsbench/qsbench.c}
TIME=/usr/bin/time

die() { echo "bench/sort.sh: $*" >&2; exit 1; }
[[ $N =~ ^[0-9]+$ && $N -ge 1 && $N -le 2147483647 ]] || die "N must be 1..2147483647 (qsbench takes an int), got '$N'"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a non-negative integer, got '$SEED'"
[[ $K =~ ^[0-9]+$ && $K -ge 1 ]] || die "K must be a positive integer, got '$K'"
[ -r "$QSBENCH_SRC" ] || die "cannot read qsbench source '$QSBENCH_SRC' (set QSBENCH_SRC)"
[ -x "$TIME" ] || die "$TIME not found (apt-get install time)"

mkdir -p build
# shellcheck disable=SC2086 # OPT is a list of flags
"$CC" $OPT -o build/qsbench-ref "$QSBENCH_SRC" || die "cannot build $QSBENCH_SRC"
# shellcheck disable=SC2086
"$CC" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2 \
	-Iinclude $OPT -o build/sortbench bench/sortbench.c src/sorter.c ||
	die "cannot build build/sortbench"

tfile=$(mktemp)
trap 'rm -f "$tfile"' EXIT

# run NAME CMD...: appends "wall cpu" to the NAME list.
ref_wall=() ref_cpu=() our_wall=() our_cpu=()
run() {
	local name=$1; shift
	"$TIME" -f '%e %U %S' -o "$tfile" "$@" || die "$* failed (exit $?)"
	read -r wall user sys <"$tfile"
	local cpu
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	if [ "$name" = ref ]; then ref_wall+=("$wall"); ref_cpu+=("$cpu")
	else our_wall+=("$wall"); our_cpu+=("$cpu"); fi
	printf '  run %-4s wall %6.2f s  cpu %6.2f s\n' "$name" "$wall" "$cpu"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "sort bench: N=$N SEED=$SEED K=$K CC=$CC OPT='$OPT'"
read -r load1 _ </proc/loadavg
echo "load average $load1 before the runs (other work on the machine inflates CPU time too)"
for ((k = 0; k < K; k++)); do
	run ref build/qsbench-ref -n "$N" -p 1 -s "$SEED"
	run ours build/sortbench "$N" "$SEED"
done

rw=$(median "${ref_wall[@]}"); rc=$(median "${ref_cpu[@]}")
ow=$(median "${our_wall[@]}"); oc=$(median "${our_cpu[@]}")
awk -v rw="$rw" -v rc="$rc" -v ow="$ow" -v oc="$oc" 'BEGIN {
	printf "%-12s %10s %10s\n", "", "wall s", "cpu s"
	printf "%-12s %10.2f %10.2f\n", "qsbench-ref", rw, rc
	printf "%-12s %10.2f %10.2f\n", "sortbench", ow, oc
	printf "%-12s %10.3f %10.3f\n", "ours/ref", (rw > 0 ? ow / rw : 0), (rc > 0 ? oc / rc : 0)
	ok = rc > 0 && oc / rc >= 0.98 && oc / rc <= 1.02
	printf "cpu ratio %s 0.98..1.02\n", ok ? "within" : "OUTSIDE"
	exit !ok
}'
