#!/usr/bin/env bash
# lane: confined
# Two boxes side by side (--host alpha --host beta), each an sshd in a
# namespace of its own on this machine (lib.sh's ssh_box). Batch mode:
# each run's time lines under its place's line, the places' table, both
# runs stored with their own host names, one session id and a cell each,
# the shared cores said and kept, history compare session:ID setting the
# places beside each other. The monitor at 160x50 and 80x24: both
# places' legends in every plot title and each one's workers under its
# head row. A sweep over boxes runs them side by side. One sshd killed
# mid-run: its place's run kept as aborted and said in one line, the
# other's run completes, nothing left on the killed box.
. "$(dirname "$0")/lib.sh"
need_root
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
CSH='^[0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9]+:[0-9]{2}\.[0-9]{2} [0-9.]+% [0-9]+\+[0-9]+k [0-9]+\+[0-9]+io [0-9]+pf\+[0-9]+w( .*)?$'
need_machine_lock 300
cleanup kill_ours
mkdir -m 700 "$THRASHTOP_STATE_DIR"
need_tmux
ssh_setup
A=tt-alpha-$$ B=tt-beta-$$
ssh_box alpha "$A" 0
ssh_box beta "$B" 1
ln -s "$T" "$TMP/bin/thrashtop"
H=$TMP/h.db
runs() { "$T" history export --history "$H" --format=json | python3 -c '
import json, sys
print(json.dumps(sorted(json.load(sys.stdin)["runs"], key=lambda r: r["id"])))'; }
judge() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); $2" "$1"; }

t0=$SECONDS
# Batch mode: both at once, each run under its place's line.
"$T" -b --history "$H" -L sides --host alpha --host beta -n 2000000 -p 1 >"$TMP/b.out" 2>"$TMP/b.err"
rc=$?
expect "batch-exit[$rc: $(tr '\n' '|' <"$TMP/b.err")]" test "$rc" = 0
expect "batch-alpha-line[$(tr '\n' '|' <"$TMP/b.out")]" \
	grep -A1 -x "alpha hostname=$A kernel=$(uname -r):" "$TMP/b.out" | grep -qE "$CSH"
expect "batch-beta-line" grep -A1 -x "beta hostname=$B kernel=$(uname -r):" "$TMP/b.out" | grep -qE "$CSH"
expect "batch-table-hosts" grep -qE "^($A|$B) .*n=1" "$TMP/b.out"
expect "batch-shared-said[$(grep -c share "$TMP/b.err")]" \
	grep -qx "thrashtop: alpha and beta share this machine's [0-9]* CPUs*: each one's runs compete with the other's" "$TMP/b.err"
runs >"$TMP/b.json"
judge "$TMP/b.json" '
s = [x for x in r if x["label"] == "sides"]
print(len(s), sorted(x["hostname"] for x in s), len({x["session"] for x in s}),
      sorted(x["cell"] for x in s), [x["place"] for x in s], ["shared_cores=2" in x["config"] for x in s])' >"$TMP/b.runs"
expect "batch-stored[$(cat "$TMP/b.runs")]" \
	test "$(cat "$TMP/b.runs")" = "2 ['$A', '$B'] 1 ['host=alpha', 'host=beta'] ['ssh', 'ssh'] [True, True]"
id=$(judge "$TMP/b.json" 'print([x["session"] for x in r if x["label"] == "sides"][0])')
expect "batch-compare-line" grep -qx "the places compared: thrashtop history compare --history $H session:$id" "$TMP/b.out"
"$T" history --history "$H" compare "session:$id" >"$TMP/cmp" 2>&1
rc=$?
expect "compare-session[$rc: $(head -3 "$TMP/cmp" | tr '\n' '|')]" \
	grep -qE '^ +host=(alpha|beta) +host=(alpha|beta)$' "$TMP/cmp"
expect "compare-says-the-hosts" grep -qE "^host +tt-(alpha|beta)-$$ -> tt-(alpha|beta)-$$$" "$TMP/cmp"

# legends FILE: both places' legends in a plot title, "alpha 12M" then
# "beta 30M" (names cut to 3 letters where narrow), as many as there are;
# scales FILE: plots with a scale; rows FILE NAME: NAME's head row, and a
# worker row under it
legends() { grep -oE "alp[a-z]* [0-9n][^ ]*.{0,4}bet[a-z]* [0-9n]" "$1" | wc -l; }
scales() { grep -oE '0\.\.[0-9]' "$1" | wc -l; }
rows() { grep -A1 "^$2: " "$1" | tail -1 | grep -qE '^ +[0-9]+ [RSDZ] '; }
for size in 160x50 80x24; do
	S="thrashtop-e2e-sides-$size-$$"
	cleanup "tm kill-session -t $S"
	tm new-session -d -s "$S" -x "${size%x*}" -y "${size#*x}" \
		"THRASHTOP_SSH='$THRASHTOP_SSH' $T --history '$H' -L mon-$size --host alpha --host beta -n 100000000 -p 1 -d 0.5; sleep 30"
	sorting() { screen >"$TMP/$size" && rows "$TMP/$size" alpha && rows "$TMP/$size" beta &&
		[ "$(legends "$TMP/$size")" -ge 4 ]; }
	wait_for 40 sorting
	n=$(legends "$TMP/$size") titles=$(scales "$TMP/$size")
	expect "monitor-$size-legends-in-every-plot[$n pairs, $titles scaled titles]" \
		test "$n" -ge "$titles" -a "$n" -ge 4
	expect "monitor-$size-alpha-rows" rows "$TMP/$size" alpha
	expect "monitor-$size-beta-rows" rows "$TMP/$size" beta
	echo "  monitor at $size: $((SECONDS - t0)) s"
	expect "monitor-$size-title" grep -q "^thrashtop  2 places: alpha, beta .*alpha and beta share" "$TMP/$size"
	quit_session "$S"
