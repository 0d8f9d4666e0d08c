#!/usr/bin/env bash
# History timings at RUNS runs (10,000; BENCH_BIG=1 for 1,000,000). The
# database grows as a user's would: a few real runs with their sampled
# series, then copied (every table, series included) with fresh uuids,
# earlier start times, and labels cycling through NGROUPS groups. Each
# command is timed K times (median wall and CPU, largest max RSS; on a
# busy machine CPU is the steadier figure); exports also give their rate. Then the monitor's `h` is timed on a pseudo-terminal,
# and the import of IMPORT_MB of posted lines.
# Environment: RUNS, NGROUPS (20), K (3), IMPORT_MB (50), KEEP (a database
# to keep and reuse between runs, none by default).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
if [ "${BENCH_BIG:-0}" = 1 ]; then RUNS=${RUNS:-1000000}; else RUNS=${RUNS:-10000}; fi
NGROUPS=${NGROUPS:-20}
K=${K:-3}
IMPORT_MB=${IMPORT_MB:-50}
TIME=/usr/bin/time

die() { echo "bench/history.sh: $*" >&2; exit 1; }
[ -x ./thrashtop ] || die "build ./thrashtop first (make)"
command -v sqlite3 >/dev/null || die "sqlite3 is not installed (make bench installs it)"
[ -x build/firstframe ] || die "build build/firstframe first (make bench)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DB=${KEEP:-$TMP/history.db}

# child_cols TABLE OFF: its columns with run_id shifted by OFF.
child_cols() {
	sqlite3 "$DB" "SELECT group_concat(CASE name WHEN 'run_id' THEN 'run_id + $2' ELSE name END, ', ') FROM pragma_table_info('$1')"
}

grow() {
	local n m cols sel
	rm -f "$DB" "$DB-wal" "$DB-shm"
	./thrashtop -b -r 2 -p 2 -n 6000000 -d 0.05 -L seed-a --history "$DB" >/dev/null
	./thrashtop -b -r 2 -p 1 -n 8000000 -d 0.05 -L seed-b --history "$DB" >/dev/null
	cols=$(sqlite3 "$DB" "SELECT group_concat(name, ',') FROM pragma_table_info('runs')")
	# the copy's columns, in order: id, uuid, started_at, label, config, hash changed
	sel=$(printf '%s\n' "${cols//,/ }" | tr ' ' '\n' | awk -v G="$NGROUPS" -v q="'" '{
		k = "(id + @OFF@)"
		if ($1 == "id") c = k
		else if ($1 == "uuid") c = "lower(hex(randomblob(16)))"
		else if ($1 == "started_at") c = "strftime(" q "%Y-%m-%dT%H:%M:%SZ" q ", started_at, " q "-" q " || " k " || " q " minutes" q ")"
		else if ($1 == "label") c = q "g" q " || (" k " % " G ")"
		else if ($1 == "config") c = "replace(config, " q "label=" q " || label || char(10), " q "label=g" q " || (" k " % " G ") || char(10))"
		else if ($1 == "config_hash") c = "substr(config_hash, 1, 12) || printf(" q "%04x" q ", " k " % " G ")"
		else c = $1
		printf "%s%s", (NR > 1 ? ", " : ""), c
	}')
	# every table that hangs off a run, series and samples included
	children=$(sqlite3 "$DB" "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name <> 'runs' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id')")
	n=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
	while [ "$n" -lt "$RUNS" ]; do
		m=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
		{
			echo "BEGIN;"
			echo "INSERT INTO runs($cols) SELECT ${sel//@OFF@/$m} FROM runs WHERE id <= $RUNS - $n;"
			for t in $children; do
				echo "INSERT INTO $t SELECT $(child_cols "$t" "$m") FROM $t WHERE run_id <= $RUNS - $n;"
			done
			echo "COMMIT;"
		} | sqlite3 "$DB"
		n=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
	done
}

if [ -n "${KEEP:-}" ] && [ -f "$DB" ] && [ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" -ge "$RUNS" ]; then
	echo "history: reusing $DB"
else
	t0=$(date +%s.%N)
	grow
	echo "history: built $RUNS runs in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
fi
echo "history at $RUNS runs ($(sqlite3 "$DB" "SELECT count(DISTINCT config_hash) FROM runs") groups, $(sqlite3 "$DB" "SELECT count(*) FROM $(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE name IN ('samples', 'series') ORDER BY name LIMIT 1")") stored series, $(du -m "$DB" | cut -f1) MiB); median of $K, largest max RSS"
printf '%-34s %9s %8s %10s %12s %10s\n' command "wall ms" "cpu ms" "max RSS" "output" "MB/s"

