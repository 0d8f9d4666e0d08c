#!/usr/bin/env bash
# lane: other
# make install and uninstall into a scratch DESTDIR: the files in their
# places, the installed binary runs, the installed completion completes.
. "$(dirname "$0")/lib.sh"
D=$TMP/dest
M() { make -s --no-print-directory -C "$ROOT" "$@"; }

expect default-prefix-usr-local bash -c "make -n --no-print-directory -C '$ROOT' install DESTDIR=/x |
	grep -q ' /x/usr/local/bin/thrashtop\$'"
M install DESTDIR="$D" PREFIX=/usr >"$TMP/out" 2>&1; rc=$?
expect install-ok test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/  /' "$TMP/out"
B=$D/usr/bin/thrashtop
C=$D/usr/share/bash-completion/completions/thrashtop
expect binary-executable test -x "$B"
expect man-page test -f "$D/usr/share/man/man1/thrashtop.1"
expect completion test -f "$C"
expect licence cmp -s "$ROOT/LICENSE" "$D/usr/share/doc/thrashtop/LICENSE"
expect nothing-else test "$(find "$D" -type f | wc -l)" -eq 4

"$B" --version >"$TMP/out" 2>&1; rc=$?
expect installed-runs-version test "$rc" -eq 0 -a -s "$TMP/out"
"$B" -b -n 100000 -p 1 --history "$TMP/h.db" -L installed >"$TMP/out" 2>"$TMP/err"; rc=$?
expect installed-runs-a-run test "$rc" -eq 0 -a "$(grep -c 'pf+0w' "$TMP/out")" -eq 1
"$B" -b -n 100000 -p 1 --history "$TMP/h.db" -L installed >/dev/null 2>&1
expect installed-man-renders bash -c "MANWIDTH=80 man -l '$D/usr/share/man/man1/thrashtop.1' 2>/dev/null |
	grep -q 'thrashtop history'"

# The completion, as bash-completion would load it; the installed binary
# first in PATH.
comp() {	# WORDS...: the last one is being completed; prints COMPREPLY
	PATH="$D/usr/bin:$PATH" bash --norc --noprofile -c '
		. "$0"
		COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		_thrashtop
		printf "%s\n" "${COMPREPLY[@]}"' "$C" "$@"
}
has() {	# WANT WORDS...: WANT is among the completions of WORDS
	local want=$1; shift
	comp "$@" | grep -qx -- "$want" || { echo "  completions of [$*]: $(comp "$@" | tr '\n' ' ')"; return 1; }
}
expect complete-registered bash --norc -c ". '$C'; complete -p thrashtop | grep -q _thrashtop"
expect complete-option has --global-with thrashtop --glo
expect complete-option-with-value has --format= thrashtop --form
expect complete-history-option has --skip-bad thrashtop history --sk
expect complete-subcommand has history thrashtop hi
expect complete-history-command has compare thrashtop history com
expect complete-every-subcommand test "$(comp thrashtop history "" | wc -l)" -ge 7
expect complete-format-value has gnu-full thrashtop --format = gnu
expect complete-global-with has hugetlb thrashtop --global-with h
expect complete-plot-name has swap-used thrashtop history plot 1 --series = swap-u
expect complete-run-id has 2 thrashtop history --history "$TMP/h.db" show ""
expect complete-run-ids-only test "$(comp thrashtop history --history "$TMP/h.db" rm "" | tr '\n' ' ')" = "2 1 "
expect complete-plot-ids has 1 thrashtop history --history "$TMP/h.db" plot 2 ""
expect complete-plot-series has swap-used,majflt thrashtop history plot 1 --series = swap-used,maj
expect complete-command-after-dashes has bash thrashtop -- bas
expect complete-format-pcp has pcp thrashtop history export --format = p
# export --format=pcp: the run IDs, then the directory
expect complete-pcp-ids has 2 thrashtop history --history "$TMP/h.db" export --format=pcp ""
expect complete-pcp-dir has "$TMP/dest" thrashtop history --history "$TMP/h.db" export --format=pcp 1 "$TMP/de"
# kernel fetch|list|boot, and the kernels --kernel and boot take: the
# cached ones by version, files (a .deb) by path, apt's generic images
mkdir "$TMP/fake"
printf '#!/bin/sh\nprintf "%%s\\n" linux-image-6.1.0-57-amd64 linux-image-6.1.0-57-cloud-amd64 \\
	linux-image-6.1.0-57-amd64-dbg linux-image-6.12.118+deb12-amd64\n' >"$TMP/fake/apt-cache"
chmod +x "$TMP/fake/apt-cache"
: >"$TMP/linux-image-x.deb"
expect complete-kernel-command has kernel thrashtop ker
expect complete-kernel-subcommand has boot thrashtop kernel b
expect "complete-kernel-three[$(comp thrashtop kernel "" | tr '\n' ' ')]" \
	test "$(comp thrashtop kernel "" | tr '\n' ' ')" = "fetch list boot "
expect complete-kernel-boot-option has --boot-mem thrashtop kernel boot --bo
expect complete-kernel-deb has "$TMP/linux-image-x.deb" thrashtop --kernel "$TMP/linux-im"
expect complete-kernel-boot-deb has "$TMP/linux-image-x.deb" thrashtop kernel boot --cpus 1 "$TMP/linux-im"
got=$(PATH="$TMP/fake:$PATH" comp thrashtop kernel fetch linux-image-6.1. | tr '\n' ' ')
expect "complete-kernel-fetch-generic-images[$got]" test "$got" = "linux-image-6.1.0-57-amd64 "
v=$("$B" kernel list 2>/dev/null | awk '{ print $1; exit }')
if [ -n "$v" ]; then
	expect "complete-kernel-cached[$v]" has "$v" thrashtop --kernel "${v%%.*}."
	expect "complete-kernel-boot-cached[$v]" has "$v" thrashtop kernel boot "${v%%.*}."
else
	skip "complete-kernel-cached: no kernel cached"
fi

M uninstall DESTDIR="$D" PREFIX=/usr >"$TMP/out" 2>&1; rc=$?
expect uninstall-ok test "$rc" -eq 0
expect uninstall-removes-all test "$(find "$D" -type f | wc -l)" -eq 0
