#!/usr/bin/env bash
# Fault fidelity: one sorter against qsbench 0.93 under the same memory
# cgroup limit and swap, in alternating runs: build/sortbench (the sorter
# alone) and a worker of ./thrashtop -b --mem (the sorter as the monitor
# forks it). Every run on every side gets a new cgroup of its own, made
# before it and removed after it, as thrashtop -b --mem makes one per
# session: a reused cgroup OOM-killed qsbench in none of 14 runs where new
# ones did in 3 of 8, so a different lifecycle would compare cgroups, not
# sorters. OOM kills are counted apart (from the cgroup's own count, which
# sees qsbench's child too; thrashtop's from its OOM line) and compared with
# Fisher's exact test (two-sided); major faults of the completed runs with
# a two-sided Mann-Whitney rank test (normal approximation with tie
# correction). Needs root (memory cgroups and a swap file), both undone on
# every exit path.
# K is 20 runs a side: at the kill rate measured with new cgroups (3 of 8),
# 20 runs expect 7 or 8 kills, and 7 of 20 against 0 of 20 is p = 0.008;
# at 12 a side the expected 4 against 0 is only p = 0.09, and the faults
# test needs 8 or more completed runs a side left after the kills.
# Environment: N (elements, 30000000), SEED (140175100), K (runs each, 20),
# LIMIT (cgroup limit, 96M), SWAP (swap file size, 512M), CC, OPT,
# QSBENCH_SRC (qsbench.c in the repo's sibling shared/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

N=${N:-30000000}
SEED=${SEED:-140175100}
K=${K:-20}
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
		for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
		sleep 0.2
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
	CGBASE=/sys/fs/cgroup/unified CGV=2
elif [ -d /sys/fs/cgroup/memory ]; then
	CGBASE=/sys/fs/cgroup/memory CGV=1
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CGBASE=/sys/fs/cgroup CGV=2
else
	die "no memory cgroup controller"
fi
# cg_new: a new cgroup with the limit in CG; cg_kills: its OOM kills;
# cg_drop: removes it.
ncg=0
cg_new() {
	ncg=$((ncg + 1))
	CG=$CGBASE/thrashtop-bench-$$-$ncg
	mkdir "$CG"
	if [ $CGV = 2 ]; then echo "$LIMIT" >"$CG/memory.max"; else echo "$LIMIT" >"$CG/memory.limit_in_bytes"; fi
}
cg_kills() {
	if [ $CGV = 2 ]; then awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events"
	else awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control"; fi
}
cg_drop() {
	local i
	for ((i = 0; i < 50; i++)); do rmdir "$CG" 2>/dev/null && break; sleep 0.1; done
	[ ! -d "$CG" ] || die "cannot remove $CG"
	CG=
}
fallocate -l "$SWAP" "$SWAPFILE"
chmod 600 "$SWAPFILE"
mkswap "$SWAPFILE" >/dev/null
swapon "$SWAPFILE"

# Per side: the major faults of its completed runs, and its kills.
ref=() ours=() mon=()
kref=0 kours=0 kmon=0
# run NAME CMD...: the command alone in a new cgroup.
run() {
	local name=$1 kills; shift
	cg_new
	CG="$CG" "$TIME" -f '%e %F %R' -o "$tfile" \
		sh -c 'echo $$ >"$CG/cgroup.procs" && exec "$@"' sh "$@" >/dev/null 2>&1 || true
	kills=$(cg_kills)
	cg_drop
	read -r wall maj min <"$tfile" || true
	if [ "${kills:-0}" -gt 0 ]; then
		if [ "$name" = ref ]; then kref=$((kref + 1)); else kours=$((kours + 1)); fi
		printf '  run %-9s OOM-killed (%s kill(s) in its cgroup)\n' "$name" "$kills"
		return
	fi
	if [ "$name" = ref ]; then ref+=("$maj"); else ours+=("$maj"); fi
	printf '  run %-9s wall %6.2f s  major %6d\n' "$name" "$wall" "$maj"
}

# A worker of the real monitor: thrashtop -b --mem makes a new cgroup for
# its session with the same limit (the monitor stays outside, as qsbench's
# parent would); its faults come from the result line, wait4's rusage.
run_thrashtop() {
	local out maj
	out=$(./thrashtop -b --no-history --mem "$LIMIT" -p 1 -n "$N" -s "$SEED" 2>/dev/null) || true
	if grep -q '^Out of Memory: Killed process' <<<"$out"; then
		kmon=$((kmon + 1))
		printf '  run %-9s OOM-killed (%s)\n' thrashtop "$(grep -m1 '^Out of Memory' <<<"$out")"
		return
	fi
	maj=$(printf '%s\n' "$out" | sed -n '1s/.* \([0-9]*\)pf+.*/\1/p')
	[ -n "$maj" ] || die "no major faults in thrashtop's line '$out'"
	mon+=("$maj")
	printf '  run %-9s %19s major %6d\n' thrashtop "" "$maj"
}

# fisher NAME KA KB: kills KA of K (qsbench) against KB of K, two-sided.
fisher() {
	awk -v name="$1" -v ka="$2" -v kb="$3" -v n="$K" '
	function lc(m, k,   i, s) { s = 0; for (i = 1; i <= k; i++) s += log(m - k + i) - log(i); return s }
	BEGIN {
		t = ka + kb; lo = t > n ? t - n : 0; hi = t < n ? t : n
		seen = exp(lc(n, ka) + lc(n, kb) - lc(2 * n, t))
		for (x = lo; x <= hi; x++) {
			px = exp(lc(n, x) + lc(n, t - x) - lc(2 * n, t))
			if (px <= seen * (1 + 1e-7)) p += px
		}
		printf "%-10s OOM-killed %d of %d against qsbench %d of %d: Fisher p = %.3f, %s\n",
			name, kb, n, ka, n, (p > 1 ? 1 : p),
			(p < 0.05 ? "a real difference at 5%" : "no difference shown at 5%")
	}'
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
		printf "%-10s median major faults %6.0f against qsbench %6.0f (ratio %.3f, %d and %d completed runs): Mann-Whitney U = %.1f, z = %.2f, p = %.3f, %s\n",
			name, mb, ma, (ma > 0 ? mb / ma : 0), nb, na, U, z, p,
			(p < 0.05 ? "a real difference at 5%" : "no difference shown at 5%")
	}'
}

echo "fault fidelity: OOM kills and major faults at -n $N -s $SEED, $K alternating runs each, a new memory cgroup of $LIMIT per run, swap $SWAP (vm.swappiness $(cat /proc/sys/vm/swappiness), page-cluster $(cat /proc/sys/vm/page-cluster))"
for ((k = 0; k < K; k++)); do
	run ref build/qsbench-ref -n "$N" -p 1 -s "$SEED"
	run sortbench build/sortbench "$N" "$SEED"
	run_thrashtop
done
fisher sortbench $kref $kours
fisher thrashtop $kref $kmon
if [ ${#ref[@]} -ge 2 ] && [ ${#ours[@]} -ge 2 ]; then mw sortbench "${ref[*]}" "${ours[*]}"; fi
if [ ${#ref[@]} -ge 2 ] && [ ${#mon[@]} -ge 2 ]; then mw thrashtop "${ref[*]}" "${mon[*]}"; fi
