#!/usr/bin/env bash
# lane: confined
# git bisect run thrashtop check --metric oom: of 8 commits of a workload
# that fits its memory cgroup, the one from which the OOM killer takes
# every run is found. A run the OOM killer ended is a figure, not a
# workload that could not run.
. "$(dirname "$0")/lib.sh"
need_root
command -v git >/dev/null || { skip "needs git"; exit 0; }
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
need_machine_lock 300
export THRASHTOP_STATE_DIR=$TMP/state

db=$TMP/h.db
repo=$TMP/repo
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME=$TMP
git init -q "$repo" && cd "$repo" || exit 1
for i in $(seq 1 8); do
	# from commit 5 on, the workload wants twice its cgroup's 48M
	if [ "$i" -ge 5 ]; then m=96; else m=8; fi
	printf 'exec python3 -S -c "a = bytearray(%d << 20)"\n# change %d\n' "$m" "$i" >work.sh
	git add work.sh && git commit -qm "change $i"
done
first=$(git rev-list --max-parents=0 HEAD)
bad=$(git log --format=%H --grep='^change 5$')

git checkout -q "$first"
"$T" --history "$db" -b -r 5 -L good --mem 48M -- sh work.sh >/dev/null 2>"$TMP/err"
rc=$?
expect "baseline[$rc: $(tail -1 "$TMP/err")]" test $rc -eq 0
git checkout -q master 2>/dev/null || git checkout -q main

# the bad commit alone: a regression, its figures those of the history
git checkout -q "$bad"
"$T" check --history "$db" --metric oom --mem 48M --against good -- sh work.sh \
	>"$TMP/one" 2>"$TMP/e"
rc=$?
expect "oom-regression-exit-1[$rc: $(grep -E '^(oom|check):' "$TMP/one" | tr '\n' ' ') $(tail -1 "$TMP/e")]" \
	test $rc -eq 1
expect "oom-line-counts-the-kills[$(grep '^oom:' "$TMP/one")]" \
	grep -Eq '^oom: regression  killed 0 of 5 -> ([0-9]+) of \1  p=' "$TMP/one"
killed=$("$T" history --history "$db" list -L check:good | grep -cw oom)
expect "oom-runs-kept-as-oom[$killed]" test "$killed" -ge 5
git checkout -q master 2>/dev/null || git checkout -q main

git bisect start HEAD "$first" >/dev/null
git bisect run "$T" check --history "$db" --metric oom --mem 48M --against good -- sh work.sh \
	>"$TMP/bisect" 2>"$TMP/e"
rc=$?
grep -E '^(oom|check):|first bad commit' "$TMP/bisect"
expect "bisect-ran[$rc: $(tail -1 "$TMP/e")]" test $rc -eq 0
expect finds-change-5 grep -q "^$bad is the first bad commit" "$TMP/bisect"
git bisect reset >/dev/null 2>&1
