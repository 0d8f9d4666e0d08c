#!/usr/bin/env bash
# lane: confined
# A session whose runs happen at an agent's place (--agent, `thrashtop
# agent` over a socket): the time lines as a local run prints them, with
# figures the command's own GNU time gives; its output, tuning set up AT
# THE AGENT and described in the stored run, stall figures and reclaim
# events; a sweep's cells set up there; the monitor's s/S key stepping the
# agent's swappiness; and the host killed mid-run: the agent stops the
# workload and undoes its tuning.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock 300
[ -w /sys/class/zram-control/hot_add ] || { skip "no zram-control"; exit 0; }
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
[ -x /usr/bin/time ] || { skip "no GNU time"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
A="$T agent"
da0=$(cat /proc/sys/kernel/task_delayacct)
cleanup "echo $da0 >/proc/sys/kernel/task_delayacct"
cleanup kill_ours
zrams() { ls /sys/block | grep '^zram' | sort; }
zrams >"$TMP/zram0"
CSH='^[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9]+:[0-9]{2}\.[0-9]{2} [0-9.]+% [0-9]+\+[0-9]+k [0-9]+\+[0-9]+io [0-9]+pf\+[0-9]+w$'

# Sorters, twice: the same lines as a local run's.
"$T" -b --no-history -n 2000000 -p 2 -r 2 >"$TMP/local" 2>"$TMP/local-err"
"$T" -b --history "$DB" --agent "$A" -n 2000000 -p 2 -r 2 >"$TMP/out" 2>"$TMP/err"
expect sorter-exit test $? = 0
n_local=$(grep -cE "$CSH" "$TMP/local"); n=$(grep -cE "$CSH" "$TMP/out")
expect "sorter-two-time-lines[$(head -1 "$TMP/out")]" test "$n" = 2 -a "$n_local" = 2
# user+sys within a factor of 3 of the local run's: the same sort
u() { grep -E "$CSH" "$1" | head -1 | awk '{ print $1 + $2 }'; }
expect "sorter-cpu-like-local[$(u "$TMP/out") vs $(u "$TMP/local")]" \
	awk -v a="$(u "$TMP/out")" -v b="$(u "$TMP/local")" 'BEGIN { exit !(a > b / 3 && a < b * 3) }'
expect "sorter-stored[$(cat "$TMP/err")]" \
	test "$("$T" history --history "$DB" list 2>/dev/null | grep -c -- '-n 2000000 -p 2')" = 2

# A command under GNU time at the agent: its output comes through, and
# the run's figures are those its wait4 rusage gave (time's own process
# adds a few page faults and a millisecond or two).
"$T" -b --no-history --agent "$A" --format=gnu-full -- /usr/bin/time -f 'TIME %U %S %F %R' \
	sh -c 'echo "out: a b%c=d"; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' \
	>"$TMP/cmd" 2>"$TMP/cmd-err"
expect "command-output[$(head -1 "$TMP/cmd")]" grep -qx 'out: a b%c=d' "$TMP/cmd"
read -r _ tu ts tmaj tmin < <(grep '^TIME' "$TMP/cmd" "$TMP/cmd-err" -h)
line=$(grep 'pagefaults' "$TMP/cmd")
rmaj=$(sed -n 's/.*(\([0-9]*\)major+\([0-9]*\)minor).*/\1/p' <<<"$line")
rmin=$(sed -n 's/.*(\([0-9]*\)major+\([0-9]*\)minor).*/\2/p' <<<"$line")
rcpu=$(grep -oE '^[0-9.]+user [0-9.]+system' "$TMP/cmd" | awk '{ print $1 + $2 }')
expect "command-faults[time $tmaj+$tmin, run $rmaj+$rmin]" \
	awk -v a="$rmin" -v b="$tmin" -v c="$rmaj" -v d="$tmaj" 'BEGIN { exit !(a >= b && a <= b + 400 && c >= d && c <= d + 5) }'
expect "command-cpu[time $tu+$ts, run $rcpu]" \
	awk -v a="$rcpu" -v b="$tu" -v c="$ts" 'BEGIN { exit !(a >= b + c - 0.011 && a <= b + c + 0.05) }'

# Tuning at the agent: its cgroup and zram, in the record; stall figures;
# the reclaim events the agent traced, in the line and the record alike.
"$T" -b --history "$DB" -L at-agent --agent "$A" -n 4000000 -p 2 --mem 16M --swap zram:256M \
	>"$TMP/tuned" 2>"$TMP/tuned-err"
expect "tuned-exit[$(tr '\n' ' ' <"$TMP/tuned-err")]" test $? = 0
expect "tuned-said[$(grep "agent's place" "$TMP/tuned-err")]" \
	grep -q "at the agent's place: mem 16M, swap zram[0-9]* 256M" "$TMP/tuned-err"
expect "tuned-stalls[$(grep stalls "$TMP/tuned")]" grep -qE '^stalls: [0-9.]+s swapin' "$TMP/tuned"
id=$("$T" history --history "$DB" list 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $1 > id { id = $1 } END { print id }')
"$T" history --history "$DB" show "$id" >"$TMP/show" 2>&1
expect "record-mem-limit[$(grep mem_limit "$TMP/show")]" grep -qE '^mem_limit_kib +16M' "$TMP/show"
rline=$(sed -n '/^reclaim: /,/ lost$/p' "$TMP/tuned" | tr '\n' ' ')
said() { sed -n "s/.*[ ,]\([0-9][0-9]*\) $1.*/\1/p" <<<"$rline"; }
kept() { awk -v k="reclaim_$1" '$1 == k { print $2 }' "$TMP/show"; }
for f in "direct stalls:direct_stalls" "memcg stalls:memcg_stalls" "wakes:kswapd_wakes" \
	"throttled:throttled" "OOM:oom"; do
	expect "reclaim-${f#*:}-as-stored[line $(said "${f%%:*}"), record $(kept "${f#*:}")]" \
		test -n "$(said "${f%%:*}")" -a "$(said "${f%%:*}")" = "$(kept "${f#*:}")"
done
"$T" history --history "$DB" export --format=json -L at-agent >"$TMP/tuned.json" 2>&1
nev=$(grep -o '"kind": "[a-z]*", "t_s"' "$TMP/tuned.json" | wc -l)
expect "reclaim-events-stored[$nev, $rline]" test "$nev" -gt 0 -a "$(kept memcg_stalls)" -gt 0
expect "record-swap-backend[$(grep swap_backend "$TMP/show")]" grep -qE '^swap_backend +zram 256M' "$TMP/show"
zrams >"$TMP/zram1"
expect "tuned-nothing-left" cmp -s "$TMP/zram0" "$TMP/zram1"

# A sweep at the agent: each cell set up there, the table as a local
# sweep's, each record with its cell and the swappiness it ran at.
sw0=$(cat /proc/sys/vm/swappiness)
"$T" -b --history "$DB" -L swept --agent "$A" --sweep swappiness=60,100 -n 1000000 -p 1 \
	>"$TMP/swept" 2>"$TMP/swept-err"
expect "sweep-exit[$(tr '\n' ' ' <"$TMP/swept-err")]" test $? = 0
expect "sweep-cells[$(grep -c '^cell' "$TMP/swept")]" \
	test "$(grep -cE '^cell [12]/2: swappiness=(60|100)$' "$TMP/swept")" = 2
expect "sweep-table[$(grep -E '^(60|100) ' "$TMP/swept" | tr '\n' ' ')]" \
	test "$(grep -cE '^(60|100) +[0-9]+:[0-9.]+ n=1' "$TMP/swept")" = 2
"$T" history --history "$DB" export --format=json -L swept >"$TMP/swept.json" 2>&1
cells=$(grep -oE '"cell": "swappiness=[0-9]+"|"swappiness": "?[0-9]+' "$TMP/swept.json" | tr -d '"' |
	tr '\n' ' ')
expect "sweep-records[$cells]" grep -qE 'cell: swappiness=(60|100) swappiness: (60|100) cell: swappiness=(60|100) swappiness: (60|100)' <<<"$cells"
expect "sweep-records-differ[$cells]" test "$(grep -oE 'swappiness: [0-9]+' <<<"$cells" | sort -u | wc -l)" = 2
expect "sweep-swappiness-restored" test "$(cat /proc/sys/vm/swappiness)" = "$sw0"

# The host killed mid-run: the agent stops the sort and undoes it all.
"$T" -b --no-history --agent "$A" -n 50000000 -p 2 --mem 64M --swap zram:256M \
	>"$TMP/killed" 2>&1 &
host=$!
started "$host"
agent_pid() { pgrep -P "$host" -f 'agent$'; }
cg_of() { ls -d /sys/fs/cgroup/memory/thrashtop-"$1" /sys/fs/cgroup/thrashtop-"$1" 2>/dev/null; }
sorting() { local a; a=$(agent_pid) && [ -n "$(cat "$(cg_of "$a")/cgroup.procs" 2>/dev/null)" ]; }
if expect killed-set-up wait_for 30 sorting; then
	ag=$(agent_pid); cg=$(cg_of "$ag"); workers=$(cat "$cg/cgroup.procs")
	expect "killed-cgroup-is-the-agents[$cg]" test -n "$cg"
	kill -9 "$host"; wait "$host" 2>/dev/null
	undone() { gone "$ag" && [ ! -e "$cg" ] && zrams | cmp -s "$TMP/zram0" - &&
		[ "$(cat /proc/sys/kernel/task_delayacct)" = "$da0" ]; }
	expect "killed-undone[agent $ag, $cg, zram $(zrams | tr '\n' ' '), delayacct $(cat /proc/sys/kernel/task_delayacct)]" \
		wait_for 30 undone
	left=; for w in $workers; do alive "$w" && left="$left $w"; done
	expect "killed-workers-gone[$left]" test -z "$left"
	expect "killed-state-empty" test ! -s "$THRASHTOP_STATE_DIR/state"
fi

# The monitor: its worker rows are the agent's sorters, by their pids.
need_tmux
S="thrashtop-e2e-agent-$$"
cleanup "tm kill-session -t $S"
tm new-session -d -s "$S" -x 100 -y 30 "$T --no-history --agent '$A' -n 100000000 -p 2 -d 0.5; sleep 30"
agents_children() {
	local p
	for p in $(ours); do
		[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "$T agent " ] && pgrep -P "$p"
	done
}
rows_are_agents() {
	local kids n=0 k
	kids=$(agents_children)
	for k in $kids; do screen | grep -qE "^ +$k [RSD] sort" && n=$((n + 1)); done
	[ "$n" = 2 ]
}
expect "monitor-rows-are-the-agents-workers[$(agents_children | tr '\n' ' ')]" wait_for 20 rows_are_agents ||
	screen | sed 's/^/  /' | tail -8
# S steps the agent's swappiness (here: this machine's) up; undone at its end
key=S sw1=$((sw0 + 10)); [ "$sw0" -ge 200 ] && key=s sw1=$((sw0 - 10))
tm send-keys -t "$S" "$key"
expect "monitor-S-note[$(screen | grep -o 'vm.swappiness.*' | head -1)]" \
	wait_for 5 has "vm.swappiness $sw0 -> $sw1 (restored at exit)"
expect "monitor-S-header[$(screen | grep -o 'swappiness [0-9]*' | head -1)]" has "swappiness $sw1\\b"
expect "monitor-S-at-the-agent[$(cat /proc/sys/vm/swappiness)]" test "$(cat /proc/sys/vm/swappiness)" = "$sw1"
tm send-keys -t "$S" q
wait_for 10 has "$S" "0:00 kswapd" >/dev/null
end_session "$S"
sw_back() { [ "$(cat /proc/sys/vm/swappiness)" = "$sw0" ]; }
expect "monitor-S-restored[$(cat /proc/sys/vm/swappiness), was $sw0]" wait_for 15 sw_back

# An agent that cannot start: one line, exit 2.
"$T" -b --no-history --agent "$TMP/none agent" -n 1000 >"$TMP/bad" 2>&1
rc=$?
expect "bad-agent[$(cat "$TMP/bad")]" test "$rc" = 2 -a "$(wc -l <"$TMP/bad")" = 1

# CMD is split as sh would: a quoted word holds its space; what only a
# shell could run is refused in one line.
mkdir "$TMP/a b"
ln -s "$T" "$TMP/a b/tt"
"$T" -b --no-history --agent "'$TMP/a b/tt' agent" -n 1000 -p 1 >"$TMP/q.out" 2>&1
rc=$?
expect "agent-quoted-word[$rc: $(tail -1 "$TMP/q.out")]" test "$rc" = 0 -a "$(grep -c 'pf+' "$TMP/q.out")" = 1
"$T" -b --no-history --agent "$T agent | cat" -n 1000 >"$TMP/bad" 2>&1
rc=$?
expect "agent-shell-only-refused[$rc: $(cat "$TMP/bad")]" test "$rc" = 2 -a "$(wc -l <"$TMP/bad")" = 1

# The agent's own failure to set up: said once, by the session.
"$T" -b --no-history --agent "$T agent" --zswap lz4 -n 1000 >"$TMP/bad" 2>&1
rc=$?
expect "agent-failure-said-once[$rc: $(cat "$TMP/bad")]" \
	test "$rc" = 2 -a "$(wc -l <"$TMP/bad")" = 1 -a "$(grep -c lz4 "$TMP/bad")" = 1
