#!/usr/bin/env bash
# lane: other
# Choosing the plots: --plots picks them and their order, the chooser (c)
# changes them live and saves them to the config file, the next start
# reads it, and --plots overrides it.
. "$(dirname "$0")/lib.sh"
need_tmux

S="thrashtop-e2e-$$"
cfg=$XDG_CONFIG_HOME/thrashtop/config
cleanup "tm kill-session -t $S"
# the plot titles on screen, in order, as "name|name|..."
titles() {
	screen | grep -Eo '(swap used|major faults|minor faults|free|available|kswapd CPU|page cache|scan kswapd|scan direct|PSI some avg10|PSI full avg10|swap-outs|alloc stalls) [0-9n]' |
		sed 's/ [0-9n]$//' | paste -sd'|'
}
export S
export -f screen titles
start() {
	end_session "$S"
	tm new-session -d -s "$S" -x 100 -y 30 "$T -n 200000000 -p 1 -d 0.2 --no-history $* 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 30"
}

# Bad names are refused in one line before anything starts.
"$T" -b -n 1000 -p 1 --no-history --plots=free,nope >"$TMP/o" 2>"$TMP/e"; rc=$?
expect bad-plot-exit-2 test $rc -eq 2 -a ! -s "$TMP/o"
expect bad-plot-message grep -qx 'thrashtop: --plots: no plot named "nope" (thrashtop --list-plots lists them)' "$TMP/e"
"$T" -b -n 1000 -p 1 --no-history --plots=free,free >/dev/null 2>"$TMP/e"
expect repeated-plot-message grep -qx 'thrashtop: --plots: plot "free" is listed twice' "$TMP/e"

# --plots: exactly these, in this order.
start --plots=scan-kswapd,psi-some,free
expect plots-flag-order wait_for 30 bash -c '[ "$(titles)" = "scan kswapd|PSI some avg10|free" ]'
got=$(titles)
[ "$got" = "scan kswapd|PSI some avg10|free" ] || echo "  titles: $got"

# The default layout: the headline figures, reclaim scanning and PSI.
start
want="swap used|major faults|free|minor faults|available|kswapd CPU|scan kswapd|scan direct|PSI some avg10|PSI full avg10"
expect default-layout wait_for 30 bash -c "[ \"\$(titles)\" = \"$want\" ]"
got=$(titles)
[ "$got" = "$want" ] || { echo "  titles: $got"; screen | sed 's/^/  screen: /'; }
got=$(titles)
[ "$got" = "$want" ] || echo "  titles: $got"

# A key and an arrow in one burst, the first keys the monitor reads: the
# arrow must not be taken for Esc (it closed the chooser and saved).
start --plots=free
expect burst-monitor-up wait_for 30 bash -c '[ "$(titles)" = "free" ]'
tm send-keys -t "$S" c Down
sleep 1
expect burst-arrow-not-esc has 'plots: 1 shown'
expect burst-nothing-saved test ! -e "$cfg"
start
expect default-again wait_for 30 bash -c "[ \"\$(titles)\" = \"$want\" ]"

# Closed with nothing changed, or cancelled with Esc, the chooser writes
# no config file; Esc puts the plots back as they were.
tm send-keys -t "$S" c
expect unchanged-opens wait_for 5 has 'plots: 10 shown (the default layout)'
tm send-keys -t "$S" q
expect unchanged-says wait_for 5 has 'plots unchanged: nothing saved'
expect unchanged-nothing-saved test ! -e "$cfg"
tm send-keys -t "$S" c
expect cancel-opens wait_for 5 has 'plots: 10 shown (the default layout)'
tm send-keys -t "$S" Down Down Down ' '
expect cancel-hide-is-live wait_for 5 bash -c '! titles | grep -q "minor faults"'
tm send-keys -t "$S" Escape
expect cancel-says wait_for 5 has 'plots as they were: nothing saved'
expect "cancel-plots-back[$(titles)]" wait_for 5 bash -c "[ \"\$(titles)\" = \"$want\" ]"
expect cancel-nothing-saved test ! -e "$cfg"

# The chooser: hide minor faults (4th), show page cache, move it up one;
# each change shows at once behind the chooser, and q saves.
tm send-keys -t "$S" c
expect chooser-opens wait_for 5 has 'plots: 10 shown (the default layout)'
tm send-keys -t "$S" Down Down Down ' '
expect hide-is-live wait_for 5 bash -c '! titles | grep -q "minor faults"'
expect chooser-counts wait_for 5 has 'plots: 9 shown'
# the list is now the 9 shown, then cached (10th row) ...
tm send-keys -t "$S" Home
for i in 1 2 3 4 5 6 7 8 9; do tm send-keys -t "$S" Down; done
tm send-keys -t "$S" ' ' '['
expect chooser-show-cached wait_for 5 has '9 \[x\] cached'
tm send-keys -t "$S" q
expect saved-note wait_for 5 has "plots saved to $cfg"
want="swap-used,majflt,free,available,kswapd-cpu,scan-kswapd,scan-direct,psi-some,cached,psi-full"
expect config-written grep -qx "plots = $want" "$cfg"
grep -qx "plots = $want" "$cfg" || { echo "  config:"; sed 's/^/    /' "$cfg"; }
expect chooser-closed wait_for 5 bash -c '! tm capture-pane -p -t '"$S"' | grep -q "plots: 9 shown"'
tm send-keys -t "$S" q
# q mid-run: exit 1
expect quit-exit-1 wait_for 10 grep -qs EXIT=1 "$TMP/rc"
grep -qs EXIT=1 "$TMP/rc" || cat "$TMP/rc"
expect no-stderr no_err "$TMP/err"
[ ! -s "$TMP/err" ] || cat "$TMP/err" >&2

# The next start reads it; --plots overrides it, and "default" too.
start
want="swap used|major faults|free|available|kswapd CPU|scan kswapd|scan direct|PSI some avg10|page cache|PSI full avg10"
expect config-read-at-start wait_for 30 bash -c "[ \"\$(titles)\" = \"$want\" ]"
start --plots=majflt
expect flag-overrides-config wait_for 30 bash -c '[ "$(titles)" = "major faults" ]'
start --plots=default
expect default-overrides-config wait_for 30 bash -c 'titles | grep -q "minor faults"'
tm send-keys -t "$S" q
expect last-quit-exit-1 wait_for 10 grep -qs EXIT=1 "$TMP/rc"
grep -qs EXIT=1 "$TMP/rc" || cat "$TMP/rc"
