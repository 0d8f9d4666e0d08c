#!/usr/bin/env bash
# lane: other
# The real monitor in tmux: plots and bars show, a run completes and its
# line appears, keys work, resize relayouts, q mid-run leaves no worker.
. "$(dirname "$0")/lib.sh"
need_tmux

S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"

tm new-session -d -s "$S" -x 80 -y 24 "$T -n 2000000 -p 2 -d 0.2 --no-history 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 30"
expect plots-show wait_for 10 has 'major faults'
expect kswapd-plot has 'kswapd'
expect swap-plot has 'swap'
expect worker-rows wait_for 5 bash -c "tm capture-pane -p -t $S | grep -Eq '^ *[0-9]+ [RSDZ] '"
expect run-line-appears wait_for 60 has '#1 .*pf+0w'
tm send-keys -t "$S" r
expect rerun-line-appears wait_for 60 has '#2 .*pf+0w'
tm send-keys -t "$S" '?'
expect help-overlay wait_for 3 has 'thrashtop keys'
tm send-keys -t "$S" '?'
expect help-closed-by-? wait_for 3 bash -c "! tm capture-pane -p -t $S | grep -q 'thrashtop keys'"
# q over the help closes the help, not the session
tm send-keys -t "$S" '?'
expect help-again wait_for 3 has 'thrashtop keys'
tm send-keys -t "$S" q
expect help-closed-by-q wait_for 3 bash -c "! tm capture-pane -p -t $S | grep -q 'thrashtop keys'"
expect q-over-help-keeps-session bash -c "sleep 1; ! grep -qs EXIT= $TMP/rc"
tm send-keys -t "$S" ' '
expect pause-shows wait_for 3 has 'PAUSED'
tm send-keys -t "$S" ' '
tm resize-window -t "$S" -x 200 -y 60
expect resize-200x60 wait_for 5 bash -c "tm capture-pane -p -t $S | awk 'length > 150' | grep -q ."
tm resize-window -t "$S" -x 50 -y 12
expect too-small-message wait_for 5 has 'terminal too small'
# narrower than that line: what it needs still shows whole
tm resize-window -t "$S" -x 30 -y 10
expect too-small-narrow wait_for 5 has 'too small: 30x10, need 60x16'
tm resize-window -t "$S" -x 80 -y 24
expect back-to-80x24 wait_for 5 has 'major faults'
tm send-keys -t "$S" q
expect quit-exit-0 wait_for 10 grep -qs EXIT=0 "$TMP/rc"
expect no-stderr no_err "$TMP/err"
end_session "$S"

# q in mid-run: the workers are killed and reaped.
tm new-session -d -s "$S" -x 80 -y 24 "$T -n 400000000 -p 2 --no-history 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 30"
expect midrun-workers-running wait_for 10 bash -c "tm capture-pane -p -t $S | grep -Eq ' (fill|sort) '"
main=$(pgrep -o -f "^$T -n 400000000")
pids=$(pgrep -P "$main" | tr '\n' ' ')
expect midrun-workers-found test "$(wc -w <<<"$pids")" -eq 2
tm send-keys -t "$S" q
# the run did not complete: exit 1, as the man page gives
expect midrun-quit-exit-1 wait_for 10 grep -qs EXIT=1 "$TMP/rc"
grep -qs EXIT=1 "$TMP/rc" || cat "$TMP/rc"
sleep 0.5
left=""
for p in $pids; do alive "$p" && left="$left $p"; done
expect midrun-no-worker-left test -z "$left"
# The alternate screen is gone: nothing of the monitor is left on the pane.
expect terminal-restored bash -c "! tm capture-pane -p -t $S | grep -q 'major faults'"

# q with runs of -r still to go: not every run completed, exit 1.
end_session "$S"
rm -f "$TMP/rc"
tm new-session -d -s "$S" -x 80 -y 24 "$T -n 5000000 -p 1 -r 30 -d 0.2 --no-history 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 30"
expect repeat-first-run-done wait_for 60 has '#1 .*pf+0w'
tm send-keys -t "$S" q
expect repeat-quit-exit-1 wait_for 10 grep -qs EXIT=1 "$TMP/rc"
grep -qs EXIT=1 "$TMP/rc" || { cat "$TMP/rc" "$TMP/err"; screen; } 2>/dev/null

