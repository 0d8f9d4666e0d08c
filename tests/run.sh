#!/usr/bin/env bash
# Runs the unit tests and every end-to-end test, then prints one summary
# line, `N passed, N failed, N skipped`.
# Usage: tests/run.sh [PATTERN]   (PATTERN filters e2e scripts by name)
#
# The scripts are tests/e2e/NN-name.sh, numbered by family, a decade each:
# 1x batch mode, 2x the monitor, 3x the history, 4x tuning, 5x the series
# (sampled, stored, plotted), 6x asciicast recordings, 7x install and the
# documentation.
#
# Each script says on its second line which lane it runs in, and run.sh
# reads that line alone (a script without one is refused before any
# test runs):
#   # lane: confined   it takes the e2e machine lock (lib.sh) to change or
#                      press the machine, but not the whole of it (a
#                      cgroup of its own, a sysctl)
#   # lane: whole      it takes that lock and presses or changes the whole
#                      machine (--global, 1024 workers, zswap: it changes
#                      every session's default plots)
#   # lane: other      it changes nothing and takes no machine lock
# The unit tests, which take that lock too for those of the tuning
# primitives, then the confined scripts run one after another in a lane
# (in two, each would wait for the other's lock) beside the other
# compiler's build and the fuzz tests, and the other scripts are taken
# from one queue by whichever lane is free first. The whole ones come
# last, alone: beside them the other lane would be timing the squeeze, or
# seeing their settings, not its own. Each test's output is printed whole
# when it ends, with its time.
set -u
cd "$(dirname "$0")/.."
log=$(mktemp) lock=$(mktemp) queue=$(mktemp)
# the users' tuning sessions that outlasted a test's wait (lib.sh)
THRASHTOP_E2E_WAITED=$(mktemp)
export THRASHTOP_E2E_WAITED
trap 'rm -f "$log" "$lock" "$queue" "$THRASHTOP_E2E_WAITED"' EXIT
pat=${1:-}

run() {	# run LABEL TIMEOUT CMD...
	local label=$1 t=$2; shift 2
	local text rc t0=$SECONDS
	text=$(timeout --kill-after=10 "$t" "$@" 2>&1); rc=$?
	if [ $rc -ne 0 ] && ! printf '%s\n' "$text" | grep -q '^FAIL '; then
		text+=$'\n'"FAIL $label: exited $rc"
	fi
	{
		flock 8
		printf '== %s (%d s)\n%s\n' "$label" $((SECONDS - t0)) "$text"
		printf '%s\n' "$text" | grep -E '^(PASS|FAIL|SKIP) ' >>"$log"
	} 8>>"$lock"
}

kind() {	# kind SCRIPT: the lane its second line declares
	sed -n '2s/^# lane: \(confined\|whole\|other\)$/\1/p' "$1"
}
bad=0
for t in tests/e2e/[0-9]*.sh; do
	[ -n "$(kind "$t")" ] && continue
	echo "run.sh: $t: line 2 must declare its lane: '# lane: confined'," \
		"'# lane: whole' or '# lane: other' (see the top of tests/run.sh)" >&2
	bad=1
done
[ $bad -eq 0 ] || exit 2

lane() {	# lane confined|whole
	local t
	for t in tests/e2e/[0-9]*.sh; do
		[ -n "$pat" ] && [[ $t != *"$pat"* ]] && continue
		[ "$(kind "$t")" = "$1" ] && run "$(basename "$t" .sh)" 300 bash "$t"
	done
}

for t in tests/e2e/[0-9]*.sh; do
	[ -n "$pat" ] && [[ $t != *"$pat"* ]] && continue
	[ "$(kind "$t")" = other ] && echo "$t" >>"$queue"
done
others() {	# the other scripts, each taken from the queue once
	local t
	while :; do
		t=$({ flock 9; head -1 "$queue"; sed -i 1d "$queue"; } 9>>"$lock")
		[ -n "$t" ] || break
		run "$(basename "$t" .sh)" 300 bash "$t"
	done
}

t0=$SECONDS
(
	[ -z "$pat" ] && run layers 60 tests/layers.sh
	[ -z "$pat" ] && run docs 60 tests/docs.sh
	# builds the scripts do not need, made here beside them
	[ -z "$pat" ] && run other-cc 600 make -s --no-print-directory -j"$(nproc)" other-cc
	[ -z "$pat" ] && run fuzz 600 sh -c "make -s --no-print-directory -j$(nproc) fuzz-build && tests/fuzz/run.sh -s 15000"
	others
) &
[ -z "$pat" ] && run unit 300 ./build/unit
lane confined
others
wait
lane whole
# Nothing a test started outlives the run: a sanitizer build left running
# (orphaned, spinning) is a test's failure to clean up, killed here.
if [ -z "$pat" ]; then
	left=$(pgrep -a -f "^$PWD/build/thrashtop-san( |$)")
	if [ -n "$left" ]; then
		printf '%s\n' "$left" | sed 's/^/  left: /'
		echo "FAIL run/nothing-left-running" >>"$log"
		pkill -KILL -f "^$PWD/build/thrashtop-san( |$)"
	else
		echo "PASS run/nothing-left-running" >>"$log"
	fi
fi
p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
# what was not checked is listed too: a run with skips is not all green
if [ "$s" -ne 0 ]; then echo; echo "Skipped:"; grep '^SKIP ' "$log"; fi
if [ "$f" -ne 0 ]; then echo; echo "Failures:"; grep '^FAIL ' "$log"; fi
echo "tests took $((SECONDS - t0)) s"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
