#!/usr/bin/env python3
"""tuninglock.py LOCKFILE SECONDS: takes the tuning lock of this machine's
thrashtop sessions (a POSIX write lock on their state directory's session
file, as undo_claim takes it) for the test that started it, and holds it
until that test's shell exits or it is killed. It prints, a line each:
"waiting PID" while the session PID holds it, then "held"; or "busy PID"
when PID held it for SECONDS; or "none" when the lock cannot be opened
here (not root: a session of the users' could not be kept out anyway)."""
import fcntl
import os
import sys
import time

path, seconds = sys.argv[1], float(sys.argv[2])
test = os.getppid()


def say(line):
    print(line, flush=True)


def holder(fd):
    """The pid /proc/locks gives for the lock on fd's file."""
    st = os.fstat(fd)
    want = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    with open("/proc/locks") as f:
        for line in f:
            w = line.split()
            if len(w) > 5 and w[1] == "POSIX" and w[5] == want:
                return w[4]
    return "?"


try:
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
except OSError:
    say("none")
    sys.exit(0)
end = time.monotonic() + seconds
said = False
while True:
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        break
    except OSError:
        pid = holder(fd)
        if time.monotonic() >= end:
            say("busy " + pid)
            sys.exit(1)
        if not said and pid != "?":
            say("waiting " + pid)
            said = True
        time.sleep(0.2)
say("held")
while os.getppid() == test:
    time.sleep(0.2)
