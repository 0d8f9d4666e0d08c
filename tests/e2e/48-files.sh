#!/usr/bin/env bash
# lane: confined
# Root's thrashtop in directories others can write: links that nobody
# planted at every name thrashtop used to make there (the command log, the
# w key's screen file, the swap file, a plot's temporary) are never
# followed, and a traced session that writes each of those files makes
# every one in /tmp or /var/tmp with O_EXCL and opens none through a link.
# A --history link to nothing is refused and left as it was.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
command -v strace >/dev/null || { fail strace-missing "strace is not installed (make check-deps)"; exit 1; }
need_tmux
export THRASHTOP_STATE_DIR=$TMP/state
unset TMPDIR
DB=$TMP/h.db
S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"
printf 'root only\n' >"$TMP/victim"
chmod 600 "$TMP/victim"
victim0=$(sha256sum <"$TMP/victim")
chmod 711 "$TMP"	# nobody's links may point in here; nothing is readable

# nobody's links, at the names the next pids and the next minutes give
P=$(cat /proc/sys/kernel/ns_last_pid)
names=$(for p in $(seq $((P + 1)) $((P + 400))); do
	echo "/tmp/thrashtop-$p.log /var/tmp/thrashtop-swap-$p"; done
	for s in $(seq 0 180); do
		echo "/tmp/thrashtop-$(date -d "+$s seconds" +%Y%m%d-%H%M%S).txt"; done)
names=$(for n in $names; do [ -e "$n" ] || [ -L "$n" ] || echo "$n"; done)	# not taken already
planted=$(echo $names | wc -w)
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	bash -c 'for n in '"$(echo $names)"'; do ln -s '"$TMP/victim"' "$n" 2>/dev/null; done'
cleanup "find /tmp /var/tmp -maxdepth 1 -user nobody -lname '$TMP/victim' -delete"
expect links-planted test "$(find /tmp /var/tmp -maxdepth 1 -user nobody -lname "$TMP/victim" | wc -l)" -eq "$planted"

# The monitor with a command (its log), w from /tmp, a swap file and a
# sysctl (the state file), the history; then a plot to /tmp.
sw0=$(cat /proc/sys/vm/swappiness)
sw1=$([ "$sw0" = 67 ] && echo 68 || echo 67)
cleanup "echo $sw0 >/proc/sys/vm/swappiness"
tm new-session -d -s "$S" -x 100 -y 30 -c /tmp \
	"ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=open,openat,creat,rename -o $TMP/trace $T --history $DB -L files --swap 16M --sysctl vm.swappiness=$sw1 -- sh -c 'echo command-said-this; sleep 4' 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
expect monitor-up wait_for 60 bash -c "tm capture-pane -p -t $S | grep -q 'command output: /tmp/thrashtop-'"
tm send-keys -t "$S" w
expect screen-written wait_for 20 bash -c "tm capture-pane -p -t $S | grep -q 'screen written to '"
shot=$(tm capture-pane -p -t "$S" | grep -o 'screen written to [^ ]*' | awk '{ print $4 }')
# q once the command has ended (its run's line is up): the run complete
wait_for 30 has "$S" '#1 .*pf+0w' || true
tm send-keys -t "$S" q
expect monitor-exit-0 wait_for 60 grep -sqx EXIT=0 "$TMP/rc"
[ -s "$TMP/rc" ] && grep -qx EXIT=0 "$TMP/rc" || sed 's/^/  stderr: /' "$TMP/err"
expect log-tail-said grep -q '^command-said-this$' "$TMP/err"
expect log-removed bash -c "! grep -o '\"/tmp/thrashtop-[0-9]*-[0-9]*-[a-zA-Z0-9]*\.log\"' $TMP/trace | tr -d '\"' | sort -u | xargs -r ls 2>/dev/null | grep -q ."
expect screen-file-ours test -f "/tmp/$(basename "$shot")" -a ! -L "/tmp/$(basename "$shot")"
rm -f "/tmp/$(basename "$shot")"
id=$("$T" history --history "$DB" list -L files | awk 'NR == 2 { print $1 }')
out=/tmp/thrashtop-e2e-$$.svg
cleanup "rm -f $out"
ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=open,openat,creat,rename -o "$TMP/trace2" \
	"$T" history --history "$DB" plot "$id" --svg "$out"
expect plot-written grep -q '<svg' "$out"

expect victim-untouched test "$(sha256sum <"$TMP/victim")" = "$victim0"
cat "$TMP/trace" "$TMP/trace2" >"$TMP/all"
# Every file made or opened in a directory others can write, from the trace
# (LeakSanitizer cannot work under ptrace: off for the traced runs).
python3 - "$TMP/all" "$TMP" >"$TMP/report" <<'EOF'
import os, re, stat, sys
bad, made = [], []
for line in open(sys.argv[1]):
    m = re.search(r'(open|openat|creat)\((?:AT_FDCWD, |\d+<[^>]*>, |\d+, )?"([^"]*)", ([A-Z_|]+)', line)
    if not m:
        continue
    path, flags = m.group(2), m.group(3).split('|')
    if not path.startswith('/'):
        path = os.path.join('/tmp', path)	# the monitor's working directory
    path = os.path.normpath(path)
    if path == sys.argv[2]:
        continue	# the test's own directory, where the history is
    d = os.path.dirname(path)
    try:
        if not os.stat(d).st_mode & stat.S_IWOTH:
            continue
    except OSError:
        continue
    if d.startswith('/tmp/tmux-'):
        continue
    if 'O_CREAT' in flags or m.group(1) == 'creat':
        made.append(path)
        if 'O_EXCL' not in flags:
            bad.append('create without O_EXCL: ' + line.strip())
    elif 'O_NOFOLLOW' not in flags:
        bad.append('open that may follow a link: ' + line.strip())
for p in sorted(set(made)):
    print('made', p)
for b in bad:
    print('BAD', b)
EOF
sed 's/^/  /' "$TMP/report"
expect none-without-excl bash -c "! grep -q '^BAD' $TMP/report"
expect traced-log grep -Eq '^made /tmp/thrashtop-[0-9]+-[0-9]+-[a-zA-Z0-9]{6}\.log$' "$TMP/report"
expect traced-screen grep -Eq '^made /tmp/thrashtop-[0-9]{8}-[0-9]{6}(-[0-9]+)?\.txt$' "$TMP/report"
expect traced-swap grep -Eq '^made /var/tmp/thrashtop-swap-[0-9]+-[a-z0-9]{8}$' "$TMP/report"
expect traced-plot grep -q "^made $out\.......$" "$TMP/report"
expect machine-back test "$(cat /proc/sys/vm/swappiness)" = "$sw0"

# --history naming a link to nothing: refused before anything starts, the
# link left as it was.
ln -s "$TMP/nothing/h.db" "$TMP/dangling"
"$T" -b -n 1000 -p 1 --history "$TMP/dangling" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect dangling-exit-2 test $rc -eq 2
expect dangling-one-line test "$(wc -l <"$TMP/err")" -eq 1
expect dangling-says-why grep -q 'link to nothing' "$TMP/err"
expect dangling-no-run test ! -s "$TMP/out"
expect dangling-link-kept test -L "$TMP/dangling" -a "$(readlink "$TMP/dangling")" = "$TMP/nothing/h.db"
expect dangling-nothing-made test ! -e "$TMP/nothing"
