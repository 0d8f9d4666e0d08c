#!/usr/bin/env bash
# lane: other
# The recording README shows (screenshots/monitor-100x30.cast, a real
# session of this machine) is valid asciicast v2 and plays, with
# asciinema, to the monitor's last screen: the run's time line.
. "$(dirname "$0")/lib.sh"
need_tmux
command -v asciinema >/dev/null || { fail asciinema-missing "apt-get install asciinema"; exit 1; }

cast=$ROOT/screenshots/monitor-100x30.cast
expect "valid[$(python3 "$ROOT/tests/e2e/castcheck.py" "$cast")]" \
	eval 'python3 "$ROOT/tests/e2e/castcheck.py" "$cast" >/dev/null'
expect readme-links-it grep -q '(screenshots/monitor-100x30.cast)' "$ROOT/README.md"
tm new-session -d -s play -x 100 -y 30 "asciinema cat $cast; echo PLAYED >$TMP/played; sleep 60"
expect played wait_for 30 grep -qs PLAYED "$TMP/played"
tm capture-pane -p -t play >"$TMP/screen"
expect "time-line[$(grep '^#1' "$TMP/screen")]" \
	grep -Eq '^#1 [0-9]+\.[0-9]{3}u [0-9]+\.[0-9]{3}s [0-9:.]+ [0-9.]+% .*kswapd  ok' "$TMP/screen"
expect header-is-monitor grep -q 'major faults' "$TMP/screen"
