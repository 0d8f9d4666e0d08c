#!/usr/bin/env bash
# Fault fidelity: major faults of one sorter against qsbench 0.93 under the
# same memory cgroup limit and swap, in alternating runs: build/sortbench
# (the sorter alone) and a worker of ./thrashtop -b (the sorter as the
# monitor forks it). Prints medians and a two-sided Mann-Whitney rank test
# of each against qsbench (normal approximation with tie correction).
# Needs root (a v1 or v2 memory cgroup and a swap file), both undone on
# every exit path.
# Environment: N (elements, 30000000), SEED (140175100), K (runs each, 10),
# LIMIT (cgroup limit, 96M), SWAP (swap file size, 512M), CC, OPT,
# QSBENCH_SRC (qsbench.c in the repo's sibling shared/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

N=${N:-30000000}
SEED=${SEED:-140175100}
K=${K:-10}
LIMIT=${LIMIT:-96M}
SWAP=${SWAP:-512M}
CC=${CC:-gcc}
OPT=${OPT:-"-O2 -g"}
QSBENCH_SRC=${QSBENCH_SRC:-$ROOT/../shared/qsbench/qsbench.c}
TIME=/usr/bin/time

die() { echo "bench/faults.sh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "fault fidelity: skipped (needs root for a cgroup and swap)"; exit 0; }
[[ $K =~ ^[0-9]+$ && $K -ge 2 ]] || die "K must be an integer >= 2, got '$K'"
[ -r "$QSBENCH_SRC" ] || die "cannot read qsbench source '$QSBENCH_SRC' (set QSBENCH_SRC)"
[ -x "$TIME" ] || die "$TIME not found (apt-get install time)"
[ -x ./thrashtop ] || die "build ./thrashtop first (make)"

mkdir -p build
# shellcheck disable=SC2086 # OPT is a list of flags
"$CC" $OPT -o build/qsbench-ref "$QSBENCH_SRC" || die "cannot build $QSBENCH_SRC"
# shellcheck disable=SC2086
"$CC" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude $OPT -o build/sortbench \
	bench/sortbench.c src/sorter.c || die "cannot build build/sortbench"

SWAPFILE=/tmp/thrashtop-bench-swap-$$
CG=
tfile=$(mktemp)
cleanup() {
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		rmdir "$CG" 2>/dev/null || true
	fi
	if [ -e "$SWAPFILE" ]; then
		swapoff "$SWAPFILE" 2>/dev/null || true
		rm -f "$SWAPFILE"
	fi
	rm -f "$tfile"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if [ -w /sys/fs/cgroup/unified/cgroup.subtree_control ] &&
   grep -qw memory /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/unified/thrashtop-bench-$$
	mkdir "$CG"
	echo "$LIMIT" >"$CG/memory.max"
elif [ -d /sys/fs/cgroup/memory ]; then
	CG=/sys/fs/cgroup/memory/thrashtop-bench-$$
	mkdir "$CG"
	echo "$LIMIT" >"$CG/memory.limit_in_bytes"
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/thrashtop-bench-$$
	mkdir "$CG"
	echo "$LIMIT" >"$CG/memory.max"
else
	die "no memory cgroup controller"
fi
fallocate -l "$SWAP" "$SWAPFILE"
chmod 600 "$SWAPFILE"
mkswap "$SWAPFILE" >/dev/null
swapon "$SWAPFILE"

# run NAME CMD...: the command alone in the cgroup; appends its major faults.
ref=() ours=() mon=()
run() {
	local name=$1; shift
	CG="$CG" "$TIME" -f '%e %F %R' -o "$tfile" \
		sh -c 'echo $$ >"$CG/cgroup.procs" && exec "$@"' sh "$@" ||
		die "$* failed (exit $?)"
	read -r wall maj min <"$tfile"
	if [ "$name" = ref ]; then ref+=("$maj"); else ours+=("$maj"); fi
	printf '  run %-9s wall %6.2f s  major %6d\n' "$name" "$wall" "$maj"
}

# A worker of the real monitor: thrashtop puts it in a cgroup of its own
# with the same limit (the monitor stays outside, as qsbench's parent
# would); its faults come from the result line, wait4's rusage.
run_thrashtop() {
	local out maj
	out=$(./thrashtop -b --no-history --mem "$LIMIT" -p 1 -n "$N" -s "$SEED" 2>/dev/null) ||
		die "thrashtop -b --mem $LIMIT failed"
	maj=$(printf '%s\n' "$out" | sed -n '1s/.* \([0-9]*\)pf+.*/\1/p')
	[ -n "$maj" ] || die "no major faults in thrashtop's line '$out'"
	mon+=("$maj")
	printf '  run %-9s %19s major %6d\n' thrashtop "" "$maj"
}

# mw NAME A B: medians of lists A and B (space-separated) and a two-sided
# Mann-Whitney test of B against A.
mw() {
	awk -v name="$1" -v a="$2" -v b="$3" '
	function median(v, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	BEGIN {
		na = split(a, va, " "); nb = split(b, vb, " "); N = na + nb
		for (i = 1; i <= na; i++) { x[i] = va[i] + 0; g[i] = 0 }
		for (i = 1; i <= nb; i++) { x[na + i] = vb[i] + 0; g[na + i] = 1 }
		for (i = 2; i <= N; i++) {	# sort x, carrying g
			t = x[i]; h = g[i]
			for (j = i - 1; j >= 1 && x[j] > t; j--) { x[j + 1] = x[j]; g[j + 1] = g[j] }
			x[j + 1] = t; g[j + 1] = h
		}
		for (i = 1; i <= N; i = j) {	# average ranks over ties
			for (j = i; j <= N && x[j] == x[i]; j++) ;
			t = j - i; tie += t * t * t - t
			for (k = i; k < j; k++) rank[k] = (i + j - 1) / 2
		}
		for (i = 1; i <= N; i++) if (g[i]) rb += rank[i]
		U = rb - nb * (nb + 1) / 2
		mu = na * nb / 2
		sd = sqrt(na * nb / 12 * ((N + 1) - tie / (N * (N - 1))))
		cc = U > mu ? 0.5 : (U < mu ? -0.5 : 0)
		z = sd > 0 ? (U - mu - cc) / sd : 0
		az = z < 0 ? -z : z
		# two-sided normal tail (Abramowitz-Stegun 7.1.26)
		t = 1 / (1 + 0.3275911 * az / sqrt(2))
		p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * exp(-az * az / 2)
		ma = median(va, na); mb = median(vb, nb)
		printf "%-10s %6.0f against qsbench %6.0f (ratio %.3f, %d runs each): Mann-Whitney U = %.1f, z = %.2f, p = %.3f, %s\n",
			name, mb, ma, (ma > 0 ? mb / ma : 0), nb, U, z, p,
			(p < 0.05 ? "a real difference at 5%" : "no difference shown at 5%")
	}'
}

echo "fault fidelity: major faults at -n $N -s $SEED, $K alternating runs each, memory cgroup $LIMIT, swap $SWAP (vm.swappiness $(cat /proc/sys/vm/swappiness), page-cluster $(cat /proc/sys/vm/page-cluster))"
for ((k = 0; k < K; k++)); do
	run ref build/qsbench-ref -n "$N" -p 1 -s "$SEED"
	run sortbench build/sortbench "$N" "$SEED"
	run_thrashtop
done
mw sortbench "${ref[*]}" "${ours[*]}"
mw thrashtop "${ref[*]}" "${mon[*]}"
