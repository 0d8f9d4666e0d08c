#!/usr/bin/env bash
# lane: other
# The history screen of the real monitor, in tmux: h opens it over runs
# recorded by batch runs, Enter shows a run with its plots, marked runs and
# groups compare, filters narrow the list, it works at 80x24 and 200x60,
# says when the terminal is too small, and h gives the monitor back.
. "$(dirname "$0")/lib.sh"
need_tmux

S="thrashtop-e2e-$$"
DB="$TMP/h.db"
cleanup "tm kill-session -t $S"
key() { tm send-keys -t "$S" "$@"; sleep 0.3; }

for l in a b; do
	"$T" -b -n 2000000 -p 2 -r 3 --history "$DB" -L "$l" >/dev/null 2>"$TMP/batch-$l"
	expect "batch-$l-recorded" test $? -eq 0
done

# Runs of the monitor's own session are in the list too: wait for it to end
# so the screen has 7 runs, newest first.
export LANG=C.UTF-8
tm new-session -d -s "$S" -x 80 -y 24 "$T -n 200000 -p 1 -d 0.2 --history $DB -L c 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
expect monitor-up wait_for 10 has 'major faults'
expect run-done wait_for 60 has '#1 .*pf+0w'
key h
expect opens wait_for 5 has 'thrashtop history  7 runs'
expect header has ' ID STARTED .*LABEL .*KERNEL .*WORKLOAD .*WALL MAJFLT KSWAPD STATUS'
expect cursor-run-host has "^#7 .*  host $(hostname | cut -c1-20)"
expect newest-first bash -c "tm capture-pane -p -t $S | sed -n 3p | grep -Eq '^ +7 .* c '"
expect oldest-last bash -c "tm capture-pane -p -t $S | sed -n 9p | grep -Eq '^ +1 .* a .*-n 2000000'"
expect rows-80-wide bash -c "tm capture-pane -p -t $S | sed -n 2p | awk '{ exit length > 80 }'"
expect cursor-line has '^#7 .*  c  .*qsbench -n 200000 -p 1'

# A run's details and its recorded plots.
key Enter
expect detail-title has '^run 7  c'
expect detail-csh has '^time (csh)  [0-9.]*u [0-9.]*s '
expect detail-gnu has '^time (GNU)  [0-9.]*user '
expect detail-kswapd has '^kswapd  '
key End
expect detail-plots bash -c "tm capture-pane -p -t $S | grep -Eq '^(kswapd CPU|minor faults/s|zswap writeback|CPU wait)'"
key q
expect detail-back wait_for 3 has 'thrashtop history  7 runs'

# Mark run 6 (b) and run 3 (a): compare the runs, then their groups.
key Down
key ' '
key Down
key Down
key ' '
expect two-marked has '2 marked'
key c
expect compare-runs wait_for 5 has '^compare 2 runs'
# what differs in their configuration first, as history compare says it
expect compare-config-first has '^label  *b -> a$'
expect compare-table has '^Amean  wall'
# past the stall rows
key End
expect compare-mmtests-note has "Welch's t-test"
key q
key g
key c
expect compare-groups wait_for 5 has '^compare 2 groups'
# each named as history stats names it: after its oldest run
expect group-stats wait_for 5 bash -c "tm capture-pane -p -t $S | grep -Eq 'g:4 b +g:1 a'" || tm capture-pane -p -t "$S" | head -8 | sed 's/^/  | /'
"$T" history --history "$DB" stats >"$TMP/gst" 2>&1
expect group-names-as-stats test "$(grep -cE "^group g:[14]: [ab]( |$)" "$TMP/gst")" -eq 2 ||
	grep '^group' "$TMP/gst"
key q

# Filters: a label, a kernel substring, and an empty answer clears each;
# each prompt whole on the bottom row, the cursor after what is typed.
key /
expect "label-prompt-whole[$(tm capture-pane -p -t $S | tail -1)]" has '^label (exact, or a pattern with \* ? \[ \]; empty clears):'
key a Enter
expect label-filter wait_for 3 has 'thrashtop history  3 runs  label=a'
key /
key Enter
expect label-cleared wait_for 3 has 'thrashtop history  7 runs'
key k
expect "kernel-prompt-whole[$(tm capture-pane -p -t $S | tail -1)]" has '^kernel contains (empty clears):'
key no-such-kernel Enter
expect kernel-filter wait_for 3 has 'no runs match the filter'
key k
key Enter
expect kernel-cleared wait_for 3 has 'thrashtop history  7 runs'

# Sizes.
tm resize-window -t "$S" -x 200 -y 60
expect at-200x60 wait_for 5 bash -c "tm capture-pane -p -t $S | head -1 | awk '{ exit length != 200 }'"
expect long-dates has '^ *7 [0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9] '
tm resize-window -t "$S" -x 50 -y 12
expect too-small wait_for 5 has 'terminal too small'
tm resize-window -t "$S" -x 80 -y 24
expect back-to-80x24 wait_for 5 has 'thrashtop history  7 runs'

# h leaves; the monitor is drawn again and quits cleanly.
key h
expect monitor-back wait_for 5 has 'major faults'
key q
expect quit-exit-0 wait_for 10 grep -qs EXIT=0 "$TMP/rc"
expect no-stderr no_err "$TMP/err"
end_session "$S"

# Without a history the status line says why, and the monitor stays.
tm new-session -d -s "$S" -x 80 -y 24 "$T -n 200000 -p 1 --no-history 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
expect nohist-monitor-up wait_for 10 has 'major faults'
key h
expect nohist-message wait_for 5 has '^no history view: this session runs with --no-history'
expect nohist-monitor-stays has 'major faults'
key q
expect nohist-quit wait_for 10 grep -qs EXIT=0 "$TMP/rc"
