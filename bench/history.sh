#!/usr/bin/env bash
# History timings at 10,000 runs, and with BENCH_BIG=1 at 1,000,000 beside
# them. The database grows as a user's would: a few real runs with their
# sampled series, then copied (every table, series included) with fresh
# uuids, earlier start times, and labels cycling through NGROUPS groups; the
# large one is the small one grown on. Each command is timed K times: the
# median CPU time (user + system: on a shared machine wall time mostly
# measures the queue, so CPU is the figure to read), the median wall time
# and the largest max RSS; exports also give their rate over CPU time.
# Outputs that grow with the runs (table, time and text reports, csv and
# json exports, every run listed) are timed at 10,000 only. Then the
# monitor's `h` is timed on a pseudo-terminal at each size, and the import
# of IMPORT_MB of posted lines into a new history, with short batch runs
# recording into the same history meanwhile (none of them may be refused),
# beside sqlite3's own .import of the same rows into the same schema with
# the import's settings and its INSERT ... SELECT copy of them (SQLite's
# own work alone), the ratio to .import, and the same import again
# (parsing and looking up only): wall and CPU time, max RSS and what each
# wrote to the disk; then what each transaction of an import of 2 MB
# writes (strace): into a new history in a directory of its own (WAL) and
# in one others can write (a rollback journal), and as new runs into the
# IMPORT_MB one.
# Environment: NGROUPS (20), K (3), IMPORT_MB (50), BIG_RUNS (1,000,000:
# the large size), KEEP (a path prefix: databases KEEP-10k.db and
# KEEP-1m.db kept and reused between runs).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BIG=${BENCH_BIG:-0}
BIG_RUNS=${BIG_RUNS:-1000000}
NGROUPS=${NGROUPS:-20}
K=${K:-3}
IMPORT_MB=${IMPORT_MB:-50}
TIME=/usr/bin/time

die() { echo "bench/history.sh: $*" >&2; exit 1; }
[ -x ./thrashtop ] || die "build ./thrashtop first (make)"
command -v sqlite3 >/dev/null || die "sqlite3 is not installed (make bench installs it)"
command -v strace >/dev/null || die "strace is not installed (make bench installs it)"
[ -x build/firstframe ] || die "build build/firstframe first (make bench)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DB10=${KEEP:+$KEEP-10k.db}
DB10=${DB10:-$TMP/history-10k.db}
DB1M=${KEEP:+$KEEP-1m.db}
DB1M=${DB1M:-$TMP/history-1m.db}

# child_cols DB TABLE: its columns, run_id shifted by @OFF@.
child_cols() {
	sqlite3 "$1" "SELECT group_concat(CASE name WHEN 'run_id' THEN 'run_id + @OFF@' ELSE name END, ', ') FROM pragma_table_info('$2')"
}

# grow DB RUNS: seeds DB with real runs when it has none, then copies its
# runs until it holds RUNS.
grow() {
	local DB=$1 RUNS=$2 n m cols sel
	if [ ! -s "$DB" ]; then
		./thrashtop -b -r 2 -p 2 -n 6000000 -d 0.05 -L seed-a --history "$DB" >/dev/null
		./thrashtop -b -r 2 -p 1 -n 8000000 -d 0.05 -L seed-b --history "$DB" >/dev/null
	fi
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
	declare -A ccols
	for t in $children; do ccols[$t]=$(child_cols "$DB" "$t"); done
	n=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
	while [ "$n" -lt "$RUNS" ]; do
		m=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
		{
			echo "BEGIN;"
			echo "INSERT INTO runs($cols) SELECT ${sel//@OFF@/$m} FROM runs WHERE id <= $RUNS - $n;"
			for t in $children; do
				echo "INSERT INTO $t SELECT ${ccols[$t]//@OFF@/$m} FROM $t WHERE run_id <= $RUNS - $n;"
			done
			echo "COMMIT;"
		} | sqlite3 "$DB"
		n=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
	done
}

# build DB RUNS [FROM]: DB at RUNS runs (FROM's runs grown on, if given),
# unless a kept one is there already.
build() {
	local DB=$1 RUNS=$2 FROM=${3:-} t0
	if [ -n "${KEEP:-}" ] && [ -s "$DB" ] && [ "$(sqlite3 "$DB" "SELECT count(*) FROM runs")" -ge "$RUNS" ]; then
		echo "history: reusing $DB"
		return
	fi
	t0=$(date +%s.%N)
	rm -f "$DB" "$DB-wal" "$DB-shm"
	[ -n "$FROM" ] && sqlite3 "$FROM" "VACUUM INTO '$DB'"
	grow "$DB" "$RUNS"
	# a history is opened for writing with each run it records: its indexes are made
	./thrashtop history --history="$DB" rm 999999999 >/dev/null 2>&1 || true
	echo "history: built $RUNS runs in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s" \
		"($(sqlite3 "$DB" "SELECT count(DISTINCT config_hash) FROM runs") groups," \
		"$(sqlite3 "$DB" "SELECT count(*) FROM samples") stored series, $(du -m "$DB" | cut -f1) MiB)"
}

