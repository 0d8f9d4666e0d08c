#!/usr/bin/env bash
# Runs each fuzz target for SECONDS from its seed corpus (tests/fuzz/corpus/
# TARGET; what it finds new goes to build/fuzz/corpus/TARGET) and prints
# PASS fuzz/TARGET or FAIL fuzz/TARGET with the fuzzer's report.
# With -s RUNS (make check) it tries RUNS inputs from the seeds alone with
# one fixed seed and no corpus reloads, and keeps nothing it finds: close
# to the same inputs every run (what a parser reads of the machine can
# steer the rest), so the check judges the code rather than a random seed's
# luck (make fuzz explores), and no corpus grows by thousands a run.
# Usage: tests/fuzz/run.sh SECONDS [TARGET...] | -s RUNS [TARGET...]
set -u
cd "$(dirname "$0")/../.."
seeds_only=false
[ "${1:-}" = -s ] && { seeds_only=true; shift; }
n=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...] | -s RUNS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for b in build/fuzz/fuzz_*; do
		[ -x "$b" ] && [[ $b != *.o ]] && targets+=("${b#build/fuzz/fuzz_}")
	done
fi
[ ${#targets[@]} -eq 0 ] && { echo "SKIP fuzz: no targets built (needs clang)"; exit 0; }
rc=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
	work=build/fuzz/corpus/$t
	budget=(-max_total_time="$n")
	$seeds_only && { work=$scratch/$t; budget=(-seed=1 -runs="$n" -reload=0); }
	mkdir -p "$work"
	out=$(nice -n 19 "build/fuzz/fuzz_$t" "${budget[@]}" -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 \
		-artifact_prefix="build/fuzz/$t-" "$work" "tests/fuzz/corpus/$t" 2>&1)
	if [ $? -eq 0 ]; then
		runs=$(printf '%s\n' "$out" | sed -n 's/^stat::number_of_executed_units: *//p')
		secs=$(printf '%s\n' "$out" | sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p')
		echo "PASS fuzz/$t (${runs:-?} inputs in ${secs:-$n}s)"
	else
		echo "FAIL fuzz/$t: the fuzzer's report follows"
		printf '%s\n' "$out" | grep -v '^#' | tail -40
		rc=1
	fi
done
exit $rc
