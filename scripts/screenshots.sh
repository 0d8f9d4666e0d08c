#!/usr/bin/env bash
# Regenerates screenshots/*.png from real runs: the monitor in mid-run under
# a memory cgroup limit below the workload with a temporary swap file, at
# 80x24 and 160x50. Needs root (for --mem and --swap), tmux, python3-pil.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "screenshots.sh: needs root for --mem and --swap" >&2; exit 1; }
/usr/bin/python3 -c 'import PIL' 2>/dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pil >/dev/null
make --no-print-directory thrashtop >/dev/null
S=thrashtop-shot-$$
trap 'tmux kill-session -t $S 2>/dev/null || true' EXIT
WAIT=${WAIT:-12}

shot() {	# shot COLS ROWS NAME
	tmux new-session -d -s $S -x "$1" -y "$2" \
		"exec ./thrashtop --no-history --mem 160M --swap 1G -n 45000000 -p 2 -d 0.25"
	sleep "$WAIT"
	tmux capture-pane -e -p -t $S >"/tmp/$3.ans"
	tmux send-keys -t $S q
	sleep 3
	tmux kill-session -t $S 2>/dev/null || true
	/usr/bin/python3 scripts/ansi2png.py "/tmp/$3.ans" "screenshots/$3.png" "$1" "$2"
	rm -f "/tmp/$3.ans"
	echo "screenshots/$3.png"
}
shot 80 24 monitor-80x24
shot 160 50 monitor-160x50
