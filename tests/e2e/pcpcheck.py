#!/usr/bin/env python3
"""pcpcheck.py DUMP LABELS RUN JSON: a run's PCP archive, as `pmdumplog
-xxx -a` (DUMP) and `pmdumplog -e` (LABELS) print it, against the run RUN
of the history's JSON export: one record per stored sample at the run's
start plus its t; every sample of every series under thrashtop.NAME with
its stored value, and none where the series has a gap; the linux agent's
names as the same figures in its units (a counter the sum of rate x
interval); the workers' totals at the last sample; the run's fields as
labels; its host as the archive's. Prints what it compared, or the first
differences, and exits 1 on any."""
import calendar
import json
import math
import re
import sys
import time

dump_path, labels_path, run_id, json_path = sys.argv[1:5]
run = next(r for r in json.load(open(json_path))["runs"] if r["id"] == int(run_id))
series = run["series"]
n = series["nsamples"]
epoch = calendar.timegm(time.strptime(run["started_at"], "%Y-%m-%dT%H:%M:%SZ"))
bad = []

# pmdumplog -xxx: "Tue Dec  8 00:16:55.098000 2026 (0.098000) 1796689015 47 metrics"
head = re.compile(r"^\w{3} \w{3} +\d+ \d\d:\d\d:\d\d\.(\d{6}) \d+ \(\S+\) (\d+) \d+ metrics?$")
single = re.compile(r"^    \S+ \((\S+)\): value (.*)$")
one_inst = re.compile(r'^    \S+ \((\S+)\): inst \[\d+ or "([^"]*)"\] value (.*)$')
multi = re.compile(r"^    \S+ \((\S+)\):$")
inst = re.compile(r'^        inst \[\d+ or "([^"]*)"\] value (.*)$')
records, host, name = [], None, None
for line in open(dump_path):
    line = line.rstrip("\n")
    m = re.match(r"^Performance metrics from host (.*)$", line)
    if m:
        host = m.group(1)
    if (m := head.match(line)):
        records.append((int(m.group(2)) + int(m.group(1)) / 1e6, {}))
    elif records and (m := single.match(line)):
        records[-1][1][(m.group(1), None)] = m.group(2)
    elif records and (m := one_inst.match(line)):
        records[-1][1][(m.group(1), m.group(2))] = m.group(3)
    elif records and (m := multi.match(line)):
        name = m.group(1)
    elif records and name and (m := inst.match(line)):
        records[-1][1][(name, m.group(1))] = m.group(2)


def num(v):
    return json.loads(v) if v.startswith('"') else float(v)


def close(a, b, rel):
    return abs(a - b) <= rel * max(1.0, abs(b))


if len(records) != n:
    bad.append(f"{len(records)} records, {n} samples stored")
t = series.get("t", [])
for i, (at, _) in enumerate(records[:n]):
    if abs(at - (epoch + t[i])) > 1e-6:
        bad.append(f"record {i + 1} at {at:.6f}, sample at {epoch + t[i]:.6f}")

# every series as stored
values = 0
for key, vals in series.items():
    if key in ("nsamples", "t"):
        continue
    pname = "thrashtop." + key.replace("-", "_")
    for i, v in enumerate(vals[: len(records)]):
        got = records[i][1].get((pname, None))
        if v is None and got is not None:
            bad.append(f"{pname} at sample {i + 1}: {got}, stored a gap")
        elif v is not None and (got is None or not close(num(got), v, 1e-9)):
            bad.append(f"{pname} at sample {i + 1}: {got}, stored {v}")
        values += v is not None
ours = {k[0] for r in records for k in r[1] if k[0].startswith("thrashtop.")}
extra = {p for p in ours if not p.startswith("thrashtop.worker.")} - \
    {"thrashtop." + k.replace("-", "_") for k in series}
if extra:
    bad.append(f"not stored: {sorted(extra)}")

