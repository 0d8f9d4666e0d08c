#!/usr/bin/env bash
# lane: whole
# Every example command of the man page, then every first command of the
# README, runs and exits 0, in order, into one history (the default path,
# under this test's XDG_DATA_HOME). Made
# short: a sort's -n or -m becomes -n 20000 (and a sweep gets one), a
# monitor example runs with -b, --global leaves all but 256 MiB (a small
# pool rather than most of RAM), a swap of gigabytes becomes 256M, and
# `make` finds a Makefile with one empty target. The files the history
# examples read (a post, another machine's database) are made first.
. "$(dirname "$0")/lib.sh"
need_root
need_machine_lock
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "no memory cgroup controller"; exit 0; }
export THRASHTOP_STATE_DIR=$TMP/state
export XDG_DATA_HOME=$TMP/data
sw0=$(cat /proc/sys/vm/swappiness)
nr0=$(cat /proc/sys/vm/nr_hugepages)
cleanup "echo $sw0 >/proc/sys/vm/swappiness; echo $nr0 >/proc/sys/vm/nr_hugepages"
MANWIDTH=400 man -l "$ROOT/thrashtop.1" 2>/dev/null | col -b |
	awk '/^EXAMPLES$/,/^SEE ALSO$/' | sed -n 's/^[[:space:]]*\(thrashtop .*\)$/\1/p' >"$TMP/examples"
expect examples-found test "$(wc -l <"$TMP/examples")" -ge 10
# The README's, as a user types them in the tree: ./thrashtop, a comment.
awk '/^## First commands/ { on = 1; next } on && /^```/ { if (inb) exit; inb = 1; next }
	inb' "$ROOT/README.md" | sed -n 's/ *#.*//; s/^\.\/\(thrashtop .*\)$/\1/p' >"$TMP/readme"
expect readme-examples-found test "$(wc -l <"$TMP/readme")" -ge 5

mkdir "$TMP/ex"
cd "$TMP/ex" || exit 1
printf 'all:\n\t@true\n' >Makefile
printf '70.270u 7.330s 2:33.29 50.6%% 0+0k 0+0io 19670pf+0w\n' >old-post.txt
XDG_DATA_HOME=$TMP/other "$T" -b -n 1000 -p 1 -L otherbox >/dev/null 2>"$TMP/e"
cp "$TMP/other/thrashtop/history.db" otherbox.db
leave_kib=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) - 262144))
short() {
	local c=$1
	case $c in "thrashtop history "*) echo "$c"; return ;; esac
	c=$(sed -E 's/ -(n|m) [0-9]+/ -n 20000/; s/ --global [0-9]+[KMG]/ --global '"$leave_kib"'K/;
		s/ --swap [0-9.]+G/ --swap 256M/' <<<"$c")
	case $c in *" -n "*) ;; *" -- "*) ;; *) c="$c -n 20000 -p 1" ;; esac
	case $c in *" -b "*) ;; *) c="thrashtop -b ${c#thrashtop }" ;; esac
	echo "$c"
}
examples() {	# FILE NAME: each line of FILE run as assertion NAME-N-exit-0
	local ex cmd rc i=0
	while IFS= read -r ex; do
		i=$((i + 1))
		cmd=$(short "$ex")
		echo "  $ex"
		[ "$cmd" = "$ex" ] || echo "    as: $cmd"
		bash -c "T='$T'; t() { \"\$T\" \"\$@\"; }; ${cmd/#thrashtop/t}" </dev/null >"$TMP/out" 2>"$TMP/err"
		rc=$?
		expect "$2-$i-exit-0" test $rc -eq 0
		[ $rc -eq 0 ] || sed 's/^/    stderr: /' "$TMP/err" | head -5
	done <"$1"
}
examples "$TMP/examples" example
examples "$TMP/readme" readme-example
expect machine-back test "$(cat /proc/sys/vm/swappiness)" = "$sw0" -a "$(cat /proc/sys/vm/nr_hugepages)" = "$nr0"
