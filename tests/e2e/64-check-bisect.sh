#!/usr/bin/env bash
# lane: whole
# git bisect run thrashtop check: of 16 commits of a workload script, the
# one that makes it 40% slower is found, each step's verdict the check's
# exit status.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { skip "needs git"; exit 0; }

db=$TMP/h.db
repo=$TMP/repo
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME=$TMP
git init -q "$repo" && cd "$repo" || exit 1
for i in $(seq 1 16); do
	# commit 11 makes the workload 40% slower, and it stays so
	if [ "$i" -ge 11 ]; then t=0.14; else t=0.10; fi
	printf 'sleep %s\n# change %d\n' "$t" "$i" >work.sh
	git add work.sh && git commit -qm "change $i"
done
first=$(git rev-list --max-parents=0 HEAD)
bad=$(git log --format=%H --grep='^change 11$')

git checkout -q "$first"
"$T" --history "$db" -b -r 5 -L good -- sh work.sh >/dev/null 2>"$TMP/err"
expect baseline test $? -eq 0
git checkout -q master 2>/dev/null || git checkout -q main

git bisect start HEAD "$first" >/dev/null
start=$(date +%s)
git bisect run "$T" check --history "$db" --threshold 10% --against good -- sh work.sh \
	>"$TMP/bisect" 2>"$TMP/e"
rc=$?
grep -E '^(wall|check):|first bad commit' "$TMP/bisect"
echo "bisect took $(( $(date +%s) - start )) s"
expect bisect-ran test $rc -eq 0
expect finds-change-11 grep -q "^$bad is the first bad commit" "$TMP/bisect"
expect steps-judged test "$(grep -c '^check: ' "$TMP/bisect")" -ge 3
git bisect reset >/dev/null 2>&1
