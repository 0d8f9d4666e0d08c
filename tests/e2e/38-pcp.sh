#!/usr/bin/env bash
# lane: other
# history export --format=pcp: two stored runs as PCP archives that
# pmlogcheck accepts, whose every stored sample pmdumplog gives back with
# the JSON export's values, with the linux agent's own descriptions where
# they take its names, and that pmdiff compares; bad input refused in one
# line, never over a name already there nor through a link; a signal
# leaves nothing.
. "$(dirname "$0")/lib.sh"
for c in pmlogcheck pmdumplog pmdiff pminfo; do
	command -v $c >/dev/null || { skip "no $c: PCP's tools are not installed (make pcp-tools)"; exit 0; }
done

db=$TMP/h.db
H() { "$T" --history "$db" history "$@"; }
"$T" -b -n 1000000 -p 2 -d 0.1 --history "$db" -L two >/dev/null 2>&1
expect stored-run-1 test $? -eq 0
"$T" -b -n 1000000 -p 1 -d 0.1 --history "$db" -L one >/dev/null 2>&1
expect stored-run-2 test $? -eq 0
H export --format=json >"$TMP/runs.json"

mkdir "$TMP/pcp"
H export --format=pcp "$TMP/pcp" >"$TMP/out" 2>"$TMP/err"; rc=$?
expect "exported[$rc: $(cat "$TMP/out" "$TMP/err")]" test $rc -eq 0 -a ! -s "$TMP/err"
expect "named-on-output[$(cat "$TMP/out")]" test "$(sort "$TMP/out")" = "$(printf '%s\n' "$TMP/pcp/thrashtop-run-1" "$TMP/pcp/thrashtop-run-2")"
expect "three-files-each[$(ls -A "$TMP/pcp" | tr '\n' ' ')]" test "$(ls -A "$TMP/pcp")" = "$(printf 'thrashtop-run-%s\n' 1.0 1.index 1.meta 2.0 2.index 2.meta)"

for id in 1 2; do
	a=$TMP/pcp/thrashtop-run-$id
	pmlogcheck "$a" >"$TMP/check" 2>&1; rc=$?
	expect "pmlogcheck-$id[$rc: $(head -c 300 "$TMP/check")]" test $rc -eq 0 -a ! -s "$TMP/check"
	pmdumplog -xxx -a "$a" >"$TMP/dump$id" 2>&1
	pmdumplog -e "$a" >"$TMP/labels$id" 2>&1
	r=$(python3 "$ROOT/tests/e2e/pcpcheck.py" "$TMP/dump$id" "$TMP/labels$id" $id "$TMP/runs.json"); rc=$?
	expect "same-as-stored-$id[$r]" test $rc -eq 0
done

# The linux agent's names carry its own descriptions: PMID, type, instance
# domain, semantics, units, as pminfo gives them from its DSO here.
ns=$TMP/pmns
mkdir "$ns"
if (cd /var/lib/pcp/pmns 2>/dev/null && /usr/lib/pcp/bin/pmnsmerge root_root root_linux "$ns/root") >/dev/null 2>&1 &&
	PCP_DERIVED_CONFIG= pminfo -n "$ns/root" -L -d mem.util.free >/dev/null 2>&1; then
	names=$(pmdumplog -d "$TMP/pcp/thrashtop-run-1" | sed -n 's/^PMID: 60\.[0-9.]* (\(.*\))$/\1/p')
	same=0 differ=""
	for m in $names; do
		ours=$(PCP_DERIVED_CONFIG= pminfo -a "$TMP/pcp/thrashtop-run-1" -d -m "$m")
		agent=$(PCP_DERIVED_CONFIG= pminfo -n "$ns/root" -L -d -m "$m" 2>&1)
		if [ "$ours" = "$agent" ]; then same=$((same + 1)); else differ+="$ours <> $agent; "; fi
	done
	expect "linux-agent-descriptions[$same the same: $differ]" test -z "$differ" -a "$same" -ge 15
else
	skip linux-agent-descriptions "the linux agent's namespace or DSO cannot be read here"
fi

