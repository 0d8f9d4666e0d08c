#!/usr/bin/env bash
# lane: other
# The series registry from the command line: --list-plots against what
# /proc offers, and the config file refusing bad input in one line.
. "$(dirname "$0")/lib.sh"

"$T" --list-plots >"$TMP/list" 2>"$TMP/err"; rc=$?
expect list-exit-0 test $rc -eq 0 -a ! -s "$TMP/err"
n=$(awk 'NR > 1 && $NF == "yes"' "$TMP/list" | wc -l)
expect "list-at-least-20-available[$n]" test "$n" -ge 20
# Each /proc/vmstat series is available exactly when the kernel has its key.
for pair in refault-anon:workingset_refault_anon refault-file:workingset_refault_file \
	    scan-direct:pgscan_direct pswpin:pswpin allocstall:allocstall_normal; do
	name=${pair%%:*} key=${pair#*:}
	line=$(grep "^$name " "$TMP/list")
	if grep -q "^$key " /proc/vmstat; then
		expect "list-$name-available" grep -q ' yes$' <<<"$line"
	else
		expect "list-$name-unavailable-why" grep -q "no: kernel has no" <<<"$line"
	fi
done
if [ -r /proc/pressure/memory ]; then
	expect list-psi-available grep -Eq '^psi-some .* yes$' "$TMP/list"
else
	expect list-psi-why grep -q '^psi-some .*no: no /proc/pressure/memory' "$TMP/list"
fi
expect list-cgroup-needs-mem grep -q '^cg-mem .*no: only with --mem' "$TMP/list"
# With the tuning flags beside it, what such a session would have.
"$T" --list-plots --mem 100M --swap zram:1G >"$TMP/list-tuned" 2>"$TMP/err"
expect list-with-mem-cgroup grep -Eq '^cg-mem .* yes$' "$TMP/list-tuned"
expect list-with-zram grep -Eq '^zram-orig .* yes$' "$TMP/list-tuned"
if [ -d /sys/kernel/tracing ] || grep -qw tracefs /proc/filesystems; then
	expect list-with-mem-events grep -Eq '^direct-stalls .* yes$' "$TMP/list-tuned"
fi
grep -Eq '^cg-mem .* yes$' "$TMP/list-tuned" || cat "$TMP/list-tuned" "$TMP/err"

# A bad config line: "FILE:LINE: what", exit 2, nothing run.
mkdir -p "$XDG_CONFIG_HOME/thrashtop"
cfg=$XDG_CONFIG_HOME/thrashtop/config
printf '# settings\ndelay = 0.5\ndelay 5\n' >"$cfg"
"$T" -b -n 1000 -p 1 --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect bad-config-exit-2 test $rc -eq 2 -a ! -s "$TMP/o"
expect bad-config-file-line grep -qx "thrashtop: $cfg:3: want key = value" "$TMP/e"
printf 'plots = free,bogus\n' >"$cfg"
"$T" -b -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/e"
expect bad-config-plot grep -qx "thrashtop: $cfg:1: no plot named \"bogus\" (thrashtop --list-plots lists them)" "$TMP/e"
printf 'colour = on\n' >"$cfg"
"$T" -b -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/e"
expect bad-config-key grep -qx "thrashtop: $cfg:1: unknown key 'colour' (keys: delay, plots)" "$TMP/e"
printf 'delay = 0.5\n' >"$cfg"
"$T" -b -n 1000 -p 1 --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
expect good-config-runs test $rc -eq 0 -a -z "$(grep -Ev "$STALLS_NA" "$TMP/e")"