# timed SIZE DB NAME ARGS...: thrashtop history ARGS against DB, K times;
# appends "NAME|cpu ms|wall ms|max RSS KiB|output bytes" to $TMP/SIZE.
timed() {
	local size=$1 db=$2 name=$3; shift 3
	local walls=() cpus=() rss=0 bytes=0
	for ((k = 0; k < K; k++)); do
		if ! "$TIME" -f '%e %U %S %M' -o "$TMP/t" ./thrashtop history --history="$db" "$@" >"$TMP/out" 2>"$TMP/err"; then
			echo "$name|failed: $(head -c 200 "$TMP/err" | tr '\n|' '  ')|||" >>"$TMP/$size"
			return
		fi
		read -r w u s m <"$TMP/t"
		walls+=("$w")
		cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
		[ "$m" -gt "$rss" ] && rss=$m
		bytes=$(stat -c %s "$TMP/out")
	done
	med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.0f", v[int((NR + 1) / 2)] * 1000 }'; }
	echo "$name|$(printf '%s\n' "${cpus[@]}" | med)|$(printf '%s\n' "${walls[@]}" | med)|$rss|$bytes" >>"$TMP/$size"
}

# view SIZE DB: the monitor's h on a pseudo-terminal (it records its own
# aborted runs in DB, as a user's monitor would).
view() {
	local k
	k=$(./build/firstframe 3 -k h ./thrashtop --history "$2" -p 1 -n 20000000 -d 60 |
		sed -n 's/^key .h. answered in \([0-9.]*\) ms.*/\1/p')
	echo "history view (h in the monitor)||${k:-n/a}||" >>"$TMP/$1"
}

# every command at one size; the large one skips outputs that grow with it
measure() {
	local size=$1 db=$2 g1 g2
	g1=$(sqlite3 "$db" "SELECT min(id) FROM runs WHERE label = 'g1'")
	g2=$(sqlite3 "$db" "SELECT min(id) FROM runs WHERE label = 'g2'")
	: >"$TMP/$size"
	timed "$size" "$db" "list" list
	timed "$size" "$db" "stats" stats
	timed "$size" "$db" "compare g:A g:B" compare "g:$g1" "g:$g2"
	if [ "$size" = 10k ]; then
		timed "$size" "$db" "list --all" list --all
		timed "$size" "$db" "export --format=table" export --format=table
		timed "$size" "$db" "export --format=time" export --format=time
		timed "$size" "$db" "export --format=text" export --format=text
		timed "$size" "$db" "export --format=csv" export --format=csv
		timed "$size" "$db" "export --format=json" export --format=json
	fi
	view "$size" "$db"
}

build "$DB10" 10000
measure 10k "$DB10"
if [ "$BIG" = 1 ]; then
	build "$DB1M" "$BIG_RUNS" "$DB10"
	measure 1m "$DB1M"
else
	: >"$TMP/1m"
fi

echo "history: median of $K; cpu = user + system ms (the figure to read on a shared machine), wall ms, largest max RSS"
printf '%-32s %8s %8s %9s %8s %8s %9s %11s %9s\n' "" "10k cpu" "wall" "RSS" "$((BIG_RUNS / 1000))k cpu" "wall" "RSS" output "MB/s cpu"
awk -F'|' -v big="$BIG" '
	FNR == 1 { f++ }
	f == 1 { order[++n] = $1; a[$1] = $0; next }
	{ b[$1] = $0 }
	function rss(k) { return k == "" ? "" : sprintf("%.1fM", k / 1024) }
	END {
		for (i = 1; i <= n; i++) {
			split(a[order[i]], x, "|")
			split(order[i] in b ? b[order[i]] : "", y, "|")
			if (x[2] ~ /^failed/) { printf "%-32s %s\n", x[1], x[2]; continue }
			one = big == 1 ? (order[i] in b ? "" : "-") : ""
			rate = x[2] > 0 && x[5] > 1e6 ? sprintf("%.0f", x[5] / 1e3 / x[2]) : ""
			printf "%-32s %8s %8s %9s %8s %8s %9s %11s %9s\n", x[1], x[2], x[3], rss(x[4]),
				one == "-" ? "-" : y[2], y[3], rss(y[4]), x[5], rate
		}
	}' "$TMP/10k" "$TMP/1m"
