#!/usr/bin/env bash
# lane: other
# The man page: renders without a warning, and documents every option and
# subcommand that --help prints.
. "$(dirname "$0")/lib.sh"
MAN=$ROOT/thrashtop.1
command -v man >/dev/null || { fail man-missing "man(1) is not installed"; exit 1; }

warn=$(MANWIDTH=80 man --warnings -l "$MAN" 2>&1 >/dev/null)
expect renders-without-warnings test -z "$warn"
[ -z "$warn" ] || printf '  %s\n' "$warn" | head -20
# Wide enough that no option is broken across lines or hyphenated.
MANWIDTH=400 man -l "$MAN" 2>/dev/null | col -b >"$TMP/page"
expect renders test -s "$TMP/page"

"$T" --help >"$TMP/help"
"$T" history --help >>"$TMP/help"
# both fit an 80-column terminal
wide=$(awk 'length($0) > 80' "$TMP/help")
expect "help-fits-80-columns[$wide]" test -z "$wide"
opts=$(grep -oE '(^|[ ,[])--?[a-zA-Z][a-zA-Z-]*' "$TMP/help" | sed 's/^[ ,[]//' | sort -u)
[ "$(wc -l <<<"$opts")" -ge 30 ] || fail options-found "only $(wc -l <<<"$opts") options in --help"
missing=
for o in $opts; do
	grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|\$)" "$TMP/page" || missing="$missing $o"
done
expect every-option-documented test -z "$missing"
[ -z "$missing" ] || echo "  not in the man page:$missing"

# And the other way: every option the man page lists is one --help gives.
mopts=$(awk '/^OPTIONS$/,/^KEYS$/' "$TMP/page" | grep -E '^ {7}-' |
	grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,]//' | sort -u)
[ "$(wc -l <<<"$mopts")" -ge 30 ] || fail man-options-found "only $(wc -l <<<"$mopts") options in the man page"
missing=
for o in $mopts; do
	grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|\$)" "$TMP/help" || missing="$missing $o"
done
expect every-man-option-in-help test -z "$missing"
[ -z "$missing" ] || echo "  not in --help:$missing"

# The subcommands of the usage line, each under HISTORY COMMANDS.
subs=$(sed -n 's/^ *thrashtop history \[\(.*\)\]$/\1/p; s/^usage: thrashtop history \[//p' "$TMP/help" |
	grep -oE '(^|[|[] *)[a-z]+' | grep -oE '[a-z]+' | sort -u)
[ -n "$subs" ] || fail subcommands-found "no subcommand in --help"
missing=
for c in $subs; do
	grep -qE "^ +thrashtop history $c( |\$)" "$TMP/page" || missing="$missing $c"
done
expect every-subcommand-documented test -z "$missing"
[ -z "$missing" ] || echo "  not in the man page:$missing"
# ... and in the synopsis, with history --help.
syn=$(awk '/^SYNOPSIS$/,/^DESCRIPTION$/' "$TMP/page")
missing=
for c in $subs; do
	grep -qE "(\[| \| )$c( |\]|\$)" <<<"$syn" || missing="$missing $c"
done
expect synopsis-every-subcommand test -z "$missing"
[ -z "$missing" ] || echo "  not in the synopsis:$missing"
expect synopsis-history-help grep -q 'thrashtop history --help' <<<"$syn"

# Sections a reader looks for.
for s in SYNOPSIS OPTIONS KEYS FILES "EXIT STATUS" EXAMPLES; do
	expect "section-$s" grep -qx "$s" "$TMP/page"
done
