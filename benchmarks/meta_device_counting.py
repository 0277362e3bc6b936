"""How long counting gpt2-xl takes on the meta device versus building it for real.

Each measurement runs in a fresh Python process, so its peak memory (maximum
resident set size) is its own. Prints a table; never fails because the machine
is slow.

    .venv/bin/python benchmarks/meta_device_counting.py [MODEL]
"""

import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import torch
from gptcourse import GPTModel, build_on_meta, config_by_name, count_parameters

name, mode = sys.argv[1], sys.argv[2]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cfg = config_by_name(name)
start = time.perf_counter()
if mode == "meta":
    model = build_on_meta(cfg)
else:
    model = GPTModel(cfg)
total = count_parameters(model)
first = time.perf_counter() - start
second = None
if mode == "meta":
    start = time.perf_counter()
    count_parameters(build_on_meta(cfg))
    second = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"total": total, "first_s": first, "again_s": second,
                  "extra_peak_mib": (peak - base) / 1024}))
"""


def measure(name, mode):
    out = subprocess.run([sys.executable, "-c", CHILD, name, mode],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "gpt2-xl"
    meta = measure(name, "meta")
    real = measure(name, "real")
    assert meta["total"] == real["total"]
    print(f"{name}: {meta['total']:,} parameters (untied)")
    print(f"{'how':<28} {'seconds':>9} {'extra peak memory':>20}")
    print(f"{'meta device, first call':<28} {meta['first_s']:>9.3f} {meta['extra_peak_mib']:>16,.0f} MiB")
    print(f"{'meta device, again':<28} {meta['again_s']:>9.3f}")
    print(f"{'built for real (float32)':<28} {real['first_s']:>9.3f} {real['extra_peak_mib']:>16,.0f} MiB")
    print(f"the meta count is {real['first_s'] / meta['first_s']:,.0f}x faster on a process's first call "
          f"({real['first_s'] / meta['again_s']:,.0f}x on later calls) and needs "
          f"{real['extra_peak_mib'] - meta['extra_peak_mib']:,.0f} MiB less memory")


if __name__ == "__main__":
    main()