# + and - go to the next step above or below the interval, from -d
# between two steps or past the last as from one on them.
end_session "$S"
tm new-session -d -s "$S" -x 80 -y 24 "$T -d 0.3 --no-history -- sleep 60 2>$TMP/err"
expect step-start wait_for 20 has 'interval 0.3s'
tm send-keys -t "$S" +
expect step-up-next wait_for 10 has 'interval 0.5s'
tm send-keys -t "$S" -
expect step-down-next wait_for 10 has 'interval 0.2s'
end_session "$S"
tm new-session -d -s "$S" -x 80 -y 24 "$T -d 20 --no-history -- sleep 60 2>$TMP/err"
expect step-past-last wait_for 20 has 'interval 20s'
tm send-keys -t "$S" +
expect step-past-last-stays wait_for 10 has 'interval 20.00 s'
expect step-past-last-stays-header has 'interval 20s'
tm send-keys -t "$S" -
expect step-past-last-down wait_for 10 has 'interval 10s'
end_session "$S"

# A run inside one interval shows in the plots: the beat after it spans it,
# not just the time since its end sample. 40 MB of sort (about 10k minor
# faults in a second, 4 s in this build on a busy machine) within the
# first 10 s: that beat's rate times 10 s holds at least the run's own
# faults, whatever else faults meanwhile.
tm new-session -d -s "$S" -x 120 -y 30 "$T -n 5000000 -p 2 -d 10 --plots=minflt --history $TMP/plot.db 2>$TMP/err"
expect short-run-ended wait_for 40 has 'runs ended: 1'
sleep 1
wait_for 25 bash -c "tm capture-pane -p -t $S | grep -q 'minor faults [0-9]'"
title=$(screen | grep -o 'minor faults [0-9.]*k*/s' | head -1)
end_session "$S"
"$T" history --history "$TMP/plot.db" export --format=json >"$TMP/plot.json"
expect "short-run-in-plot[$title]" python3 - "$TMP/plot.json" "$title" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["runs"][0]["workers"]
run = sum(x["minflt"] for x in w)
v = sys.argv[2].split()[-1].rstrip("/s")
rate = float(v.rstrip("k")) * (1000 if v.endswith("k") else 1)
assert rate * 10 >= 0.9 * run, (rate, run)
PY

# A tab in a command's text goes to the next multiple of 8 columns, wide
# characters counted as the two they take: "sh -c 'sleep 60 #" is 17
# columns, the four CJK characters 8 more, so x is at column 32.
tm new-session -d -s "$S" -x 100 -y 30 "$T -d 0.5 --no-history --no-stalls -- sh -c 'sleep 60 #日本日本	x' 2>$TMP/err"
expect tab-shown wait_for 20 has '日本日本 '
expect "tab-stop-by-columns[$(screen | sed -n 2p | cut -c1-40)]" \
	wait_for 5 eval "screen | sed -n 2p | grep -q \"#日本日本       x'\""
end_session "$S"

# At 0.01 s the plots hold under a second: the header gives hundredths.
tm new-session -d -s "$S" -x 100 -y 30 "$T -d 0.01 --no-history --no-stalls -- sleep 60 2>$TMP/err"
expect span-in-hundredths wait_for 20 has 'plots: last 0:00\.[0-9][0-9]'
end_session "$S"

# Paused, w twice from a directory of the test's: each time the status line
# names the file just written (it named the one before).
mkdir -p "$TMP/dumps"
tm new-session -d -s "$S" -x 100 -y 30 -c "$TMP/dumps" "$T --no-history --no-stalls -- sleep 60 2>$TMP/err"
expect dump-monitor-up wait_for 20 has 'elapsed'
tm send-keys -t "$S" ' '
expect dump-paused wait_for 5 has 'PAUSED'
for k in 1 2; do
	tm send-keys -t "$S" w
	wait_for 10 bash -c "[ \$(ls '$TMP/dumps' | wc -l) -ge $k ]"
	sleep 1.1	# the name has the second in it
done
newest=$(ls -t "$TMP/dumps" | head -1)
expect "dump-note-names-newest[$newest]" wait_for 5 has "screen written to \\./$newest"
end_session "$S"

# A command's processes orphaned to the monitor (the child subreaper) are
# rows of its tree still: sh, its sleep 5, and the two its subshells left.
tm new-session -d -s "$S" -x 100 -y 30 "$T --no-history --no-stalls -d 0.5 -- sh -c '(sleep 6 &); (sleep 7 &); sleep 5' 2>$TMP/err"
expect orphans-rows wait_for 10 bash -c "[ \$(tm capture-pane -p -t $S | grep -Ec '^ +[0-9]+ S cmd +running') -eq 4 ]" ||
	tm capture-pane -p -t "$S"
