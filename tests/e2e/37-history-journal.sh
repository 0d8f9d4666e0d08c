#!/usr/bin/env bash
# lane: other
# Root's history in a directory others can write (1777, as /tmp): traced
# runs make every file there with O_EXCL, SQLite's files never through a
# link, and never a -wal or -shm (a rollback journal, made at each write
# and removed at its commit). A session waits for another's write lock and
# keeps its run; a journal left by a write cut off is rolled back; a link
# and a file that nobody planted at the journal's and the WAL's names are
# refused in one line before anything runs, their target untouched; one
# planted while a run is on is refused when the run is written.
. "$(dirname "$0")/lib.sh"
need_root
command -v strace >/dev/null || { fail strace-missing "strace is not installed (make check-deps)"; exit 1; }
SH=$(mktemp -d /tmp/thrashtop-e2e-shared.XXXXXX)
chmod 1777 "$SH"
cleanup "rm -rf '$SH'"
DB=$SH/h.db
printf 'root only\n' >"$TMP/victim"
chmod 600 "$TMP/victim"
victim0=$(sha256sum <"$TMP/victim")
chmod 711 "$TMP"	# nobody's links may point in here; nothing is readable
# LeakSanitizer cannot work under ptrace: off for the traced runs.
traced() { local out=$1; shift; ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=open,openat,creat,rename -o "$out" "$@"; }
labels() { python3 -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(",".join(r[0] for r in c.execute("SELECT label FROM runs ORDER BY id")))' "${1:-$DB}"; }
pragma() { python3 -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(c.execute("PRAGMA " + sys.argv[2]).fetchone()[0])' "$DB" "$1"; }

# A new history, a second run into it, and a read, traced.
traced "$TMP/t1" "$T" -b -n 1000 -p 1 -L first --history "$DB" >/dev/null 2>"$TMP/err"; rc=$?
expect first-run-exit-0 test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/  stderr: /' "$TMP/err"
traced "$TMP/t2" "$T" -b -n 1000 -p 1 -L second --history "$DB" >/dev/null 2>"$TMP/err"
traced "$TMP/t3" "$T" history --history "$DB" list >/dev/null 2>>"$TMP/err"
expect runs-kept test "$(labels)" = first,second
expect journal-mode-delete test "$(pragma journal_mode)" = delete
expect nothing-beside test "$(ls -A "$SH")" = h.db

# Every open in the directory: a create without O_EXCL, or SQLite's or the
# build lock's file opened without O_NOFOLLOW, is bad.
check_trace() {
	python3 - "$SH" "$@" <<'EOF'
import os, re, sys
shared, bad, made, side_opens = sys.argv[1], [], [], []
for tr in sys.argv[2:]:
    for line in open(tr):
        m = re.search(r'(open|openat|creat)\((?:AT_FDCWD, )?"([^"]*)", ([A-Z_|]+)', line)
        if not m or os.path.dirname(os.path.normpath(m.group(2))) != shared:
            continue
        path, flags = m.group(2), m.group(3).split('|')
        if 'O_CREAT' in flags or m.group(1) == 'creat':
            made.append(os.path.basename(path))
            if 'O_EXCL' not in flags:
                bad.append('create without O_EXCL: ' + line.strip())
        if re.search(r'-(journal|wal|shm|build)$', path):
            side_opens.append(os.path.basename(path) + ' ' + m.group(3))
            if 'O_NOFOLLOW' not in flags:
                bad.append('open that may follow a link: ' + line.strip())
for p in sorted(set(made)):
    print('made', p)
for s in side_opens:
    print('opened', s)
for b in bad:
    print('BAD', b)
EOF
}
check_trace "$TMP/t1" "$TMP/t2" "$TMP/t3" >"$TMP/report"
sed 's/^/  /' "$TMP/report"
expect none-without-excl-or-nofollow bash -c "! grep -q '^BAD' $TMP/report"
expect made-history-exclusively grep -qx 'made h.db' "$TMP/report"
expect made-journal-exclusively grep -qx 'made h.db-journal' "$TMP/report"
expect no-wal-no-shm bash -c "! grep -Eq 'h\.db-(wal|shm)' $TMP/report"

# Another writer holds the lock for 2 s as a run ends: the run waits (up to
# 5 s) and is kept.
python3 - "$DB" "$TMP/holding" <<'EOF' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(2)
c.execute("COMMIT")
EOF
holder=$!
expect lock-held wait_for 20 test -e "$TMP/holding"
"$T" -b -n 1000 -p 1 -L waited --history "$DB" >/dev/null 2>"$TMP/err"; rc=$?
wait $holder
expect waiting-run-exit-0 test $rc -eq 0
expect waiting-run-no-error no_err "$TMP/err"
no_err "$TMP/err" || sed 's/^/  stderr: /' "$TMP/err"
expect waiting-run-kept test "$(labels)" = first,second,waited

# A write cut off once it had changed the file (a cache of 2 pages spills
# before the commit) leaves a hot journal.
python3 - "$DB" <<'EOF'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA cache_size = 2")
c.execute("BEGIN IMMEDIATE")
c.execute("UPDATE runs SET label = hex(randomblob(300000))")
os._exit(0)
EOF
expect hot-journal-left test -s "$DB-journal"
"$T" history --history "$DB" list >"$TMP/out" 2>"$TMP/err"; rc=$?
expect hot-read-fails test $rc -eq 1 -a "$(wc -l <"$TMP/err")" -eq 1
expect hot-read-says-why grep -qx "thrashtop: history: $DB: a write was cut off and its journal is to be rolled back: open it once for writing" "$TMP/err"
traced "$TMP/t4" "$T" -b -n 1000 -p 1 -L after --history "$DB" >/dev/null 2>"$TMP/err"; rc=$?
expect hot-run-exit-0 test $rc -eq 0
expect hot-rolled-back test "$(labels)" = first,second,waited,after
expect hot-integrity test "$(pragma integrity_check)" = ok
expect hot-journal-gone test ! -e "$DB-journal"
check_trace "$TMP/t4" >"$TMP/report"
expect hot-journal-opened-as-it-was grep -Eq '^opened h\.db-journal O_RDWR\|O_NOFOLLOW\|O_CLOEXEC$' "$TMP/report"
expect hot-none-bad bash -c "! grep -q '^BAD' $TMP/report"
grep -q '^BAD' "$TMP/report" && sed 's/^/  /' "$TMP/report"

# nobody plants a link to root's file as the journal and a file of its own
# as the WAL, at an existing history and at one not made yet.
db0=$(sha256sum <"$DB")
as_nobody ln -s "$TMP/victim" "$DB-journal"
as_nobody sh -c "echo planted >'$DB-wal'"
as_nobody ln -s "$TMP/victim" "$SH/new.db-journal"
expect planted test -L "$DB-journal" -a "$(stat -c %U "$DB-wal")" = nobody
refused() {	# refused NAME LINE ARGS...: exit 2, that one line, no run
	local name=$1 line=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	expect "$name-exit-2" test $rc -eq 2
	expect "$name-one-line" test "$(wc -l <"$TMP/err")" -eq 1
	expect "$name-says-which" grep -qxF "$line" "$TMP/err"
	grep -qxF "$line" "$TMP/err" || sed 's/^/  stderr: /' "$TMP/err"
	expect "$name-no-run" test ! -s "$TMP/out"
}
why="in a directory others can write: refused"
refused journal-link "thrashtop: $DB-journal: a symbolic link $why" \
	"$T" -b -n 1000 -p 1 -L planted --history "$DB"
refused read-journal-link "thrashtop: history: $DB-journal: a symbolic link $why" \
	"$T" history --history "$DB" list
refused new-journal-link "thrashtop: $SH/new.db-journal: a symbolic link $why" \
	"$T" -b -n 1000 -p 1 --history "$SH/new.db"
expect new-not-made test ! -e "$SH/new.db"
as_nobody rm "$DB-journal"
refused wal-nobodys "thrashtop: $DB-wal: owned by uid $(id -u nobody), not by the history's owner (uid 0), $why" \
	"$T" -b -n 1000 -p 1 -L planted --history "$DB"
expect victim-untouched test "$(sha256sum <"$TMP/victim")" = "$victim0"
expect history-untouched test "$(sha256sum <"$DB")" = "$db0"
expect planted-left-as-it-was test "$(cat "$DB-wal")" = planted -a -L "$SH/new.db-journal"

# A link planted once the history is open, while a run is on: the run's
# write meets it as it creates the journal; the run is not kept, and one
# line says why.
LATE=$SH/late.db
"$T" -b -n 1000 -p 1 -L before --history "$LATE" >/dev/null 2>&1
"$T" -b -L late --history "$LATE" -- sh -c "touch '$TMP/started'; while [ ! -e '$TMP/go' ]; do sleep 0.1; done" \
	>"$TMP/out" 2>"$TMP/err" &
run=$!
expect late-run-started wait_for 60 test -e "$TMP/started"
as_nobody ln -s "$TMP/victim" "$LATE-journal"
touch "$TMP/go"
wait $run
expect late-said-once test "$(grep -c history "$TMP/err")" -eq 1
expect late-says-which grep -qxF "thrashtop: history: $LATE-journal: a symbolic link $why (run 1 not kept)" "$TMP/err"
grep -qxF "thrashtop: history: $LATE-journal: a symbolic link $why (run 1 not kept)" "$TMP/err" || sed 's/^/  stderr: /' "$TMP/err"
as_nobody rm "$LATE-journal"
expect late-not-kept test "$(labels "$LATE")" = before
expect late-victim-untouched test "$(sha256sum <"$TMP/victim")" = "$victim0"
