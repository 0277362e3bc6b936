"""How fast the grading service answers a deadline rush, and what a kill -9 in it costs.

On the tiny course (testsupport/tiny_course.py, the default) or on the course's
own assignments (--course real: every folder of solutions/, the hand-ins of
testsupport/synthetic_batch.py, each student handing in each), a rush of
hand-ins (correct, partial and untouched notebooks in turn) is handed to a warm
`python -m grader serve` through its store, all at once (a burst) or spread
evenly over --minutes, with 1 and 2 workers; each run in a fresh course. It
prints, per run, the latency from hand-in to graded (p50, p95), the time to
drain the rush and the throughput, and the ratio of the drain to `python -m
grader autograde --jobs 1` (start-up included, as an instructor runs it: once
per assignment) on the same notebooks.
Then, with 2 workers, the service is killed with SIGKILL once a third of the
rush is graded and started again: it prints how many hand-ins were lost (never
graded), graded twice (a student with more than one gradebook submission of an
assignment), claimed again after the kill (in flight when it came), and how many
students' gradebook scores differ from the batch's.
Last, the warm notebook against the compute floor (benchmarks/compute_floor.py,
run on the batch's notebooks as benchmarks/grading.py's --engines floor does):
the service's seconds per notebook once warm (with 1 worker, the time from one
hand-in's result to the next's, the first one left out, each counted from its
arrival when it came later) over the floor's seconds per notebook.
It never fails because the machine is slow.
The services it starts run the grader found on its PYTHONPATH (the installed one
when unset), as the batch run does.

    .venv/bin/python benchmarks/service.py [--course tiny|real] [--rush 24]
        [--minutes 0] [--workers 1,2] [--no-kill]

--course real --rush 200 --minutes 5 is the deadline rush of a class.
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
from testsupport.compute_floor import floor_run  # noqa: E402
from testsupport.course import assignments, nbgrader_env, released_course  # noqa: E402
from testsupport.gradebook import gradebook_rows, gradebook_scores, sqlite_url  # noqa: E402
from testsupport.hand_in import hand_in  # noqa: E402
from testsupport.service import start_service, stop_service, wait_until_final  # noqa: E402
from testsupport.synthetic_batch import rush_hand_ins  # noqa: E402
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course,  # noqa: E402
                                     released)

KINDS = ("correct", "partial", "untouched")
DEADLINE = 1800  # seconds a run may take at most, and 15 more per hand-in, before it is
PER_HAND_IN = 15  # reported as unfinished


class TinyRush:
    """The rush on the tiny course: students r000, r001, ... each hand in `tiny` once."""

    name = "the tiny course"
    instructor = "source"  # its nbgrader source directory

    @staticmethod
    def make(folder):
        return make_course(folder)

    @staticmethod
    def assignments(course):
        return [ASSIGNMENT]

    @staticmethod
    def hand_ins(course, rush):
        """[(student, assignment, {file: bytes})], the kinds in turn."""
        release = released(course)
        made = {"correct": correct(release),
                "partial": correct(release, double_answer="def double(x):\n    return x\n"),
                "untouched": release}
        return [(f"r{n:03d}", ASSIGNMENT,
                 {NOTEBOOK + ".ipynb": json.dumps(made[KINDS[n % len(KINDS)]]).encode("utf-8")})
                for n in range(rush)]


class RealRush:
    """The rush on the course's own assignments (every folder of solutions/), released as
    `make release` does: students s001, s002, ... each hand in every assignment in turn,
    correct, partial and untouched (empty) by student."""

    name = "the course's assignments"
    instructor = "solutions"

    @staticmethod
    def make(folder):
        return released_course(folder)

    @staticmethod
    def assignments(course):
        return list(assignments(course))

    @staticmethod
    def hand_ins(course, rush):
        return [(student, assignment, files) for student, assignment, files, _ in
                rush_hand_ins(course, list(assignments(course)), rush)]


COURSES = {"tiny": TinyRush, "real": RealRush}


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
    """Each of `handed` [(student, assignment, files)] into the store, evenly over `minutes`."""
    spacing = minutes * 60 / max(1, len(handed) - 1) if minutes else 0.0
    start = time.monotonic()
    for n, (student, assignment, files) in enumerate(handed):
        delay = start + n * spacing - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        store.hand_in(student, assignment, files, "benchmark")


def warm_seconds(graded):
    """Seconds per notebook of a warm service with 1 worker: the time from one hand-in's
    result to the next's (from the next's arrival when it came later), the first left out;
    None for fewer than two."""
    graded = sorted(graded, key=lambda j: j.graded)
    steps = [(job.graded - max(job.arrived, before.graded)).total_seconds()
             for before, job in zip(graded, graded[1:])]
    return statistics.mean(steps) if steps else None


def all_scores(course, names):
    """{(assignment, student): {grade_id: auto_score}} of the course's own gradebook."""
    return {(assignment, student): scores for assignment in names
            for student, scores in gradebook_scores(course, assignment).items()}


