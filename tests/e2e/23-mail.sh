#!/usr/bin/env bash
# lane: other
# For the mail: w writes the screen, plots in ASCII, to a text file named
# in the status line; when the monitor exits, the session's runs are
# printed as the batch mode prints them (the alternate screen took them).
. "$(dirname "$0")/lib.sh"
need_tmux

S=m
cd "$TMP" || exit 1
tm new-session -d -s m -x 120 -y 40 -c "$TMP" \
	"$T -n 1000000 -p 2 -d 0.2 -r 2 --no-history 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
expect runs-done wait_for 60 has '#2 '
tm send-keys -t m w
expect status-names-file wait_for 5 has 'screen written to ./thrashtop-[0-9]\{8\}-[0-9]\{6\}\.txt'
f=$(ls "$TMP"/thrashtop-*.txt 2>/dev/null | head -1)
expect file-written test -s "$f"
expect file-ascii-only bash -c "! LC_ALL=C grep -q '[^ -~]' '$f' || { LC_ALL=C grep -n '[^ -~]' '$f' | head -3 >&2; false; }"
expect file-has-plots grep -q 'major faults' "$f"
expect file-has-header grep -q '^thrashtop' "$f"
expect file-has-runs grep -q '^#2 ' "$f"
expect file-one-line-per-row test "$(wc -l <"$f")" -eq 40
tm send-keys -t m q
expect exit-0 wait_for 10 grep -qs EXIT=0 "$TMP/rc"
# After the alternate screen: two csh time lines, each with its kswapd and
# stall lines.
screen >"$TMP/after"
expect time-lines-printed test "$(grep -cE '^[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9:.]+ [0-9.]+%' "$TMP/after")" -eq 2
expect kswapd-lines-printed test "$(grep -cE '^[0-9]+:[0-9]{2} kswapd$' "$TMP/after")" -eq 2
expect stall-lines-printed test "$(grep -cE '^(stalls:( [0-9]+\.[0-9]s [a-z]+)+|n/a stalls)$' "$TMP/after")" -eq 2
# a plain session with delay accounting off says so, and nothing else
expect no-stderr-but-stalls no_err "$TMP/err"
# n/a stall lines come with their reason, as batch gives it: the status
# line that said it is gone with the screen. Off from the start is said
# once; a run it was turned off under (by a session beside) says so too.
if grep -qx 'n/a stalls' "$TMP/after"; then
	expect na-stalls-reason grep -qE "$STALLS_NA" "$TMP/err"
	expect na-stalls-off-said-once test "$(grep -c 'n/a stalls: kernel.task_delayacct is 0' "$TMP/err")" -le 1
else
	skip na-stalls-reason-once "delay accounting was on (another session turned it on)"
fi
end_session m
# --no-stalls: the user asked for none, so the reason is not given back,
# as batch does not give it
tm new-session -d -s ns -x 120 -y 40 -c "$TMP" \
	"$T -n 1000000 -p 1 -d 0.2 --no-stalls --no-history 2>$TMP/err-ns; echo EXIT=\$? >$TMP/rc-ns; sleep 60"
expect no-stalls-run-done wait_for 60 has ns '#1 '
tm send-keys -t ns q
expect no-stalls-exit-0 wait_for 10 grep -qs EXIT=0 "$TMP/rc-ns"
expect no-stalls-line grep -qx 'n/a stalls' <(screen ns)
expect no-stalls-no-reason bash -c "! grep -q 'n/a stalls' $TMP/err-ns"
end_session ns
