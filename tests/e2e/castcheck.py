#!/usr/bin/env python3
"""Checks an asciicast v2 file line by line: the header's keys, then
[time, "o" | "r", text] events with times that never go back and at least
one "o". Prints the evidence of the first fault and exits 1; on success
prints "N events, last at T s" and exits 0."""
import json
import re
import sys

def main(path):
    data = open(path, "rb").read()
    if not data.endswith(b"\n"):
        return "the file does not end with a whole line"
    lines = data.decode("utf-8").split("\n")[:-1]
    head = json.loads(lines[0])
    for key, kind in (("version", int), ("width", int), ("height", int), ("title", str)):
        if not isinstance(head.get(key), kind):
            return "header: %s missing or not %s: %r" % (key, kind.__name__, head)
    if head["version"] != 2:
        return "header: version %r" % head["version"]
    if not isinstance(head.get("env"), dict) or not head["env"].get("TERM"):
        return "header: no env.TERM: %r" % head
    last, n_o = 0.0, 0
    for i, line in enumerate(lines[1:], 2):
        try:
            ev = json.loads(line)
        except ValueError as e:
            return "line %d is not JSON (%s): %.200r" % (i, e, line)
        if (not isinstance(ev, list) or len(ev) != 3 or not isinstance(ev[0], (int, float))
                or ev[1] not in ("o", "r") or not isinstance(ev[2], str)):
            return "line %d is not an event: %.200r" % (i, line)
        if ev[0] < last:
            return "line %d goes back in time: %s after %s" % (i, ev[0], last)
        if ev[1] == "r" and not re.fullmatch(r"[0-9]+x[0-9]+", ev[2]):
            return "line %d: resize %r" % (i, ev[2])
        last = ev[0]
        n_o += ev[1] == "o"
    if n_o == 0:
        return "no output event"
    print("%d events, last at %s s" % (len(lines) - 1, last))
    return None

err = main(sys.argv[1])
if err:
    print(sys.argv[1] + ": " + err)
    sys.exit(1)