# pmdiff compares the two runs: the second worker run 1 had and run 2 had
# not, and the figures both have.
pmdiff -q 1 "$TMP/pcp/thrashtop-run-1" "$TMP/pcp/thrashtop-run-2" >"$TMP/diff" 2>&1; rc=$?
expect "pmdiff-runs[$rc: $(head -c 200 "$TMP/diff")]" test $rc -eq 0
expect "pmdiff-names-worker2[$(grep -m1 worker2 "$TMP/diff")]" \
	grep -q 'thrashtop.worker.user \["worker2"\]' "$TMP/diff"
expect "pmdiff-names-metrics[$(grep -cE '  (thrashtop\.|mem\.|kernel\.)' "$TMP/diff") lines]" \
	grep -qE '[0-9.]+ +[0-9.]+ +[0-9.]+ +mem\.util\.free$' "$TMP/diff"

# Bad input: one line, exit 2, nothing written.
snap() { ls -lAR --time-style=+%s "$TMP/pcp" | md5sum; }
before=$(snap)
bad() {	# bad NAME GREP ARGS...: refused in one line that says GREP
	local n=$1 g=$2; shift 2
	H export --format=pcp "$@" >"$TMP/o" 2>"$TMP/e"; local rc=$?
	expect "$n[$rc: $(cat "$TMP/e")]" test $rc -eq 2 -a "$(wc -l <"$TMP/e")" -eq 1 -a ! -s "$TMP/o"
	expect "$n-says" grep -q "$g" "$TMP/e"
}
bad dir-missing 'no such directory' "$TMP/nodir"
touch "$TMP/file"
bad dir-a-file 'not a directory' "$TMP/file"
bad no-such-run 'no run 9 in' 9 "$TMP/pcp"
bad archive-there 'thrashtop-run-1\.[a-z0-9]*: an archive of run 1 is there already: refused' 1 "$TMP/pcp"
bad filter-archive-there 'an archive of run . is there already' -L one "$TMP/pcp"
bad ids-and-filter 'not both' 1 -L one "$TMP/pcp"
bad no-dir 'takes a directory' 
expect nothing-changed test "$(snap)" = "$before"

# A link planted under an archive's name, in a directory others can write:
# refused, its target untouched, nothing left beside it.
sh=$(mktemp -d /tmp/thrashtop-pcplink.XXXXXX)
cleanup rm -rf "$sh"
chmod 1777 "$sh"
echo root-data >"$TMP/victim"
setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$TMP/victim" "$sh/thrashtop-run-2.index"
bad link-refused 'thrashtop-run-2.index: an archive of run 2 is there already' 1 2 "$sh"
expect "link-target-kept[$(head -c 40 "$TMP/victim")]" grep -qx root-data "$TMP/victim"
expect "link-dir-as-was[$(ls -A "$sh" | tr '\n' ' ')]" test "$(ls -A "$sh")" = thrashtop-run-2.index
H export --format=pcp 1 "$sh" >/dev/null 2>"$TMP/e"
expect "shared-dir-takes-a-free-name[$(cat "$TMP/e")]" test -s "$sh/thrashtop-run-1.meta"

# A signal while a long run is written: the export ends, leaving nothing.
python3 - "$TMP/runs.json" "$TMP/long.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = next(x for x in d["runs"] if x["id"] == 1)
s, n = r["series"], 16000
for k in s:
    if k != "nsamples":
        s[k] = [round(i * 0.1, 3) for i in range(n)] if k == "t" else [s[k][-1]] * n
s["nsamples"], r["uuid"] = n, ""
d["runs"] = [r]
json.dump(d, open(sys.argv[2], "w"))
EOF
# (the release build imports it: the sanitizer build takes minutes)
"$TP" --history "$TMP/long.db" history import "$TMP/long.json" >/dev/null 2>&1
expect long-run-stored test $? -eq 0
mkdir "$TMP/sig"
"$T" --history "$TMP/long.db" history export --format=pcp "$TMP/sig" >/dev/null 2>&1 &
pid=$!
wait_for 20 bash -c "ls -A '$TMP/sig' | grep -q '^\.thrashtop-pcp-'"
expect writing test $? -eq 0
# SIGTERM: a script's background job ignores SIGINT
kill -TERM $pid
wait $pid; rc=$?
expect "signal-ends-it[$rc]" test $rc -eq 143
expect "signal-leaves-nothing[$(ls -A "$TMP/sig" | tr '\n' ' ')]" test -z "$(ls -A "$TMP/sig")"
