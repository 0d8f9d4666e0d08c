#!/usr/bin/env bash
# lane: other
# A stored run played into an asciicast recording without a terminal:
# the same file every time, valid, its last frame the run's result line,
# as asciinema plays it. replay --cast writes the same file.
. "$(dirname "$0")/lib.sh"
need_tmux
command -v asciinema >/dev/null || { fail asciinema-missing "apt-get install asciinema"; exit 1; }

db=$TMP/h.db
"$T" -b -n 2000000 -p 1 -d 0.1 --history "$db" -L base >"$TMP/line" 2>"$TMP/err"
expect stored-run test $? -eq 0
H() { "$T" --history "$db" history "$@"; }
H export 1 --format=asciicast --size 100x30 >"$TMP/a.cast" 2>"$TMP/e1"
expect "export-ok[$(cat "$TMP/e1")]" test $? -eq 0
H export 1 --format=asciicast --size 100x30 >"$TMP/b.cast"
expect byte-identical cmp "$TMP/a.cast" "$TMP/b.cast"
H replay 1 --size 100x30 --cast "$TMP/c.cast" </dev/null
expect replay-cast-same cmp "$TMP/a.cast" "$TMP/c.cast"
expect "valid[$(python3 "$ROOT/tests/e2e/castcheck.py" "$TMP/a.cast")]" \
	eval 'python3 "$ROOT/tests/e2e/castcheck.py" "$TMP/a.cast" >/dev/null'
expect header python3 -c '
import json, sys
h = json.loads(open(sys.argv[1]).readline())
sys.exit(not (h["width"] == 100 and h["height"] == 30 and "timestamp" not in h
              and h["env"]["TERM"] == "xterm-256color" and "run 1" in h["title"]))' "$TMP/a.cast"
H export 1 --format=asciicast --size 160x50 --speed 4 >"$TMP/d.cast"
expect other-size grep -q '"width": 160, "height": 50' "$TMP/d.cast"
# Every scroll region it sets spans its own height: one set at terminfo's
# 24 lines garbled a player of 30 lines wherever ncurses then deleted lines.
for f in a d; do
	expect "scroll-region-whole[$f: $(grep -o '\\u001b\[1;[0-9]*r' "$TMP/$f.cast" | sort -u | tr '\n' ' ')]" python3 -c '
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
h = json.loads(lines[0])["height"]
rows = {int(m) for l in lines[1:] for m in re.findall(r"\x1b\[1;(\d+)r", json.loads(l)[2])}
sys.exit(not rows or rows != {h})' "$TMP/$f.cast"
done

# The result line the replay ends on, as the history has it.
result=$(sed -n 1p "$TMP/line")
tm new-session -d -s play -x 100 -y 30 "asciinema cat $TMP/a.cast; echo PLAYED >$TMP/played; sleep 60"
expect played wait_for 30 grep -qs PLAYED "$TMP/played"
tm capture-pane -p -t play >"$TMP/screen"
expect "last-frame-result[$result | $(grep '^#1' "$TMP/screen")]" grep -qF "#1 $result" "$TMP/screen"
expect last-frame-end grep -q 'replay run 1 "base"  END' "$TMP/screen"
# The whole last frame as the replay itself draws it at that size: a
# recording that set its scroll region to 24 lines left stale plot cells
# at 100x30.
tm new-session -d -s live -x 100 -y 30 "$T history --history $db replay 1; sleep 60"
expect live-replay-ends wait_for 60 bash -c "tm capture-pane -p -t live | grep -q 'replay run 1 \"base\"  END'"
tm capture-pane -p -t live >"$TMP/live"
expect "played-as-replayed[$(diff "$TMP/screen" "$TMP/live" | head -4 | tr '\n' '|')]" cmp -s "$TMP/screen" "$TMP/live"
end_session live

# bad input: one line, exit 2
H export 1 --format=asciicast --size 10x5 >/dev/null 2>"$TMP/e"; rc=$?
expect bad-size test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1
H export 9 --format=asciicast >/dev/null 2>"$TMP/e"; rc=$?
expect "missing-run[$(cat "$TMP/e")]" test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1
H export --format=asciicast >/dev/null 2>"$TMP/e"; rc=$?
expect no-id test $rc -eq 2
H list --size 100x30 >/dev/null 2>"$TMP/e"; rc=$?
expect size-elsewhere test $rc -eq 2

# A recording is never written through a link another user planted, and
# in a directory others can write never over a name already there; one
# that fails to start leaves no file.
sh=$(mktemp -d /tmp/thrashtop-castlink.XXXXXX)
cleanup rm -rf "$sh"
chmod 0777 "$sh"
echo root-data >"$sh/victim"
setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$sh/victim" "$sh/evil.cast"
H replay 1 --size 100x30 --cast "$sh/evil.cast" </dev/null >/dev/null 2>"$TMP/e"; rc=$?
expect "replay-link-refused[$rc: $(cat "$TMP/e")]" test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1
expect "replay-link-victim-kept[$(head -c 60 "$sh/victim")]" grep -qx root-data "$sh/victim"
expect replay-link-says grep -q 'a symbolic link: refused' "$TMP/e"
setpriv --reuid=65534 --regid=65534 --clear-groups touch "$sh/planted.cast"
H replay 1 --size 100x30 --cast "$sh/planted.cast" </dev/null >/dev/null 2>"$TMP/e"; rc=$?
expect "replay-planted-refused[$rc: $(cat "$TMP/e")]" test $rc -eq 2 -a ! -s "$sh/planted.cast"
H replay 1 --size 100x30 --cast "$sh/new.cast" </dev/null >/dev/null 2>"$TMP/e"
expect "replay-shared-new[$(cat "$TMP/e")]" cmp -s "$TMP/a.cast" "$sh/new.cast"
tm new-session -d -s link -x 100 -y 30 "$T --no-history --cast $sh/evil.cast -- touch $TMP/ran-link 2>$TMP/e3; echo EXIT=\$? >$TMP/rc3; sleep 60"
expect live-link-exit-2 wait_for 30 grep -qs EXIT=2 "$TMP/rc3"
expect "live-link-says[$(cat "$TMP/e3")]" grep -q "^thrashtop: --cast $sh/evil.cast: a symbolic link: refused" "$TMP/e3"
expect live-link-victim-kept grep -qx root-data "$sh/victim"
expect live-link-nothing-ran test ! -e "$TMP/ran-link"
