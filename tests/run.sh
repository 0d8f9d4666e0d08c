#!/usr/bin/env bash
# Runs the unit tests and every end-to-end test, then prints one summary line.
# Usage: tests/run.sh [PATTERN]   (PATTERN filters e2e scripts by name)
set -u
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pat=${1:-}

run() {	# run LABEL TIMEOUT CMD...
	local label=$1 t=$2; shift 2
	local out rc
	out=$(timeout --kill-after=10 "$t" "$@" 2>&1); rc=$?
	printf '%s\n' "$out"
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL) ' >>"$log"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
		echo "FAIL $label: exited $rc"
		echo "FAIL $label: exited $rc" >>"$log"
	fi
}

[ -z "$pat" ] && run layers 60 tests/layers.sh
[ -z "$pat" ] && run unit 300 ./build/unit
[ -z "$pat" ] && run fuzz 300 tests/fuzz/run.sh 3
for t in tests/e2e/[0-9]*.sh; do
	[ -n "$pat" ] && [[ $t != *"$pat"* ]] && continue
	echo "== $t"
	run "$(basename "$t" .sh)" 300 bash "$t"
done
p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
if [ "$f" -ne 0 ]; then echo; echo "Failures:"; grep '^FAIL ' "$log"; fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
