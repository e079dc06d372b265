"""Small reads of ROOT files in a process of their own: python small_root_reads.py N URL...; prints, as JSON, for
each URL the TFile class ROOT opened it with, the entries of its histogram "h", and the seconds of each of N reads of
1 kB at different offsets (no cache: one request and response each). Shared by tests/test_remote_endpoint.py and
benchmarks/timed_checks.py."""

import ctypes
import json
import sys
import time

import ROOT

n, out = int(sys.argv[1]), []
for url in sys.argv[2:]:
    f = ROOT.TFile.Open(url)
    if not f or f.IsZombie():
        sys.exit(f"cannot open {url}")
    size, buf, times = f.GetSize(), ctypes.create_string_buffer(1024), []
    for i in range(n):  # small reads at different offsets, no cache: one request and response each
        start = time.perf_counter()
        if f.ReadBuffer(buf, (i * 7919) % (size - 1024), 1024):
            sys.exit(f"read {i} of {url} failed")
        times.append(time.perf_counter() - start)
    out.append({"class": f.ClassName(), "entries": f.Get("h").GetEntries(), "times": times})
    f.Close()
print(json.dumps(out))
