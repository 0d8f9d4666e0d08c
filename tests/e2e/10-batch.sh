#!/usr/bin/env bash
# lane: other
# Batch mode: the csh and GNU lines, exit codes, bad input, and every figure
# checked against GNU time wrapped around the same process.
. "$(dirname "$0")/lib.sh"

N=3000000
out=$("$T" -b -n $N -p 2 -s 7 --no-history 2>"$TMP/err"); rc=$?
expect exit-0 test $rc -eq 0
csh='^[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s ([0-9]+:)?[0-9]+:[0-9]{2}\.[0-9]{2} [0-9]+\.[0-9]% [0-9]+\+[0-9]+k [0-9]+\+[0-9]+io [0-9]+pf\+[0-9]+w$'
expect csh-line-format grep -Eq "$csh" <<<"$(sed -n 1p <<<"$out")"
expect kswapd-line grep -Eq '^([0-9]+:[0-9]{2}|n/a) kswapd$' <<<"$(sed -n 2p <<<"$out")"
expect stall-line grep -Eq '^(stalls:( [0-9]+\.[0-9]s [a-z]+)+|n/a stalls)$' <<<"$(sed -n 3p <<<"$out")"
# the stall line goes on indented where it would pass 76 columns
expect stall-line-goes-on test "$(sed -n '4,$p' <<<"$out" | grep -Evc '^  ([0-9]+\.[0-9]s [a-z]+ ?)+$')" -eq 0
expect lines-fit-a-mail test "$(awk 'length > 76' <<<"$out" | wc -l)" -eq 0
expect three-lines-per-run test "$(grep -vc '^  ' <<<"$out")" -eq 3

out=$("$T" -b -n $N -p 1 --format=gnu --no-history 2>/dev/null)
expect gnu-line-format grep -Eq '^[0-9]+\.[0-9]{2}user [0-9]+\.[0-9]{2}system [0-9]+:[0-9]{2}(\.[0-9]{2}|:[0-9]{2}) [0-9]+%CPU \([0-9]+major\+[0-9]+minor\)$' <<<"$(sed -n 1p <<<"$out")"

out=$("$T" -b -n $N -p 1 -r 3 --no-history 2>/dev/null)
expect repeat-3-gives-3-runs test "$(grep -c 'pf+' <<<"$out")" -eq 3

# Not a terminal: batch without -b.
out=$("$T" -n 100000 -p 1 --no-history </dev/null 2>/dev/null | cat)
expect pipe-implies-batch grep -q 'pf+0w' <<<"$out"

# GNU time around thrashtop counts thrashtop itself plus the reaped workers;
# ours counts only the workers, so ours must be a little below, never above.
/usr/bin/time -o "$TMP/gt" -f '%U %S %F %R' "$T" -b -n 5000000 -p 1 --no-history --format=gnu >"$TMP/ours" 2>/dev/null
read -r gu gs gF gR <"$TMP/gt"
line=$(head -1 "$TMP/ours")
ou=$(sed -E 's/^([0-9.]+)user.*/\1/' <<<"$line")
os=$(sed -E 's/^[0-9.]+user ([0-9.]+)system.*/\1/' <<<"$line")
oF=$(sed -E 's/.*\(([0-9]+)major.*/\1/' <<<"$line")
oR=$(sed -E 's/.*\+([0-9]+)minor.*/\1/' <<<"$line")
# The monitor's own share: a second of sampling plus start-up, under ASan.
expect user-vs-gnu-time awk -v o="$ou" -v g="$gu" 'BEGIN { exit !(o <= g + 0.01 && g - o < 1.0) }'
expect sys-vs-gnu-time awk -v o="$os" -v g="$gs" 'BEGIN { exit !(o <= g + 0.01 && g - o < 1.0) }'
expect majflt-vs-gnu-time awk -v o="$oF" -v g="$gF" 'BEGIN { exit !(o <= g) }'
# 5M ints = 19.5 MiB = about 4,900 pages touched by the worker.
expect minflt-vs-gnu-time awk -v o="$oR" -v g="$gR" 'BEGIN { exit !(o <= g && o >= 4700 && g - o < 20000) }'

# maxresident: the worker's peak, at least its 19.5 MiB array; GNU time's is
# the largest of thrashtop and the workers it reaped. The history keeps it.
/usr/bin/time -o "$TMP/gm" -f '%M' "$T" -b -n 5000000 -p 1 --history "$TMP/m.db" --no-stalls \
	--format=gnu-full >"$TMP/full" 2>/dev/null
om=$(sed -nE 's/.* ([0-9]+)maxresident\)k$/\1/p' "$TMP/full")
expect "maxrss-vs-gnu-time[$om $(cat "$TMP/gm")]" awk -v o="$om" -v g="$(cat "$TMP/gm")" 'BEGIN { exit !(o >= 19532 && o <= g) }'
kept=$("$T" history --history "$TMP/m.db" show 1 | sed -nE 's/^maxrss_kib +.*\(([0-9]+) KiB\)$/\1/p')
expect "maxrss-kept[$kept]" test "$kept" = "$om"
expect maxrss-exported eval "'$T' history --history '$TMP/m.db' export --format=json | grep -q '\"maxrss_kib\": $om,'"

# Bad input: one line on stderr, exit 2, nothing started.
for bad in "-n 0" "-n abc" "-p 0" "-p 1025" "-d 0.001" "-d x" "--format=xml" "--mem 12Q" "-s" "--bogus" "stray"; do
	# shellcheck disable=SC2086
	"$T" -b $bad --no-history >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect "bad-input[$bad]" test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1 -a ! -s "$TMP/o"
