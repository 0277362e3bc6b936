"""How fast the grading service answers a deadline rush, and what a kill -9 in it costs.

On the tiny course (testsupport/tiny_course.py), a rush of hand-ins (correct,
partial and untouched notebooks in turn) is handed to a warm `python -m grader
serve` through its store, all at once (a burst) or spread evenly over
--minutes, with 1 and 2 workers; each run in a fresh course. It prints, per
run, the latency from hand-in to graded (p50, p95), the time to drain the rush
and the throughput, and the ratio of the drain to `python -m grader autograde
--jobs 1` (start-up included, as an instructor runs it) on the same notebooks.
Then, with 2 workers, the service is killed with SIGKILL once a third of the
rush is graded and started again: it prints how many hand-ins were lost (never
graded), graded twice (a student with more than one gradebook submission),
claimed again after the kill (in flight when it came), and how many students'
gradebook scores differ from the batch's. It never fails because the machine is slow.
The services it starts run the grader found on its PYTHONPATH (the installed one
when unset), as the batch run does.

    .venv/bin/python benchmarks/service.py [--rush 24] [--minutes 0] [--workers 1,2]
        [--no-kill]

--rush 200 --minutes 5 is the deadline rush of a class.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "src")]

from grader.service import course_store  # noqa: E402
from testsupport.course import nbgrader_env  # noqa: E402
from testsupport.gradebook import gradebook_rows, gradebook_scores, sqlite_url  # noqa: E402
from testsupport.hand_in import hand_in  # noqa: E402
from testsupport.service import start_service, stop_service, wait_until_final  # noqa: E402
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course,  # noqa: E402
                                     released)

KINDS = ("correct", "partial", "untouched")
DEADLINE = 1800  # seconds a run may take at most before it is reported as unfinished


def notebooks(course, rush):
    """{student: notebook bytes}, the kinds in turn."""
    release = released(course)
    made = {"correct": correct(release),
            "partial": correct(release, double_answer="def double(x):\n    return x\n"),
            "untouched": release}
    return {f"r{n:03d}": json.dumps(made[KINDS[n % len(KINDS)]]).encode("utf-8")
            for n in range(rush)}


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def wait_for_line(path, text, deadline):
    while time.monotonic() < deadline:
        with open(path, errors="replace") as handle:
            if text in handle.read():
                return True
        time.sleep(0.2)
    return False


def hand_in_rush(store, handed, minutes):
    spacing = minutes * 60 / max(1, len(handed) - 1) if minutes else 0.0
    start = time.monotonic()
    for n, (student, content) in enumerate(handed.items()):
        delay = start + n * spacing - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        store.hand_in(student, ASSIGNMENT, {NOTEBOOK + ".ipynb": content}, "benchmark")


def service_run(folder, workers, rush, minutes, kill=False):
    """One rush into a warm service; returns its figures."""
    course = os.path.join(folder, f"service-{workers}{'-kill' if kill else ''}")
    make_course(course)
    handed = notebooks(course, rush)
    store = course_store(os.path.join(course, "course-data"))
    log_path = os.path.join(folder, os.path.basename(course) + ".log")
    with open(log_path, "wb") as log:
        service = start_service(course, "--workers", str(workers), log=log)
        deadline = time.monotonic() + DEADLINE
        warm = wait_for_line(log_path, "serving ", deadline)
        figures = {"warm": warm, "restarts": 0}
        try:
            hand_in_rush(store, handed, minutes)
            if kill:
                wait_until_final(store, max(1, rush // 3), deadline, service)
                service.kill()
                service.wait()
                figures["restarts"] = 1
                service = start_service(course, "--workers", str(workers), log=log)
            jobs = wait_until_final(store, rush, deadline, service)
        finally:
            stop_service(service, timeout=60)
    graded = [j for j in jobs if j.state == "graded"]
    latencies = [(j.graded - j.arrived).total_seconds() for j in graded]
    first = min(j.arrived for j in jobs)
    drain = (max(j.graded for j in graded) - first).total_seconds() if graded else float("nan")
    rows = gradebook_rows(sqlite_url(course), ASSIGNMENT)
    figures.update(course=course, graded=len(graded), drain=drain,
                   p50=percentile(latencies, 0.5) if latencies else float("nan"),
                   p95=percentile(latencies, 0.95) if latencies else float("nan"),
                   lost=rush - len(graded),
                   twice=sum(1 for _, count in rows["submissions"] if count > 1),
                   again=sum(1 for j in graded if j.attempts > 1),
                   scores=gradebook_scores(course, ASSIGNMENT))
    return figures


def batch_run(folder, rush):
    """`python -m grader autograde --jobs 1` on the same notebooks; (seconds, scores)."""
    course = os.path.join(folder, "batch")
    make_course(course)
    for student, content in notebooks(course, rush).items():
        hand_in(course, student, ASSIGNMENT, {NOTEBOOK + ".ipynb": content})
    start = time.monotonic()
    finished = subprocess.run([sys.executable, "-m", "grader", "autograde", ASSIGNMENT,
                               "--jobs", "1", "--course", course], env=nbgrader_env(),
                              capture_output=True, text=True, timeout=DEADLINE)
    if finished.returncode:
        raise SystemExit(f"batch autograde failed: {finished.stderr[-2000:]}")
    return time.monotonic() - start, gradebook_scores(course, ASSIGNMENT)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rush", type=int, default=24, help="hand-ins in the rush (24)")
    parser.add_argument("--minutes", type=float, default=0.0,
                        help="spread the rush over this many minutes (0: a burst)")
    parser.add_argument("--workers", default="1,2", help="numbers of workers (1,2)")
    parser.add_argument("--no-kill", action="store_true", help="skip the kill -9 run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="service-benchmark-") as folder:
        batch_seconds, batch_scores = batch_run(folder, args.rush)
        print(f"rush of {args.rush} hand-ins of the tiny course "
              f"({'a burst' if not args.minutes else f'over {args.minutes:g} min'}); "
              f"batch autograde --jobs 1: {batch_seconds:.1f} s")
        print(f"{'run':<22}{'graded':>7}{'p50 s':>8}{'p95 s':>8}{'drain s':>9}"
              f"{'per min':>9}{'batch/drain':>12}{'lost':>6}{'twice':>6}{'again':>6}"
              f"{'differ':>7}")
        runs = [(f"{w} worker(s)", int(w), False) for w in args.workers.split(",")]
        if not args.no_kill:
            runs.append(("2 workers, kill -9", 2, True))
        for name, workers, kill in runs:
            figures = service_run(folder, workers, args.rush, args.minutes, kill)
            differ = sum(1 for s, scores in batch_scores.items()
                         if figures["scores"].get(s) != scores)
            print(f"{name:<22}{figures['graded']:>7}{figures['p50']:>8.2f}{figures['p95']:>8.2f}"
                  f"{figures['drain']:>9.1f}{60 * figures['graded'] / figures['drain']:>9.0f}"
                  f"{batch_seconds / figures['drain']:>12.2f}{figures['lost']:>6}"
                  f"{figures['twice']:>6}{figures['again']:>6}{differ:>7}", flush=True)


if __name__ == "__main__":
    main()
