#!/usr/bin/env bash
# lane: other
# --cast: the live monitor recorded as asciicast v2, every frame as the
# terminal got it. The recording, played back by asciinema into a terminal
# of the same size, gives the screen the monitor left; a resize is an "r"
# event; a monitor SIGKILLed mid-run leaves a file valid to its last frame.
. "$(dirname "$0")/lib.sh"
need_tmux
command -v asciinema >/dev/null || { fail asciinema-missing "apt-get install asciinema"; exit 1; }

CHECK="python3 $ROOT/tests/e2e/castcheck.py"
cast=$TMP/live.cast
tm new-session -d -s live -x 100 -y 30 \
	"$T -d 0.1 --no-history --cast $cast -- sleep 4 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
expect monitor-up wait_for 30 bash -c "tm capture-pane -p -t live | grep -q 'major faults'"
tm resize-window -t live -x 120 -y 35
expect run-done wait_for 60 bash -c "tm capture-pane -p -t live | grep -q 'runs ended: 1'"
# Frozen (space), so the screen taken is the last frame drawn: the plots
# go on scrolling at -d 0.1 after the run, and q ends the recording later.
tm send-keys -t live ' '
expect frozen wait_for 10 bash -c "tm capture-pane -p -t live | grep -q PAUSED"
sleep 1
tm capture-pane -p -t live >"$TMP/screen"
timeline=$(grep -o '#1 [0-9.]*u .*kswapd' "$TMP/screen")
tm send-keys -t live q
expect exit-0 wait_for 20 grep -qs EXIT=0 "$TMP/rc"
expect "valid[$($CHECK "$cast")]" eval '$CHECK "$cast" >/dev/null'
expect header-size python3 -c '
import json, sys
h = json.loads(open(sys.argv[1]).readline())
sys.exit(not (h["width"] == 100 and h["height"] == 30 and h["env"]["TERM"] == sys.argv[2]
              and "sleep 4" in h["title"] and sys.argv[3] in h["title"]))' "$cast" \
	"$(tm show-options -gv default-terminal)" "$(uname -r)"
expect "resize-event[$(grep '"r"' "$cast")]" grep -q '"r", "120x35"' "$cast"

# asciinema plays it into a terminal of the final size: the same screen
tm new-session -d -s play -x 120 -y 35 "asciinema cat $cast 2>$TMP/cat-err; echo PLAYED >$TMP/played; sleep 60"
expect played wait_for 30 grep -qs PLAYED "$TMP/played"
tm capture-pane -p -t play >"$TMP/played-screen"
expect "timeline-in-monitor[$timeline]" test -n "$timeline"
expect "replayed-timeline[$(tail -3 "$TMP/played-screen")]" grep -qF "$timeline" "$TMP/played-screen"
expect "replayed-screen-same[$(diff "$TMP/screen" "$TMP/played-screen" | head -5)]" \
	cmp -s "$TMP/screen" "$TMP/played-screen"

# SIGKILL mid-run: every line written is a whole event
kcast=$TMP/killed.cast
# (its command's output file stays, until the next start removes it)
tm new-session -d -s kill -x 100 -y 30 "TMPDIR=$TMP $T -d 0.05 --no-history --cast $kcast -- sleep 60; sleep 60"
expect killed-monitor-up wait_for 30 bash -c "tm capture-pane -p -t kill | grep -q 'major faults'"
sleep 2
pid=$(pgrep -P "$(tm display-message -p -t kill '#{pane_pid}')" | head -1)
worker=$(pgrep -P "$pid")
kill -KILL "$pid"
expect killed-gone wait_for 10 gone "$pid"
[ -n "$worker" ] && kill -KILL $worker
expect "killed-valid[$($CHECK "$kcast")]" eval '$CHECK "$kcast" >/dev/null'
expect killed-has-frames test "$(grep -c '"o"' "$kcast")" -ge 10
logs=$(ls "$TMP"/thrashtop-*.log 2>/dev/null)
expect "killed-left-log[$logs]" test "$(echo "$logs" | grep -c .)" -eq 1
TMPDIR=$TMP "$T" -b --no-history -- true >/dev/null 2>"$TMP/next-err"
expect "next-start-removed-log[$(cat "$TMP/next-err")]" test ! -e "$logs"
expect next-start-says grep -q 'undid what an earlier session left: .*removed 1 command output file$' "$TMP/next-err"

# bad input: one line, exit 2, before anything starts
"$T" -b --cast "$TMP/x.cast" -- true >/dev/null 2>"$TMP/e"; rc=$?
expect batch-refused test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1 -a ! -e "$TMP/x.cast"
tm new-session -d -s bad -x 100 -y 30 "$T --no-history --cast $TMP/no/such/dir.cast -- touch $TMP/ran 2>$TMP/e2; echo EXIT=\$? >$TMP/rc2; sleep 60"
expect bad-path-exit-2 wait_for 30 grep -qs EXIT=2 "$TMP/rc2"
expect "bad-path-says[$(cat "$TMP/e2")]" grep -q "^thrashtop: --cast $TMP/no/such/dir.cast: No such file" "$TMP/e2"
expect bad-path-nothing-ran test ! -e "$TMP/ran"
