#!/usr/bin/env bash
# lane: whole
# Two guests side by side (--kernel 6.1 --kernel 6.12, the cached Debian
# kernels, TCG here) in the monitor at 160x50, one short run each: both
# boot at once, the title says they share this machine's cores, every
# plot's title has both kernels' legends, each one's workers are under its
# head row; after q both runs are stored as their guest's under one
# session id, each with the shared cores in its configuration; nothing is
# left (qemu, runtime directories).
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { skip "no qemu-system-x86_64 (qemu-system-x86)"; exit 0; }
v1=$("$T" kernel list | awk '$1 ~ /^6\.1\.[0-9]+-[0-9]+-amd64$/ { print $1; exit }')
v12=$("$T" kernel list | awk '$1 ~ /^6\.12\.[0-9]+/ { print $1; exit }')
[ -n "$v1" ] && [ -n "$v12" ] ||
	{ skip "no Debian 6.1 and 6.12 kernels cached (make guest-kernels)"; exit 0; }
export XDG_RUNTIME_DIR=$TMP/rt XDG_STATE_HOME=$TMP/state
mkdir -m 700 "$XDG_RUNTIME_DIR"
need_tmux
t0=$SECONDS
H=$TMP/h.db

S="thrashtop-e2e-guests-$$"
cleanup "tm kill-session -t $S"
tm new-session -d -s "$S" -x 160 -y 50 \
	"$TP --history $H -L guests --kernel $v1 --kernel $v12 --boot-mem 512M -n 6000000 -p 1 -d 0.5 2>$TMP/err; echo EXIT=\$? >$TMP/rc; sleep 60"
# both runs ended: each place's worker ok under its head row
done_rows() { screen >"$TMP/screen" && [ "$(grep -cE '^ +[0-9]+ - +.* ok ' "$TMP/screen")" -ge 2 ]; }
expect both-runs-ended wait_for 150 done_rows
echo "  boots and runs: $((SECONDS - t0)) s"
legends=$(grep -oE "6\.1 [0-9n][^ ]*.{0,4}6\.12 [0-9n]" "$TMP/screen" | wc -l)
scales=$(grep -oE '0\.\.[0-9]' "$TMP/screen" | wc -l)
expect "legends-in-every-plot[$legends pairs, $scales scaled titles]" test "$legends" -ge "$scales" -a "$legends" -ge 8
expect "title-says-shared[$(head -1 "$TMP/screen")]" \
	grep -q "^thrashtop  2 places: 6\.1, 6\.12 .*6\.1 and 6\.12 share this machine's" "$TMP/screen"
for k in 6.1 6.12; do
	expect "rows-of-$k" bash -c "grep -A1 '^$k: vm  Linux ' '$TMP/screen' | tail -1 | grep -qE '^ +[0-9]+ - '"
done
tm send-keys -t "$S" q
wait_for 30 test -s "$TMP/rc"
expect "quit-exit-0[$(cat "$TMP/rc"): $(grep -v '^thrashtop: .*boot' "$TMP/err" | tr '\n' '|')]" grep -qx EXIT=0 "$TMP/rc"
"$T" history export --history "$H" --format=json | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"]
print(sorted((x["kernel_release"][:4], x["place"], x["status"], x["cell"]) for x in r),
      len({x["session"] for x in r}), all("shared_cores=2" in x["config"] for x in r))' >"$TMP/runs"
expect "runs-stored[$(cat "$TMP/runs")]" test "$(cat "$TMP/runs")" = \
	"[('6.1.', 'vm', 'ok', 'kernel=$v1'), ('6.12', 'vm', 'ok', 'kernel=$v12')] 1 True"
left() { [ -z "$(pgrep -f "qemu-system-x86_64.*$XDG_RUNTIME_DIR")$(ls -A "$XDG_RUNTIME_DIR")" ]; }
expect "nothing-left[$(pgrep -f "qemu-system-x86_64.*$XDG_RUNTIME_DIR" | tr '\n' ' ')$(ls -A "$XDG_RUNTIME_DIR")]" \
	wait_for 15 left
end_session "$S"
echo "  whole: $((SECONDS - t0)) s"
