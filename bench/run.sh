#!/usr/bin/env bash
# `make bench`: ratios side by side in one run, never absolute times.
set -u
cd "$(dirname "$0")"
rc=0
echo "== sorter against qsbench 0.93 (same compiler, flags, N and seed; alternating runs; medians)"
./sort.sh || rc=1
echo
echo "== sampling and drawing cost against top and htop"
./monitor.sh || rc=1
exit $rc
