#!/usr/bin/env bash
# lane: other
# A terminal that stops reading does not stop the sampling: with the tmux
# server stopped for 6 s (as a terminal swapped out under pressure stalls)
# the monitor's writes fill the pty and block, yet the run keeps a sample
# every interval through the stop.
. "$(dirname "$0")/lib.sh"
need_tmux

db=$TMP/h.db
tm new-session -d -s st -x 200 -y 60 \
	"$T -d 0.05 --history $db -- sleep 14 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
expect monitor-up wait_for 20 bash -c "tm capture-pane -p -t st | grep -q 'major faults'"
server=$(tm display-message -p '#{pid}')
cleanup "kill -CONT $server"
kill -STOP "$server"
sleep 6
kill -CONT "$server"
expect run-done wait_for 60 bash -c "tm capture-pane -p -t st | grep -q 'runs ended: 1'"
tm send-keys -t st q
expect exit-0 wait_for 20 grep -qs EXIT=0 "$TMP/rc"
"$T" history export --format=json --history "$db" 2>"$TMP/err2" | python3 -c '
import json, sys
t = json.load(sys.stdin)["runs"][0]["series"]["t"]
print(len(t), round(max(b - a for a, b in zip(t, t[1:])), 2))
' >"$TMP/gap" 2>&1
read -r n gap <"$TMP/gap"
# 120 intervals of 0.05 s went by while the terminal was stopped; before
# the sampling had a thread of its own, the longest gap was the stop.
expect "samples-through-the-stop[$n samples, longest gap ${gap:-?} s; $(cat "$TMP/err" "$TMP/err2")]" \
	awk -v g="${gap:-99}" 'BEGIN { exit !(g < 2) }'
