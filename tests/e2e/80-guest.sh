#!/usr/bin/env bash
# lane: other
# A guest: the cached Debian 6.1 kernel booted with `thrashtop kernel boot`,
# its command (this binary's --version, uname -r, the cgroup v2
# controllers, zram) read back over the stream; the accelerator said;
# nothing of qemu or its runtime directory left after the run, nor after
# the host process is SIGKILLed. Fetches nothing: the kernel must be
# cached (thrashtop kernel fetch 'linux-image-6.1.*-amd64'). One vCPU: a
# guest under TCG is then one busy thread, as any test beside it, and
# changes nothing of this machine (the sessions in a guest, 81, take the
# whole machine).
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { skip "no qemu-system-x86_64 (qemu-system-x86)"; exit 0; }
ver=$("$T" kernel list | awk '$1 ~ /^6\.1\.[0-9]+-[0-9]+-amd64$/ { print $1; exit }')
[ -n "$ver" ] || { skip "no Debian 6.1 kernel cached (thrashtop kernel fetch 'linux-image-6.1.*-amd64')"; exit 0; }
export XDG_RUNTIME_DIR=$TMP/rt XDG_STATE_HOME=$TMP/state
mkdir -m 700 "$XDG_RUNTIME_DIR"

# qemus whose parent is pid $1
qemus() { pgrep -P "$1" -f qemu-system-x86_64; }
# booting PID: its qemu runs, and still a second later: the one a KVM try
# starts goes within a second (the console is no sign: with quiet it is
# silent until the guest's init speaks, most of the boot later)
booting() { [ -n "$(qemus "$1")" ] && sleep 1 && [ -n "$(qemus "$1")" ]; }

# SIGKILL of the host while its guest boots: qemu goes with it
# (PR_SET_PDEATHSIG); the runtime directory stays until the next start.
"$T" kernel boot --cpus 1 --timeout 60 "$ver" -- /bin/sleep 60 >/dev/null 2>"$TMP/killed.err" &
host=$!
cleanup "kill -9 $host"
wait_for 40 booting "$host"
q=$(qemus "$host")
if [ -z "$q" ]; then
	fail qemu-started "no qemu under pid $host: $(cat "$TMP/killed.err")"
else
	cleanup "kill -9 $q"
	kill -9 "$host"; wait "$host" 2>/dev/null
	for _ in $(seq 30); do [ -d "/proc/$q" ] || break; sleep 0.1; done
	expect "sigkill-leaves-no-qemu[pid $q]" test ! -d "/proc/$q"
fi
left=$(ls "$XDG_RUNTIME_DIR")
expect "killed-run-left-its-dir[$left]" test -n "$left"

# A swap file in a guest goes on a disk made for it: one no file system
# here has room for is refused before anything boots, in one line, and
# leaves no directory (the SIGKILLed one's is swept by this start).
"$T" -b --kernel "$ver" --swap 1000T -n 1000 --no-history >/dev/null 2>"$TMP/swapfile.err" &
p=$!; wait $p; rc=$?
refused() { [ "$rc" -eq 2 ] && [ "$(grep -c . "$TMP/swapfile.err")" -eq 1 ] &&
	grep -q "no place for the guest's 1.0P swap disk: no room" "$TMP/swapfile.err" &&
	[ -z "$(ls "$XDG_RUNTIME_DIR")" ] && ! ls /var/tmp | grep -q "^thrashtop-vm-$p-"; }
expect "swap-disk-without-room-refused-before-boot[$rc: $(cat "$TMP/swapfile.err")]" refused

# The run: the guest's command writes to fd 3, the host prints it.
start=$(date +%s.%N)
"$T" kernel boot --cpus 1 --boot-mem 512M --timeout 80 "$ver" -- /bin/sh -c \
	"$T --version >&3; uname -r >&3; cat /sys/fs/cgroup/cgroup.controllers >&3; \
	 test -e /sys/block/zram0 && echo zram-ok >&3" >"$TMP/out" 2>"$TMP/err" &
host=$!
cleanup "kill -9 $host"
wait "$host"; rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
echo "  guest run ($ver): ${took} s; $(grep -o 'under .*' "$TMP/err" | head -1)"
expect "exits-0[$rc: $(tail -1 "$TMP/err")]" test "$rc" -eq 0
expect "version-over-the-stream[$(head -1 "$TMP/out")]" grep -qx "thrashtop $("$T" --version | awk '{print $2}')" "$TMP/out"
expect "guest-uname-is-the-kernel[$(sed -n 2p "$TMP/out")]" test "$(sed -n 2p "$TMP/out")" = "$ver"
expect "cgroup2-has-memory[$(sed -n 3p "$TMP/out")]" grep -qw memory <(sed -n 3p "$TMP/out")
expect zram-loads grep -qx zram-ok "$TMP/out"
accel=$(grep -o 'under [a-z]*' "$TMP/err" | head -1)
if grep -qwE 'vmx|svm' /proc/cpuinfo; then
	expect "accel-said[$accel]" grep -qE 'under (kvm|tcg) \(' "$TMP/err"
else
	expect "accel-tcg-without-vmx[$accel]" grep -q 'under tcg (' "$TMP/err"
fi
left=$(pgrep -f "qemu-system-x86_64.*$XDG_RUNTIME_DIR")
expect "no-qemu-left[$left]" test -z "$left"
left=$(ls "$XDG_RUNTIME_DIR")
expect "no-runtime-dir-left[$left]" test -z "$left"
