#!/usr/bin/env python3
"""CPU time of a process by thread name (Linux): runs the command, samples /proc/PID/task/*/stat every 0.1 s and
prints each thread group's user + system seconds as last seen, summed over threads whose names differ only in
digits. A diagnosis aid for compare.sh's Java/Node gap (docs/performance.md); threads that end between two samples
lose at most 0.1 s each.

    python3 flux2-bench/node/thread-cpu.py java -jar flux2-cli/target/flux2.jar generate ...
"""
import collections
import os
import re
import subprocess
import sys
import time

proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
ticks = os.sysconf("SC_CLK_TCK")
last = {}
while proc.poll() is None:
    try:
        tids = os.listdir(f"/proc/{proc.pid}/task")
    except OSError:
        break
    for tid in tids:
        try:
            with open(f"/proc/{proc.pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        last[tid] = (name, (int(fields[11]) + int(fields[12])) / ticks)
    time.sleep(0.1)
seconds = collections.Counter()
threads = collections.Counter()
for name, cpu in last.values():
    group = re.sub(r"\d+", "#", name)
    seconds[group] += cpu
    threads[group] += 1
print(f"exit {proc.returncode}; sampled {sum(seconds.values()):.2f} s of CPU over {len(last)} threads")
for group, cpu in seconds.most_common():
    print(f"{cpu:8.2f} s  {threads[group]:3d} threads  {group}")
