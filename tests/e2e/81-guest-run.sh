#!/usr/bin/env bash
# lane: whole
# A session in a guest (--kernel, the cached Debian 6.1 kernel, TCG here):
# the batch sorter's runs stored as the guest's, its figures checked
# against each other and the time lines; zswap set up in the guest; a
# command's output and its cgroup v2 OOM kill once its swap file (on a
# virtio disk) is full; the monitor's title and
# rows; and nothing left (qemu, runtime directory, a half-unpacked
# kernel) after q, SIGINT, SIGTERM, SIGHUP during the boot, SIGINT during
# a run, a killed qemu, and a SIGKILLed thrashtop followed by a new start.
# Three guests boot together; the signals during the boot, tested
# meanwhile, cost only their start.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { skip "no qemu-system-x86_64 (qemu-system-x86)"; exit 0; }
ver=$("$T" kernel list | awk '$1 ~ /^6\.1\.[0-9]+-[0-9]+-amd64$/ { print $1; exit }')
[ -n "$ver" ] || { skip "no Debian 6.1 kernel cached (thrashtop kernel fetch 'linux-image-6.1.*-amd64')"; exit 0; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/thrashtop/kernels
export XDG_RUNTIME_DIR=$TMP/rt XDG_STATE_HOME=$TMP/state
mkdir -m 700 "$XDG_RUNTIME_DIR"
need_tmux
T0=$SECONDS

# qemus whose parent is pid $1; any qemu of a part's (its runtime directory)
qemus() { pgrep -P "$1" -f qemu-system-x86_64; }
our_qemus() { pgrep -f "qemu-system-x86_64.*$1/"; }
# booting PID: its qemu runs (with quiet, the console is silent until the
# guest's init speaks); a KVM try that fails goes within a second
booting() { [ -n "$(qemus "$1")" ] && sleep 1 && [ -n "$(qemus "$1")" ]; }
# clean WHAT DIR: no qemu of the part whose runtime directory is DIR, no
# directory left in it, no half-unpacked kernel
clean() {
	local q d u
	q=$(our_qemus "$2" | tr '\n' ' ')
	d=$(ls "$2")
	u=$(ls -A "$cache" 2>/dev/null | grep '^\.unpack-')
	expect "$1-left-nothing[qemu:$q dir:$d unpack:$u]" test -z "$q$d$u"
}
# the runs of a history as one JSON list, oldest first
runs() { "$TP" history export --history "$1" --format=json | python3 -c '
import json, sys
print(json.dumps(sorted(json.load(sys.stdin)["runs"], key=lambda r: r["id"])))'; }
# jq-less: check PY-EXPR over `r` (the runs) and print what it found
judge() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); $2" "$1"; }

# Three guests boot together, a guest's boot being most of each part's
# time: the command's, the sorter's and the monitor's, each part with a
# runtime directory of its own (the monitor's in $TMP/rt-mon), so that what
# one leaves is told from what the others still use. The moments a part
# must act in (the command's second run, the sorter's third, the monitor's
# run while its rows show) are watched from the start, each by a job of
# its own: the signals during the boot are tested meanwhile.
t1=$SECONDS
"$TP" -b --kernel "$ver" --boot-mem 512M --swap zram:128M --zswap lzo-rle -n 6500000 -p 1 \
	--mem 24M -r 3 --history "$TMP/sort.db" >"$TMP/sort.out" 2>"$TMP/sort.err" &
hs=$!
cleanup "kill -9 $hs"
"$TP" -b --kernel "$ver" --boot-mem 512M --mem 24M --swap 16M -r 2 --history "$TMP/cmd.db" -- sh -c \
	'echo pid=$$; exec python3 -S -c "import time; time.sleep(1); a = bytearray(64 << 20)"' \
	>"$TMP/cmd.out" 2>"$TMP/cmd.err" &
hc=$!
cleanup "kill -9 $hc"
S="thrashtop-e2e-$$"
cleanup "tm kill-session -t $S"
mkdir -m 700 "$TMP/rt-mon"
tm new-session -d -s "$S" -x 80 -y 24 "stty -g >$TMP/stty.before; XDG_RUNTIME_DIR=$TMP/rt-mon $T --kernel $ver -n 2000000 -p 1 -d 0.5 --no-history 2>$TMP/mon.err; echo EXIT=\$? >$TMP/rc; stty -g >$TMP/stty.after; sleep 60"
# the command's qemu killed once its second run has begun
(
	wait_for 150 bash -c "[ \$(grep -c '^pid=' $TMP/cmd.out) -ge 2 ] || ! kill -0 $hc 2>/dev/null"
	q=$(qemus "$hc")
	echo "$q" >"$TMP/cmd.qemu"
	[ -n "$q" ] && kill -9 "$q"
) &
cleanup "kill $!"
# SIGINT a second into the sorter's third run
(
	wait_for 150 bash -c "[ \$(grep -c 'pf+' $TMP/sort.out) -ge 2 ] || ! kill -0 $hs 2>/dev/null"
	sleep 1
	kill -INT "$hs"
) &
cleanup "kill $!"
# the monitor's worker rows, which show only while its run lasts
(
	wait_for 150 bash -c "tm capture-pane -p -t $S | grep -Eq '^ *[0-9]+ [RSDZ] '" && touch "$TMP/mon.rows"
) &
cleanup "kill $!"

# --- signals during the boot, and SIGKILL then a new start ------------------
# in a runtime and state directory of their own
t0=$SECONDS
sig_env=(env XDG_RUNTIME_DIR="$TMP/rt-sig" XDG_STATE_HOME="$TMP/state-sig")
mkdir -m 700 "$TMP/rt-sig"
"${sig_env[@]}" "$T" -b --kernel "$ver" -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/kill.err" &
h=$!
cleanup "kill -9 $h"
wait_for 40 booting "$h"
q=$(qemus "$h")
kill -9 "$h"; wait "$h" 2>/dev/null
for _ in $(seq 30); do [ -n "$q" ] && [ -d "/proc/$q" ] || break; sleep 0.1; done
expect "sigkill-takes-qemu[qemu ${q:-none}]" test -n "$q" -a ! -d "/proc/${q:-0}"
left=$(ls "$TMP/rt-sig")
expect "sigkill-leaves-its-dir-to-the-next-start[$left]" test -n "$left"
declare -A pid
for sig in INT TERM HUP; do
	"${sig_env[@]}" "$T" -b --kernel "$ver" -n 1000 -p 1 --no-history >/dev/null 2>"$TMP/$sig.err" &
	pid[$sig]=$!
	cleanup "kill -9 ${pid[$sig]}"
done
for sig in INT TERM HUP; do
	wait_for 40 booting "${pid[$sig]}"; kill -"$sig" "${pid[$sig]}"
done
for sig in INT TERM HUP; do
	wait "${pid[$sig]}"; rc=$?
	n=$(($(kill -l "$sig") + 128))
	expect "sig$sig-during-boot-exits-$n[$rc: $(grep -v '^thrashtop: booting' "$TMP/$sig.err")]" \
		test "$rc" -eq "$n"
	expect "sig$sig-during-boot-one-line" \
		grep -qx 'thrashtop: stopped by a signal while the guest booted' "$TMP/$sig.err"
done
clean signals-during-boot "$TMP/rt-sig"
echo "  signals during the boot: $((SECONDS - t0)) s"

# --- a command: its output, its OOM kill; qemu killed in the second run -----
db=$TMP/cmd.db
wait "$hc"; rc=$?
echo "  command: $((SECONDS - t1)) s"
q=$(cat "$TMP/cmd.qemu" 2>/dev/null)
expect "qemu-found[${q:-none}]" test -n "$q"
expect "output-reaches-stdout[$(head -1 "$TMP/cmd.out")]" grep -qx 'pid=[0-9]*' "$TMP/cmd.out"
runs "$db" >"$TMP/cmd.json"
vpid=$(sed -n 's/^pid=//p' "$TMP/cmd.out" | head -1)
expect "oom-victim-named[$(judge "$TMP/cmd.json" 'print(r[0]["status"], r[0]["victims"])'); shell said pid $vpid]" \
	judge "$TMP/cmd.json" "sys.exit(not (r[0]['status'] == 'oom' and r[0]['cgroup_version'] == 2 and any(v['pid'] == int('${vpid:-0}') and v['comm'] == 'python3' for v in r[0]['victims'])))"
# its swap file on a virtio disk the host made (cache=none: $TMP, or
# /var/tmp, takes O_DIRECT), on and filled before the OOM kill, as the
# guest's /proc/swaps and meminfo said
expect "swap-on-the-guest-disk[$(judge "$TMP/cmd.json" 'x=r[0]; print(x["swap_backend"], "|", x["swap_devices"].strip(), "| peak", x["swap_peak_kib"], "KiB")')]" \
	judge "$TMP/cmd.json" "x=r[0]; sys.exit(not (x['swap_backend'] == 'virtio-blk 16M cache=none' and x['swap_devices'].startswith('/dev/vda partition 16380 ') and x['swap_total_kib'] == 16380 and x['swap_peak_kib'] > 8192 and 'thrashtop.swap_cache=none' in x['proc_cmdline']))"
expect "killed-qemu-exits-non-zero[$rc]" test "$rc" -ne 0 -a "$rc" -lt 128
ended=$(grep -v '^thrashtop: \(booting\|.* booted in\|at the agent'"'"'s place\)' "$TMP/cmd.err")
expect "killed-qemu-one-line[$ended]" test "$(printf '%s\n' "$ended" | grep -c .)" -eq 1
con=$(printf '%s' "$ended" | sed -n 's/.*the guest ended: .*signal 9.*its console is in \(.*\)$/\1/p')
expect "killed-qemu-console-kept[$con: $(head -c 300 "${con:-/dev/null}")]" grep -q '^thrashtop-init: ' "${con:-/nonexistent}"
expect "killed-qemu-runs-kept[$(judge "$TMP/cmd.json" 'print([x["status"] for x in r])')]" \
	judge "$TMP/cmd.json" 'sys.exit(not (len(r) >= 1 and r[0]["status"] == "oom"))'
# --- the batch sorter, zram and zswap; SIGINT during its third run ----------
db=$TMP/sort.db
wait "$hs"; rc=$?
echo "  sorter: $((SECONDS - t1)) s; $(grep -o 'booted in .* under [a-z]*' "$TMP/sort.err")"
expect "sorter-sigint-in-run-3-exits-130[$rc: $(tail -1 "$TMP/sort.err")]" test "$rc" -eq 130
grep -E '^[0-9.]+u .*pf\+' "$TMP/sort.out" >"$TMP/times"
runs "$db" >"$TMP/sort.json"
judge "$TMP/sort.json" 'print("  runs:", [(x["status"], x["majflt"], x["wall_us"] // 1000) for x in r])'
expect "two-ok-time-lines-then-aborted[$(cut -c1-60 "$TMP/times" | tr '\n' '|')]" \
	judge "$TMP/sort.json" 'sys.exit(not ([x["status"] for x in r] == ["ok", "ok", "aborted"]))'
expect "time-lines-three[$(wc -l <"$TMP/times")]" test "$(wc -l <"$TMP/times")" -eq 3
for i in 0 1; do
	j=$((i + 1))
	pf=$(sed -n "${j}p" "$TMP/times" | grep -o '[0-9]*pf' | tr -d pf)
	expect "run$j-is-the-guest[$(judge "$TMP/sort.json" "x=r[$i]; print(x['kernel_release'], x['place'], x['accel'], 'cgroup', x['cgroup_version'], x['ram_kib'], 'KiB', x['mem_limit_kib'], x['swap_backend'])")]" \
		judge "$TMP/sort.json" "x=r[$i]; sys.exit(not (x['kernel_release'].startswith('6.1.') and x['place'] == 'vm' and x['accel'] == 'tcg' and x['cgroup_version'] == 2 and 0.8 * 524288 <= x['ram_kib'] <= 524288 and x['mem_limit_kib'] == 24576 and x['swap_backend'].startswith('zram ')))"
	expect "run$j-majflt-is-the-workers-sum-and-the-time-line[pf $pf]" \
		judge "$TMP/sort.json" "x=r[$i]; s=sum(w['majflt'] for w in x['workers']); print('    majflt', x['majflt'], 'workers', s); sys.exit(not (x['majflt'] > 0 and x['majflt'] == s == int('$pf')))"
	expect "run$j-zswap-set-up[$(judge "$TMP/sort.json" "x=r[$i]; print(x['zswap'], x['zswap_with'], 'zswpout', x['zswpout'], 'stored', x['zswap_stored_kib'])")]" \
		judge "$TMP/sort.json" "x=r[$i]; sys.exit(not (x['zswap'] == 1 and x['zswap_with'].startswith('lzo-rle') and x['zswpout'] is not None and x['zswap_stored_kib'] is not None))"
done

clean sorter-and-killed-qemu "$XDG_RUNTIME_DIR"

# --- the monitor at 80x24: title, rows, q -----------------------------------
expect title-names-the-guest wait_for 90 bash -c "tm capture-pane -p -t $S | head -2 | grep -F '$ver' | grep -q 'vm tcg'"
expect worker-rows wait_for 30 test -e "$TMP/mon.rows"
head -2 <(screen) | sed 's/^/  | /'
expect run-line-appears wait_for 60 has '#1 .*pf+0w'
tm send-keys -t "$S" q
expect "quit-exit-0[$(wait_for 20 test -s "$TMP/rc"; cat "$TMP/rc"): $(tail -1 "$TMP/mon.err")]" grep -qs EXIT=0 "$TMP/rc"
expect "monitor-said-the-boot[$(head -1 "$TMP/mon.err")]" grep -q '^thrashtop: booting' "$TMP/mon.err"
expect terminal-restored wait_for 5 cmp -s "$TMP/stty.before" "$TMP/stty.after"
expect screen-left bash -c "! tm capture-pane -p -t $S | grep -q 'major faults'"
echo "  monitor: $((SECONDS - t1)) s; $(grep -o 'booted in .* under [a-z]*' "$TMP/mon.err")"
clean monitor "$TMP/rt-mon"
echo "  total: $((SECONDS - T0)) s"
