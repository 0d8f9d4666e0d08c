#!/usr/bin/env bash
# Runs each fuzz target for SECONDS from its seed corpus (tests/fuzz/corpus/
# TARGET; what it finds new goes to build/fuzz/corpus/TARGET) and prints
# PASS fuzz/TARGET or FAIL fuzz/TARGET with the fuzzer's report.
# With -s (make check) it starts from the seeds alone and keeps nothing it
# finds: libFuzzer runs every input of the corpus before the clock starts,
# and a corpus kept across runs grows by thousands a run.
# Usage: tests/fuzz/run.sh [-s] SECONDS [TARGET...]
set -u
cd "$(dirname "$0")/../.."
seeds_only=false
[ "${1:-}" = -s ] && { seeds_only=true; shift; }
secs=${1:?usage: tests/fuzz/run.sh [-s] SECONDS [TARGET...]}
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
	$seeds_only && work=$scratch/$t
	mkdir -p "$work"
	out=$(nice -n 19 "build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 \
		-artifact_prefix="build/fuzz/$t-" "$work" "tests/fuzz/corpus/$t" 2>&1)
	if [ $? -eq 0 ]; then
		runs=$(printf '%s\n' "$out" | sed -n 's/^stat::number_of_executed_units: *//p')
		echo "PASS fuzz/$t (${runs:-?} inputs in ${secs}s)"
	else
		echo "FAIL fuzz/$t: the fuzzer's report follows"
		printf '%s\n' "$out" | grep -v '^#' | tail -40
		rc=1
	fi
done
exit $rc