end_session "$S"

# Where a command's output goes is said, and said again once a note that
# replaced it at the start (why the stalls are n/a) has had its time.
tm new-session -d -s "$S" -x 100 -y 30 "$T --no-history -d 0.5 -- sh -c 'echo hi; sleep 60' 2>$TMP/err"
expect output-note-up wait_for 10 has 'elapsed'
expect output-note-said wait_for 25 has '^command output: /tmp/thrashtop-'
end_session "$S"

# Nor in batch from a terminal, where reading /dev/tty from the command's
# own process group would stop it for good: the read fails at once.
printf '(read x </dev/tty) 2>/dev/null && r=read || r=refused\necho $r >%s\n' "$TMP/btty" >"$TMP/btty.sh"
tm new-session -d -s "$S" -x 100 -y 30 "timeout -s KILL 15 $T -b --no-history --no-stalls -- sh $TMP/btty.sh >/dev/null 2>&1; echo \$? >$TMP/btty.rc; sleep 60"
expect batch-tty-ends wait_for 10 test -s "$TMP/btty.rc"
expect batch-tty-refused test "$(cat "$TMP/btty" 2>/dev/null)" = refused -a "$(cat "$TMP/btty.rc")" = 0
end_session "$S"

# Rows paged past give their /proc files back: paging through 200
# workers leaves about a screen's worth open, not one or two for each.
tm new-session -d -s "$S" -x 80 -y 24 "$T --no-history --no-stalls -p 200 -n 2000000 -d 0.2 2>$TMP/err"
expect page-up wait_for 20 has 'PID S PHASE'
for i in $(seq 60); do tm send-keys -t "$S" NPage; done
expect page-paged wait_for 10 has 'above'
sleep 0.5	# a tick after
main=$(pgrep -o -f "^$T --no-history --no-stalls -p 200 ")
nfd=$(ls "/proc/$main/fd" | wc -l)
expect "page-files-given-back[$nfd]" test "$nfd" -lt 100
end_session "$S"

# A command cannot write over the screen through /dev/tty: it has no
# controlling terminal (its open fails), so nothing of it is on screen.
printf '(echo PAINTED >/dev/tty) 2>/dev/null && r=wrote || r=refused\necho $r >%s\nsleep 60\n' \
	"$TMP/tty" >"$TMP/tty.sh"
tm new-session -d -s "$S" -x 100 -y 30 "$T --no-history --no-stalls -d 0.5 -- sh $TMP/tty.sh 2>$TMP/err"
expect tty-tried wait_for 10 test -s "$TMP/tty"
sleep 0.6	# a frame after
expect tty-refused test "$(cat "$TMP/tty")" = refused
expect tty-not-on-screen eval '! has PAINTED'
end_session "$S"

# At the least size the help is cut: Down shows the rest, every key.
tm new-session -d -s "$S" -x 60 -y 16 "$T --no-history --no-stalls -- sleep 60 2>$TMP/err"
expect small-help-up wait_for 10 has 'elapsed'
tm send-keys -t "$S" '?'
expect small-help-cut wait_for 5 has 'Up/Down for more'
for i in 1 2 3 4 5 6 7 8; do tm send-keys -t "$S" Down; done
expect small-help-rest wait_for 5 has 'close this help'
end_session "$S"

# t trades plots for worker rows: at 80x24, 8 workers all on screen
# under one row of plots, the others counted; t again gives them back.
tm new-session -d -s "$S" -x 80 -y 24 "$T -n 20000000 -p 8 -d 0.5 --no-history --no-stalls 2>$TMP/err; sleep 60"
rows() { tm capture-pane -p -t "$S" | grep -cE '^ +[0-9]+ [A-Z-] '; }
expect trade-up wait_for 20 bash -c "[ \$(tm capture-pane -p -t $S | grep -cE '^ +[0-9]+ [A-Z-] ') -ge 2 ]"
before=$(rows)
tm send-keys -t "$S" t
expect "trade-all-workers[$before then $(rows)]" wait_for 5 bash -c "[ \$(tm capture-pane -p -t $S | grep -cE '^ +[0-9]+ [A-Z-] ') -eq 8 ]"
expect trade-fewer-before test "$before" -lt 8
tm send-keys -t "$S" t
expect "trade-back[$(rows)]" wait_for 5 bash -c "[ \$(tm capture-pane -p -t $S | grep -cE '^ +[0-9]+ [A-Z-] ') -eq $before ]"
end_session "$S"