done
"$T" -b --no-history -- /nonexistent/cmd >/dev/null 2>"$TMP/e"; rc=$?
expect command-not-found-exit-2 test $rc -eq 2
expect command-not-found-message grep -q "No such file" "$TMP/e"

# A failing command is a failed run: exit 1, its line still printed and
# marked, and stderr says how it ended.
out=$("$T" -b --no-history --no-stalls -- sh -c 'exit 3' 2>"$TMP/e"); rc=$?
expect failed-command-exit-1 test $rc -eq 1
expect failed-command-line grep -q 'pf+0w  failed$' <<<"$out"
expect failed-command-why grep -Eqx 'thrashtop: sh [0-9]+ exited with status 3' "$TMP/e"
"$T" -b --no-history --no-stalls -- sh -c 'kill -SEGV $$' >/dev/null 2>"$TMP/e"
expect failed-command-signal grep -Eqx 'thrashtop: sh [0-9]+ killed by signal 11 \(.+\)' "$TMP/e"
# What a command leaves running is killed as it ends, and said: one in its
# process group, one orphaned to us; none where it waited for its children.
"$T" -b --no-history --no-stalls -- sh -c 'sleep 37 & (sleep 38 &); exit 0' >/dev/null 2>"$TMP/e"
expect left-running-said grep -qx 'thrashtop: the command left 2 processes running as it ended: killed, as a run ends with its command' "$TMP/e"
expect left-running-killed bash -c "! pgrep -f '^sleep 3[78]$' >/dev/null"
grep -q 'left 2' "$TMP/e" || sed 's/^/  stderr: /' "$TMP/e"
"$T" -b --no-history --no-stalls -- sh -c 'sleep 0.2 & wait' >/dev/null 2>"$TMP/e"
expect left-none-silent bash -c "! grep -q 'left' '$TMP/e'"
# Sorters that cannot allocate their arrays (256G each, the most -n
# takes): named, the rest counted, and in the history not "verify ok".
# Only where the kernel refuses that much: no overcommit of everything,
# and less than 200 GiB of RAM and swap.
ramswap=$(awk '/^(MemTotal|SwapTotal):/ { s += $2 } END { print int(s / 1048576) }' /proc/meminfo)
if [ "$(cat /proc/sys/vm/overcommit_memory)" != 1 ] && [ "$ramswap" -lt 200 ]; then
	"$T" -b --history "$TMP/fail.db" --no-stalls -n 68719476736 -p 5 >"$TMP/o" 2>"$TMP/e"; rc=$?
	expect failed-alloc-exit-1 test $rc -eq 1
	expect failed-alloc-why test "$(grep -Ec '^thrashtop: worker [0-9]+ could not allocate its 256G array: exit 1$' "$TMP/e")" -eq 3
	expect failed-alloc-more grep -qx 'thrashtop: 2 more workers failed' "$TMP/e"
	expect failed-alloc-not-verified grep -Eq '^ +0 +[0-9]+ exit +1 +0 .* n/a$' \
		<("$T" history --history "$TMP/fail.db" show 1)
else
	skip failed-alloc "the kernel may give 256 GiB (overcommit_memory $(cat /proc/sys/vm/overcommit_memory), ${ramswap} GiB of RAM and swap)"
fi

# A limit below a page says so, not just what a size looks like.
"$T" -b --no-history -n 1000 --mem 1K >"$TMP/o" 2>"$TMP/e"; rc=$?
expect mem-below-a-page test $rc -eq 2 -a "$(cat "$TMP/e")" = "thrashtop: --mem '1K': at least a page, 4K"

# A sysctl given twice is refused, not half taken ("(asked 60)").
"$T" -b --no-history -n 1000 --sysctl vm.swappiness=60 --sysctl vm.swappiness=100 >"$TMP/o" 2>"$TMP/e"; rc=$?
expect sysctl-twice test $rc -eq 2 -a "$(cat "$TMP/e")" = "thrashtop: --sysctl vm.swappiness given twice" -a ! -s "$TMP/o"

# SIGTERM mid-run: workers killed and reaped, exit 128+15.
"$T" -b -n 400000000 -p 2 --no-history >"$TMP/o" 2>&1 &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid; rc=$?
expect sigterm-exit-143 test $rc -eq 143
expect sigterm-no-orphans bash -c "! pgrep -P $pid >/dev/null && ! pgrep -f '[t]hrashtop-san -b -n 400000000' >/dev/null"

# SIGKILL, which no handler sees: the command dies with the monitor, and
# what it forked in its process group with it (the watchdog's kill).
mark=$((RANDOM + 1000))
"$T" -b --no-history -- sh -c "sleep $mark.5 & wait" >"$TMP/o" 2>&1 &
pid=$!
started $pid
wait_for 10 pgrep -fx "sleep $mark.5" >/dev/null
expect sigkill-command-forked bash -c "pgrep -fx 'sleep $mark.5' >/dev/null"
kill -KILL $pid
wait $pid 2>/dev/null
expect sigkill-command-tree-gone wait_for 10 bash -c "! pgrep -fx 'sleep $mark.5' >/dev/null" ||
	ps -o pid,ppid,pgid,stat,cmd -p "$(pgrep -d, -fx "sleep $mark.5")"
pkill -KILL -fx "sleep $mark.5" || true
