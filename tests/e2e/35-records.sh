#!/usr/bin/env bash
# lane: confined
# What a run starts in is part of its record and of its group: a sysctl the
# session set is kept with its value, and a run under it does not group
# with the same run without it.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
export THRASHTOP_STATE_DIR=$TMP/state
DB=$TMP/h.db
pc0=$(cat /proc/sys/vm/page-cluster)
cleanup "echo $pc0 >/proc/sys/vm/page-cluster"
pc=$(( pc0 == 2 ? 1 : 2 ))

"$T" -b -n 200000 -p 1 --history "$DB" >/dev/null 2>"$TMP/e1"; rc1=$?
"$T" -b -n 200000 -p 1 --history "$DB" --sysctl vm.page-cluster=$pc >/dev/null 2>"$TMP/e2"; rc2=$?
expect runs-exit-0 test $rc1 -eq 0 -a $rc2 -eq 0
expect sysctl-restored test "$(cat /proc/sys/vm/page-cluster)" = "$pc0"
"$T" --history "$DB" history export --format=json >"$TMP/runs.json"
python3 - "$TMP/runs.json" >"$TMP/check" <<'PY'
import json, sys
runs = sorted(json.load(open(sys.argv[1]))["runs"], key=lambda r: r["id"])
a, b = runs[0], runs[1]
print("sysctls_a", repr(a["sysctls"]))
print("sysctls_b", repr(b["sysctls"]))
print("same_group", a["config_hash"] == b["config_hash"])
print("hugetlb", a["hugetlb_kib"], "mlocked", a["mlocked_kib"])
PY
expect "sysctl-recorded[$(grep sysctls_b "$TMP/check")]" grep -q "sysctls_b 'vm.page-cluster=$pc\\\\n'" "$TMP/check"
expect "plain-run-has-none[$(grep sysctls_a "$TMP/check")]" grep -q "sysctls_a None" "$TMP/check"
expect groups-apart grep -q "same_group False" "$TMP/check"
hug=$(awk '/^Hugetlb:/ { print $2 }' /proc/meminfo)
expect "hugetlb-recorded[$(grep hugetlb "$TMP/check")]" grep -q "^hugetlb ${hug:-None} " "$TMP/check"