done
n=$(runs | python3 -c 'import json,sys; print(sorted(x["hostname"] for x in json.load(sys.stdin) if x["label"].startswith("mon-")))')
expect "monitor-runs-stored[$n]" test "$n" = "['$A', '$A', '$B', '$B']"

echo "  set-up, batch and monitors: $((SECONDS - t0)) s"
# A sweep over boxes: alpha and beta side by side, root@alpha (the same
# machine as alpha) after them.
"$T" -b --history "$H" -L swept --sweep host=alpha,beta,root@alpha -n 1000000 -p 1 >"$TMP/sw.out" 2>"$TMP/sw.err"
rc=$?
expect "sweep-exit[$rc: $(tr '\n' '|' <"$TMP/sw.err")]" test "$rc" = 0
order=$(grep -E '^(place [0-9]/3|alpha hostname|beta hostname)' "$TMP/sw.out" | cut -c1-14 | tr '\n' '|')
expect "sweep-side-by-side[$order]" test "$(head -2 "$TMP/sw.out" | tr '\n' '|')" = "place 1/3: host=alpha|place 2/3: host=beta|"
expect "sweep-same-machine-after[$order]" test "$(grep -n '^place 3/3' "$TMP/sw.out" | cut -d: -f1)" -gt 3
n=$(runs | python3 -c 'import json,sys; print(sorted(x["hostname"] for x in json.load(sys.stdin) if x["label"] == "swept"))')
expect "sweep-stored[$n]" test "$n" = "['$A', '$A', '$B']"

# One sshd killed mid-run: alpha's run kept as aborted, beta's completes.
"$T" -b --history "$H" -L killed --host alpha --host beta -n 30000000 -p 1 --mem 1G \
	>"$TMP/k.out" 2>"$TMP/k.err" &
host=$!
started "$host"
cg_of() { ls -d /sys/fs/cgroup/memory/thrashtop-"$1" /sys/fs/cgroup/thrashtop-"$1" 2>/dev/null; }
agent_pid() {
	local p
	for p in $(ip netns pids "${BOX_NS[alpha]}"); do
		[ "$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" = "thrashtop agent " ] &&
			[ -n "$(cg_of "$p")" ] && echo "$p"
	done
	return 0
}
sorting() { local a; a=$(agent_pid) && [ -n "$a" ] && [ -n "$(cat "$(cg_of "$a")/cgroup.procs" 2>/dev/null)" ]; }
if expect killed-set-up wait_for 30 sorting; then
	ag=$(agent_pid); cg=$(cg_of "$ag")
	sleep 1
	kill -9 $(sshds alpha)
	wait "${BOX_SSHD[alpha]}" 2>/dev/null
	wait "$host"; rc=$?
	# beta's note that alpha's agent turned delay accounting off as it
	# went (one kernel for both boxes) is not a line of alpha's
	said=$(grep -Ev "^thrashtop: (at (alpha|beta):|alpha and beta share|beta: n/a stalls)" "$TMP/k.err")
	expect "killed-exit-one-line[$rc: $said]" test "$rc" = 2 -a "$(wc -l <<<"$said")" = 1
	expect "killed-line-is-alphas" grep -q "^thrashtop: --host alpha: ssh: " <<<"$said"
	expect "killed-beta-completed[$(tr '\n' '|' <"$TMP/k.out")]" \
		grep -A1 -x "beta hostname=$B kernel=$(uname -r):" "$TMP/k.out" | grep -qE "$CSH"
	undone() { gone "$ag" && [ ! -e "$cg" ]; }
	expect "killed-agent-and-cgroup-gone[agent $ag, $cg]" wait_for 30 undone
	expect "killed-state-empty" test ! -s "$TMP/state-alpha/state"
	n=$(runs | python3 -c 'import json,sys; print(sorted((x["hostname"], x["status"]) for x in json.load(sys.stdin) if x["label"] == "killed"))')
	expect "killed-kept[$n]" test "$n" = "[('$A', 'aborted'), ('$B', 'ok')]"
fi
