#!/usr/bin/env bash
# lane: other
# What an import writes, counted from its system calls (strace), never
# timed: 3,255 posted runs into a new history in a directory of its own
# (WAL) and in one others can write (a rollback journal). Each run costs
# a fraction of a page write, no file but the history's own is written (a
# statement journal in a temporary file, or a savepoint, wrote several
# pages a run), and nothing is synced for each run. The bounds are about
# twice what an import writes in one transaction; a run's insert that
# journals itself, or a transaction per run, passes them many times over.
# And on a file system that fills meanwhile, the import says as kept only
# the runs the history holds.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || { fail strace-missing "strace is not installed (make check-deps)"; exit 1; }

# csh time lines, three under each kernel's header, a kswapd line below
awk 'BEGIN {
	srand(1)
	for (i = 0; i < 1085; i++) {
		printf "Linux-2.4.%d-pre%d:\n", i % 20, i % 9 + 1
		for (r = 0; r < 3; r++) {
			u = int((60 + rand() * 20) * 1000) / 1000; s = int((5 + rand() * 5) * 1000) / 1000
			e = int((120 + rand() * 59) * 100) / 100
			printf "%.3fu %.3fs %d:%05.2f %.1f%% 0+0k 0+0io %dpf+0w\n", u, s,
				int(e / 60), e - 60 * int(e / 60), int((u + s) / e * 1000) / 10, 10000 + int(rand() * 10000)
		}
		printf "0:%02d kswapd\n\n", int(rand() * 60)
	}
}' >"$TMP/posted.txt"

# counted MODE DIR MAX_PWRITES_PER_RUN: imports into DIR/h.db under strace
counted() {
	local mode=$1 dir=$2 max=$3 runs
	# LeakSanitizer cannot work under ptrace
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -y -e trace=pwrite64,fsync,fdatasync,unlink \
		-o "$TMP/trace-$mode" "$T" history import --history="$dir/h.db" -L posted "$TMP/posted.txt" \
		>"$TMP/out" 2>/dev/null
	expect "$mode-imported" grep -qx "imported 3255 runs from $TMP/posted.txt (0 already present)" "$TMP/out"
	runs=$(sed -n 's/^imported \([0-9]*\) runs.*/\1/p' "$TMP/out")
	awk -v db="$dir/h.db" -v runs="${runs:-0}" '
		/ pwrite64\(/ {
			match($0, /<[^>]*>/); f = substr($0, RSTART + 1, RLENGTH - 2)
			calls++
			if (f != db && f != db "-wal" && f != db "-journal" && f != db "-shm") other[f]++
		}
		/ f(data)?sync\(/ { syncs++ }
		/ unlink\(/ { unl++ }
		END {
			printf "%d %d\n", calls, syncs
			printf "%d runs: %d pwrite64 (%.2f a run), %d fsync or fdatasync, %d unlink\n",
				runs, calls, runs ? calls / runs : 0, syncs, unl
			for (f in other) printf "other file: %s, %d pwrite64\n", f, other[f]
		}' "$TMP/trace-$mode" >"$TMP/counts-$mode"
	sed "1d; s/^/  $mode: /" "$TMP/counts-$mode"
	read -r calls syncs <"$TMP/counts-$mode"
	expect "$mode-pwrites-per-run-at-most-$max" \
		awk -v c="${calls:-0}" -v r="${runs:-0}" -v m="$max" 'BEGIN { exit !(r > 0 && c / r <= m) }'
	expect "$mode-no-other-file-written" bash -c "! grep -q '^other file' '$TMP/counts-$mode'"
	expect "$mode-no-sync-per-run" test "${syncs:-99999}" -le $((runs / 100))
}

mkdir -m 0700 "$TMP/own"
counted own "$TMP/own" 1.2
SH=$(mktemp -d /tmp/thrashtop-e2e-shared.XXXXXX)
chmod 1777 "$SH"
cleanup "rm -rf '$SH'"
counted shared "$SH" 0.5
expect shared-rollback-journal test ! -e "$SH/h.db-wal"

# The disk fills during the import: the runs it says are kept are those
# the history holds (a transaction that could not be written keeps none).
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$TMP/full"
	if mount -t tmpfs -o size=1m,mode=0700 tmpfs "$TMP/full"; then
		cleanup "umount '$TMP/full'"
		"$T" history import --history="$TMP/full/h.db" -L posted "$TMP/posted.txt" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		said=$(sed -n 's/.*stopped after \([0-9]*\) runs\{0,1\}, which.*/\1/p; s/.*; nothing imported$/0/p' "$TMP/err")
		held=0
		[ -e "$TMP/full/h.db" ] && held=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$TMP/full/h.db")
		echo "  full disk: exit $rc, said ${said:-nothing} kept, the history holds $held"
		sed 's/^/  stderr: /' "$TMP/err" | grep -v 'kswapd' | head -3
		expect full-disk-fails test "$rc" -ne 0
		expect full-disk-kept-as-said test "${said:-x}" = "$held"
	else
		skip full-disk "no tmpfs mount here"
	fi
else
	skip full-disk "needs root to mount a small file system"
fi