# the linux agent's figures: (name, instance, series, plus, scale, counter)
linux = [
    ("swap.used", None, "swap-used", None, 1024, False),
    ("mem.util.free", None, "free", None, 1, False),
    ("mem.util.available", None, "available", None, 1, False),
    ("mem.util.cached", None, "cached", None, 1, False),
    ("mem.util.swapCached", None, "swap-cached", None, 1, False),
    ("kernel.all.running", None, "procs-running", None, 1, False),
    ("kernel.all.blocked", None, "procs-blocked", None, 1, False),
    ("kernel.all.pressure.memory.some.avg", "10 second", "psi-some", None, 1, False),
    ("kernel.all.pressure.memory.full.avg", "10 second", "psi-full", None, 1, False),
    ("mem.vmstat.pgmajfault", None, "majflt", None, 1, True),
    ("mem.vmstat.pgfault", None, "majflt", "minflt", 1, True),
    ("mem.vmstat.pswpin", None, "pswpin", None, 1, True),
    ("mem.vmstat.pswpout", None, "pswpout", None, 1, True),
    ("mem.vmstat.pgscan_kswapd", None, "scan-kswapd", None, 1, True),
    ("mem.vmstat.pgscan_direct", None, "scan-direct", None, 1, True),
    ("mem.vmstat.pgsteal_kswapd", None, "steal-kswapd", None, 1, True),
    ("mem.vmstat.pgsteal_direct", None, "steal-direct", None, 1, True),
    ("kernel.all.pressure.memory.some.total", None, "psi-some-rate", None, 1e4, True),
    ("kernel.all.pressure.memory.full.total", None, "psi-full-rate", None, 1e4, True),
]
named = 0
for pname, pinst, src, plus, scale, counter in linux:
    a = series.get(src)
    b = series.get(plus) if plus else None
    if a is None or (plus and b is None):
        continue
    named += 1
    total = 0.0
    for i in range(min(n, len(records))):
        x = a[i] if not plus else (None if a[i] is None or b[i] is None else a[i] + b[i])
        got = records[i][1].get((pname, pinst))
        if counter and i == 0:
            want, tol = 0.0, 0
        elif counter and x is not None:
            total += x * scale * (t[i] - t[i - 1])
            want, tol = round(total), 1
        else:
            want, tol = (None if x is None else x * scale), 0
        if want is None and got is not None:
            bad.append(f"{pname} at sample {i + 1}: {got}, stored a gap")
        elif want is not None and got is None:
            bad.append(f"{pname} at sample {i + 1}: no value, want {want}")
        elif want is not None:
            g = num(got)
            ok = abs(g - want) <= tol if counter else \
                close(g, want, 1e-6 if pinst else 1e-9) or (not pinst and g == round(want))
            if not ok:
                bad.append(f"{pname} at sample {i + 1}: {got}, want {want}")

# the workers' totals at the last sample
fields = {"end": "end", "exit_code": "exit_code", "signal": "signal", "user": "user_us",
          "sys": "sys_us", "majflt": "majflt", "minflt": "minflt",
          "verify_errors": "verify_errors", "first_bad": "first_bad"}
last = records[-1][1] if records else {}
for k, w in enumerate(run["workers"]):
    wi = f"worker{k + 1}"
    want = {f"thrashtop.worker.{p}": w[f] for p, f in fields.items()}
    want.update({f"thrashtop.worker.delay.{d}": s for d, s in (w["delays"] or {}).items()})
    for pname, v in want.items():
        got = last.get((pname, wi))
        if v is None and got is not None or v is not None and (
                got is None or (num(got) != v if isinstance(v, str) else not close(num(got), v, 1e-12))):
            bad.append(f"{pname} [{wi}]: {got}, stored {v}")
        for r in records[:-1]:
            if (pname, wi) in r[1]:
                bad.append(f"{pname} [{wi}] before the last sample")
                break

# the run's fields as labels, and its host
labels = {}
for line in open(labels_path):
    m = re.match(r"^\s*Context labels \(\d+ bytes\): (\{.*\})$", line)
    if m:
        labels.update(json.loads(m.group(1)))
nlabels = 0
fields_of_run = dict(run)
for k, v in (run["stalls"] or {}).items():
    fields_of_run[f"stall_{k}_s"] = v
for f, v in fields_of_run.items():
    if isinstance(v, (dict, list)) or v is None or v == "":
        if f in labels and f != "stalls":
            bad.append(f"label {f}: {labels[f]!r}, field {v!r}")
        continue
    nlabels += 1
    got = labels.get(f)
    if got is None or (got != v if isinstance(v, str) else float(got) != v):
        bad.append(f"label {f}: {got!r}, field {v!r}")
if host != (run["hostname"] or "unknown"):
    bad.append(f"host {host!r}, run's {run['hostname']!r}")

if bad:
    print(f"run {run_id}: {len(bad)} differences: " + "; ".join(bad[:6]))
    sys.exit(1)
print(f"run {run_id}: {len(records)} records at the stored times, {values} stored values of "
      f"{len(series) - 2} series, {named} linux agent names, {len(run['workers'])} workers, "
      f"{nlabels} labels, host {host}: all the same")