def service_run(folder, rush_course, workers, rush, minutes, kill=False):
    """One rush into a warm service; returns its figures."""
    course = os.path.join(folder, f"service-{workers}{'-kill' if kill else ''}")
    rush_course.make(course)
    handed = rush_course.hand_ins(course, rush)
    names = rush_course.assignments(course)
    store = course_store(os.path.join(course, "course-data"))
    log_path = os.path.join(folder, os.path.basename(course) + ".log")
    with open(log_path, "wb") as log:
        service = start_service(course, "--workers", str(workers), log=log)
        deadline = time.monotonic() + DEADLINE + PER_HAND_IN * rush
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
    twice = 0
    for assignment in names:
        rows = gradebook_rows(sqlite_url(course), assignment)
        twice += sum(1 for _, count in rows["submissions"] if count > 1)
    figures.update(course=course, graded=len(graded), drain=drain,
                   p50=percentile(latencies, 0.5) if latencies else float("nan"),
                   p95=percentile(latencies, 0.95) if latencies else float("nan"),
                   lost=rush - len(graded), twice=twice,
                   again=sum(1 for j in graded if j.attempts > 1),
                   warm_notebook=warm_seconds(graded) if workers == 1 and not kill else None,
                   scores=all_scores(course, names))
    if len(graded) < rush:
        with open(log_path, errors="replace") as log:
            figures["log"] = log.read()[-3000:]
    return figures


def batch_run(folder, rush_course, rush):
    """`python -m grader autograde ASSIGNMENT --jobs 1` on the same notebooks, once per
    assignment, then the compute floor on them; (seconds, scores, floor)."""
    course = os.path.join(folder, "batch")
    rush_course.make(course)
    handed = rush_course.hand_ins(course, rush)
    for student, assignment, files in handed:
        hand_in(course, student, assignment, files)
    names = sorted({assignment for _, assignment, _ in handed})
    seconds = 0.0
    for assignment in names:
        start = time.monotonic()
        finished = subprocess.run([sys.executable, "-m", "grader", "autograde", assignment,
                                   "--jobs", "1", "--course", course], env=nbgrader_env(),
                                  capture_output=True, text=True,
                                  timeout=DEADLINE + PER_HAND_IN * rush)
        seconds += time.monotonic() - start
        if finished.returncode:
            raise SystemExit(f"batch autograde of {assignment} failed: "
                             f"{(finished.stdout + finished.stderr)[-2000:]}")
    scores = all_scores(course, names)
    floor = {"seconds": 0.0, "notebooks": 0, "differ": []}
    for assignment in names:
        took, notebooks, points = floor_run(course, assignment, instructor=rush_course.instructor)
        floor["seconds"] += took
        floor["notebooks"] += notebooks
        floor["differ"] += [f"{assignment}/{student}" for (a, student), grades in scores.items()
                            if a == assignment and abs(sum(g or 0.0 for g in grades.values())
                                                       - points.get(student, 0.0)) > 1e-9]
    return seconds, scores, floor


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--course", choices=sorted(COURSES), default="tiny",
                        help="tiny (the tiny course) or real (the course's own assignments)")
    parser.add_argument("--rush", type=int, default=24, help="hand-ins in the rush (24)")
    parser.add_argument("--minutes", type=float, default=0.0,
                        help="spread the rush over this many minutes (0: a burst)")
    parser.add_argument("--workers", default="1,2", help="numbers of workers (1,2)")
    parser.add_argument("--no-kill", action="store_true", help="skip the kill -9 run")
    args = parser.parse_args()
    if args.rush < 1:
        raise SystemExit("--rush takes a number of hand-ins, 1 or more")
    rush_course = COURSES[args.course]
    with tempfile.TemporaryDirectory(prefix="service-benchmark-") as folder:
        batch_seconds, batch_scores, floor = batch_run(folder, rush_course, args.rush)
        print(f"rush of {args.rush} hand-ins of {rush_course.name} "
              f"({'a burst' if not args.minutes else f'over {args.minutes:g} min'}); "
              f"batch autograde --jobs 1: {batch_seconds:.1f} s; machine: {os.cpu_count()} "
              f"cores, load average {os.getloadavg()[0]:.1f}", flush=True)
        print(f"{'run':<22}{'graded':>7}{'p50 s':>8}{'p95 s':>8}{'drain s':>9}"
              f"{'per min':>9}{'batch/drain':>12}{'lost':>6}{'twice':>6}{'again':>6}"
              f"{'differ':>7}", flush=True)
        runs = [(f"{w} worker(s)", int(w), False) for w in args.workers.split(",")]
        if not args.no_kill:
            runs.append(("2 workers, kill -9", 2, True))
        warm = None
        for name, workers, kill in runs:
            figures = service_run(folder, rush_course, workers, args.rush, args.minutes, kill)
            differ = sum(1 for key, scores in batch_scores.items()
                         if figures["scores"].get(key) != scores)
            print(f"{name:<22}{figures['graded']:>7}{figures['p50']:>8.2f}{figures['p95']:>8.2f}"
                  f"{figures['drain']:>9.1f}{60 * figures['graded'] / figures['drain']:>9.0f}"
                  f"{batch_seconds / figures['drain']:>12.2f}{figures['lost']:>6}"
                  f"{figures['twice']:>6}{figures['again']:>6}{differ:>7}", flush=True)
            if "log" in figures:
                print(f"  not every hand-in was graded; the end of the service's log:\n"
                      f"{figures['log']}")
            if figures["warm_notebook"] is not None:
                warm = figures["warm_notebook"]
        per_floor = floor["seconds"] / max(1, floor["notebooks"])
        print(f"compute floor: {per_floor:.2f} s per notebook ({floor['notebooks']} notebooks, "
              f"benchmarks/compute_floor.py)")
        if floor["differ"]:
            print(f"  the floor's checks earned other points than the batch for "
                  f"{', '.join(floor['differ'][:5])}")
        if warm is None:
            print("warm notebook: needs a rush of 2 or more with 1 worker (--workers 1)")
        else:
            print(f"warm notebook (1 worker, steady state): {warm:.2f} s; "
                  f"warm notebook / compute floor = {warm / per_floor:.2f}")


if __name__ == "__main__":
    main()