# timed NAME ARGS...: thrashtop history ARGS against the database.
timed() {
	local name=$1; shift
	local walls=() cpus=() rss=0 bytes=0
	for ((k = 0; k < K; k++)); do
		"$TIME" -f '%e %U %S %M' -o "$TMP/t" ./thrashtop history --history="$DB" "$@" >"$TMP/out" 2>"$TMP/err" ||
			{ echo "  $name failed: $(head -c 300 "$TMP/err")"; return; }
		read -r w u s m <"$TMP/t"
		walls+=("$w")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
		[ "$m" -gt "$rss" ] && rss=$m
		bytes=$(stat -c %s "$TMP/out")
	done
	local c
	c=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	printf '%s\n' "${walls[@]}" | sort -g | awk -v n="$name" -v r="$rss" -v b="$bytes" -v c="$c" '
		{ v[NR] = $1 } END {
			w = v[int((NR + 1) / 2)]
			printf "%-34s %9.0f %8.0f %6.1f MiB %12d %10s\n", n, w * 1000, c * 1000, r / 1024, b,
				(w > 0 && b > 1e6 ? sprintf("%.0f", b / 1e6 / w) : "") }'
}

g1=$(sqlite3 "$DB" "SELECT min(id) FROM runs WHERE label = 'g1'")
g2=$(sqlite3 "$DB" "SELECT min(id) FROM runs WHERE label = 'g2'")
timed "list" list
timed "stats" stats
timed "compare g:$g1 g:$g2" compare "g:$g1" "g:$g2"
timed "export --format=table" export --format=table
timed "export --format=time" export --format=time
timed "export --format=text" export --format=text
timed "export --format=csv" export --format=csv
timed "export --format=json" export --format=json

k=$(./build/firstframe 3 -k h ./thrashtop --history "$DB" -p 1 -n 20000000 -d 60 | sed -n 's/^key .h. answered in \([0-9.]*\) ms.*/\1/p')
printf '%-34s %9s\n' "history view (h in the monitor)" "${k:-n/a}"

# Posted lines as the threads carried them: csh time lines (CPU% as tcsh
# computes it from the other fields) under a kernel header, with kswapd
# lines, repeated to IMPORT_MB.
awk -v mb="$IMPORT_MB" 'BEGIN {
	srand(1)
	while (n < mb * 1e6) {
		l = sprintf("Linux-2.4.%d-pre%d:\n", i % 20, i % 9 + 1); i++
		for (r = 0; r < 3; r++) {
			u = int((60 + rand() * 20) * 1000) / 1000; s = int((5 + rand() * 5) * 1000) / 1000
			e = int((120 + rand() * 59) * 100) / 100
			l = l sprintf("%.3fu %.3fs %d:%05.2f %.1f%% 0+0k 0+0io %dpf+0w\n", u, s,
				int(e / 60), e - 60 * int(e / 60), int((u + s) / e * 1000) / 10, 10000 + int(rand() * 10000))
		}
		l = l sprintf("0:%02d kswapd\n\n", int(rand() * 60))
		printf "%s", l; n += length(l)
	}
}' >"$TMP/posted.txt"
rm -f "$TMP/import.db"
if "$TIME" -f '%e %U %S %M' -o "$TMP/t" ./thrashtop history import --history="$TMP/import.db" -L posted "$TMP/posted.txt" >/dev/null 2>"$TMP/err"; then
	read -r w u s m <"$TMP/t"
	awk -v w="$w" -v m="$m" -v b="$(stat -c %s "$TMP/posted.txt")" -v r="$(sqlite3 "$TMP/import.db" "SELECT count(*) FROM runs")" \
		-v c="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
		'BEGIN { printf "%-34s %9.0f %8.0f %6.1f MiB %12d %10.1f  (%d runs; goal < 10 s, bounded memory)\n", "import posted lines", w * 1000, c * 1000, m / 1024, b, b / 1e6 / w, r }'
else
	echo "import posted lines: failed: $(head -c 300 "$TMP/err")"
fi