[ "$BIG" = 1 ] && echo "(outputs that grow with the runs are timed at 10k only)"

# posted MB FILE [SEED]: posted lines as the threads carried them, MB of
# them in FILE: csh time lines (CPU% as tcsh computes it from the other
# fields) under a kernel header, with kswapd lines; another SEED, other runs.
posted() {
	awk -v mb="$1" -v seed="${3:-1}" 'BEGIN {
		srand(seed)
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
	}' >"$2"
}

# measured NAME CMD...: CMD's wall and CPU seconds, max RSS and what it
# wrote to the disk, as "NAME|wall|cpu|MiB|MiB written" in $TMP/NAME.
measured() {
	local name=$1; shift
	"$TIME" -f '%e %U %S %M %O' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || return 1
	read -r w u s m o <"$TMP/t"
	awk -v n="$name" -v w="$w" -v c="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" -v m="$m" -v o="$o" \
		'BEGIN { printf "%s|%.1f|%.1f|%.1f|%.0f\n", n, w, c, m / 1024, o * 512 / 1048576 }' >"$TMP/$name"
}

# writes MODE DB FILE: what each transaction of an import of FILE into DB
# writes, from its system calls: the transactions are WAL commit frames (a
# frame header whose database size is set) and rollback journals removed;
# the files the history itself, its log (WAL or journal), its -shm, and
# temporary files (SQLite's statement journals past 64 KiB).
writes() {
	local mode=$1 db=$2 file=$3
	strace -f -y -xx -s 8 -e trace=pwrite64,fdatasync,fsync,unlink -o "$TMP/trace" \
		./thrashtop history import --history="$db" -L posted "$file" >/dev/null 2>&1 ||
		{ echo "  $mode: the import under strace failed"; return; }
	awk -v db="$db" -v mode="$mode" -v mb="$(stat -c %s "$file")" '
		BEGIN { for (i = 1; i < 256; i++) ch[sprintf("%02x", i)] = sprintf("%c", i) }
		function kind(p) { return p == db ? "db" : p == db "-wal" || p == db "-journal" ? "log" : p == db "-shm" ? "shm" : "temp" }
		# the file a call names, which -xx gives as \xHH escapes
		function unhex(s,   out, i) {
			for (i = 1; i + 3 <= length(s); i += 4)
				out = out ch[substr(s, i + 2, 2)]
			return out
		}
		function path() {
			if (match($0, /<[^>]*>/) || match($0, /\("[^"]*"/))
				return unhex(substr($0, RSTART + 1 + (substr($0, RSTART, 1) == "("), RLENGTH - 2 - (substr($0, RSTART, 1) == "(")))
			return ""
		}
		/ pwrite64\(/ {
			k = kind(path()); n[k]++; calls++
			b = $NF + 0; bytes += b
			# a WAL frame header: bytes 4-7, the database size, are set at a commit
			if (k == "log" && b == 24 && match($0, /"[^"]*"/) && substr($0, RSTART + 17, 16) != "\\x00\\x00\\x00\\x00")
				tx++
		}
		/ f(data)?sync\(/ { syncs++ }
		/ unlink\(/ { unl++; if (path() == db "-journal") tx++ }
		END {
			if (!tx) { print "  " mode ": no transaction seen"; exit }
			printf "  %s, %.1f MB: %d transactions, each %.0f pwrite64 (history %.0f, log %.0f, -shm %.0f, temporary files %.0f) of %.1f MiB, %.1f fsync, %.1f unlink\n",
				mode, mb / 1e6, tx, calls / tx, n["db"] / tx, n["log"] / tx, n["shm"] / tx, n["temp"] / tx,
				bytes / tx / 1048576, syncs / tx, unl / tx
		}' "$TMP/trace"
}

posted "$IMPORT_MB" "$TMP/posted.txt"
rm -f "$TMP/import.db"
measured ours ./thrashtop history import --history="$TMP/import.db" -L posted "$TMP/posted.txt" &
imp=$!
# short runs ending while the import goes on, as a user's would
beside=0 refused=0
sleep 1
while kill -0 "$imp" 2>/dev/null && [ "$beside" -lt 5 ]; do
	./thrashtop -b -p 1 -n 2000000 -L beside --history "$TMP/import.db" >/dev/null 2>"$TMP/beside" || true
	beside=$((beside + 1))
	grep -q 'not kept' "$TMP/beside" && refused=$((refused + 1))
done
if wait "$imp"; then
	mb=$(stat -c %s "$TMP/posted.txt")
	runs=$(sqlite3 "$TMP/import.db" "SELECT count(*) FROM runs WHERE label <> 'beside'")
	# sqlite3's own .import of the same rows, as CSV, into a history of
	# the same schema (tables, indexes, checks) with the import's
	# settings: WAL, synchronous=NORMAL, a 64 MiB page cache; one
	# transaction. NULL cells come back as empty text.
	sqlite3 -csv "$TMP/import.db" "SELECT * FROM runs WHERE label <> 'beside' ORDER BY id" >"$TMP/rows.csv"
	sqlite3 "$TMP/import.db" .schema | grep -v '^CREATE TABLE sqlite_' | sqlite3 "$TMP/raw.db"
	measured sqlite3 sqlite3 "$TMP/raw.db" "PRAGMA journal_mode = WAL" "PRAGMA synchronous = NORMAL" \
		"PRAGMA cache_size = -65536" ".import --csv $TMP/rows.csv runs" ||
		echo "sqlite3|failed: $(head -c 200 "$TMP/err" | tr '\n|' '  ')|||" >"$TMP/sqlite3"
	got=$(sqlite3 "$TMP/raw.db" "SELECT count(*) FROM runs" 2>/dev/null)
	rm -f "$TMP/raw.db"* "$TMP/rows.csv"
	# and its copy of the same rows from the history, no text to read
	sqlite3 "$TMP/import.db" .schema | grep -v '^CREATE TABLE sqlite_' | sqlite3 "$TMP/copy.db"
	measured copy sqlite3 "$TMP/copy.db" "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
		PRAGMA cache_size = -65536; ATTACH '$TMP/import.db' AS s;
		INSERT INTO runs SELECT * FROM s.runs WHERE label <> 'beside';" ||
		echo "copy|failed: $(head -c 200 "$TMP/err" | tr '\n|' '  ')|||" >"$TMP/copy"
	rm -f "$TMP/copy.db"*
	# the same file again: every run already there (reading, parsing and
	# looking up only)
	measured again ./thrashtop history import --history="$TMP/import.db" -L posted "$TMP/posted.txt"
	echo "import of posted lines: $(awk -v b="$mb" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $runs runs into a new history" \
		"(goal: 16 s wall at most, toward 10 s; bounded memory)"
	printf '  %-44s %8s %8s %9s %10s\n' "" wall cpu "max RSS" written
	awk -F'|' -v b="$mb" '
		{ name[NR] = $1; w[NR] = $2; c[NR] = $3; m[NR] = $4; o[NR] = $5 }
		END {
			t["ours"] = "thrashtop history import"
			t["sqlite3"] = "sqlite3 .import of the same rows (CSV)"
			t["copy"] = "sqlite3 INSERT ... SELECT of the same rows"
			t["again"] = "the same file again (nothing new)"
			for (i = 1; i <= NR; i++) {
				if (w[i] ~ /^failed/) { printf "  %-44s %s\n", t[name[i]], w[i]; continue }
				printf "  %-44s %7.1fs %7.1fs %7.1fMi %8.0fMi\n", t[name[i]], w[i], c[i], m[i], o[i]
			}
			if (c[2] > 0 && w[2] > 0)
				printf "  %-44s %7.2fx %7.2fx   (%.1f MB/s wall)\n", "thrashtop against sqlite3 .import", w[1] / w[2], c[1] / c[2], b / 1e6 / w[1]
		}' "$TMP/ours" "$TMP/sqlite3" "$TMP/copy" "$TMP/again"
	[ "$got" = "$runs" ] || echo "  sqlite3 .import kept ${got:-no} rows of $runs"
	echo "  $beside runs recorded into the history meanwhile, $refused refused"
	echo "  what each transaction writes (strace -f of an import of 2 MB):"
	posted 2 "$TMP/posted-2.txt"
	mkdir -m 0700 "$TMP/own"
	writes "a new history, own directory (WAL)" "$TMP/own/h.db" "$TMP/posted-2.txt"
	mkdir -m 1777 "$TMP/shared"
	writes "a new history, shared directory (rollback journal)" "$TMP/shared/h.db" "$TMP/posted-2.txt"
	posted 2 "$TMP/posted-2b.txt" 2
	writes "into the $IMPORT_MB MB history (WAL), new runs" "$TMP/import.db" "$TMP/posted-2b.txt"
else
	echo "import of posted lines: failed: $(head -c 300 "$TMP/err")"
fi
