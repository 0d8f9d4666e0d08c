#!/usr/bin/env bash
# Runs the unit tests and every end-to-end test, then prints one summary line.
# Usage: tests/run.sh [PATTERN]   (PATTERN filters e2e scripts by name)
#
# Two lanes run side by side: the scripts that change or press the whole
# machine (they take the e2e machine lock, see lib.sh), one after another,
# and the rest with the unit and fuzz tests. Each test's output is printed
# whole when it ends, with its time.
set -u
cd "$(dirname "$0")/.."
log=$(mktemp) lock=$(mktemp)
trap 'rm -f "$log" "$lock"' EXIT
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
		printf '%s\n' "$text" | grep -E '^(PASS|FAIL) ' >>"$log"
	} 8>>"$lock"
}

machine() { grep -q 'machine_lock\|thrashtop-e2e-tuning.lock' "$1"; }

lane() {	# lane machine|other
	local t
	for t in tests/e2e/[0-9]*.sh; do
		[ -n "$pat" ] && [[ $t != *"$pat"* ]] && continue
		if machine "$t"; then [ "$1" = machine ] || continue
		else [ "$1" = other ] || continue; fi
		run "$(basename "$t" .sh)" 300 bash "$t"
	done
}

t0=$SECONDS
(
	[ -z "$pat" ] && run layers 60 tests/layers.sh
	[ -z "$pat" ] && run unit 300 ./build/unit
	[ -z "$pat" ] && run fuzz 300 tests/fuzz/run.sh 3
	lane other
) &
lane machine
wait
p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
if [ "$f" -ne 0 ]; then echo; echo "Failures:"; grep '^FAIL ' "$log"; fi
echo "tests took $((SECONDS - t0)) s"
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
