"""How fast a class is graded: the compute floor, stock nbgrader, one worker, two, Dask.

Generates a class of submissions for each assignment (by default correct,
partial and untouched notebooks in turn, as a class hands them in; --kinds all
adds crashing and unreadable ones; see testsupport.synthetic_batch) and grades
it with stock ``nbgrader autograde`` (--engines stock, for comparison) and with
``python -m grader autograde`` at each number of workers into each kind of
gradebook, each run in a fresh course folder whose gradebook holds the released
assignments (releasing is not timed). With postgresql it starts its own temporary
PostgreSQL server, as the tests do.

--engines floor measures the compute floor on the same class
(benchmarks/compute_floor.py): the same cells and the same checks run once per
notebook in one warm, unsandboxed shell, with no isolation and no recording. It
prints seconds per notebook, the ratio of each run to the floor and to stock
nbgrader, the speed-up over one worker and a projection for 1,000 notebooks on
a 16-core machine, checks that every run of the course's grader recorded the same
grades (and that the floor's checks earned the same points), and never fails
because the machine is slow.

    .venv/bin/python benchmarks/grading.py [--students 30[,100]] [--jobs 1,2]
        [--kinds class|all|correct,partial,...] [--assignments NAME[,NAME...]]
        [--backends sqlite[,postgresql]] [--engines floor,stock,local,dask]
        [--dask-workers 2] [--repeat 1]

--repeat N measures every run N times, in rounds (the floor, stock, each number of
workers, then all again), each time in a fresh course, and keeps the fastest
time of each assignment's command, as timeit keeps its fastest loop: on a
shared machine the fastest run is the one least slowed by others, and the
rounds spread what the machine does meanwhile over every kind of run alike.

For each run of the course's grader it also prints where the time went: the
start-up (to the workers' start), the grading (to the last student's result) and
the wind-down, each with the cores the machine kept busy meanwhile (/proc/stat),
the speed-up of the grading alone, and the most that N cores could give over one
worker whose own run already kept more than one core busy (its wall time over
its processor time shared by N cores).

It ends with the two figures the grader's speed is held to: one worker at most
0.2 times stock nbgrader's seconds per notebook, two workers at least 1.8 times
as fast as one.

--students is per assignment: --students 30 with two assignments is 2 x 30 = 60 notebooks;
several sizes, comma-separated, are measured one after the other.
--engines dask also grades the batch (into the first backend's kind of
gradebook) through a Dask cluster started here on 127.0.0.1: a `dask
scheduler` and `dask worker --nthreads 1 --nworkers N`, which the grader
reaches with --scheduler; it prints the peak resident memory of each worker
process and of the largest sandbox process each one reaped.
"""

import argparse
import collections
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # testsupport
sys.path.insert(0, os.path.join(ROOT, "src"))

from testsupport.compute_floor import floor_run  # noqa: E402
from testsupport.course import assignments as course_assignments, nbgrader_env  # noqa: E402
from testsupport.gradebook import gradebook_rows, sqlite_url  # noqa: E402
from testsupport.postgres import TemporaryPostgres  # noqa: E402
from testsupport.synthetic_batch import CLASS_KINDS, KINDS, student_ids, write_batch_course, \
    write_batch  # noqa: E402

PROJECTED_NOTEBOOKS = 1000
PROJECTED_CORES = 16
PROJECTED_MACHINES = 4


STUDENT_LINE = re.compile(r"^\S+: .* in [0-9.]+ s$")  # the writer's line for one student


def busy_seconds():
    """Processor seconds this machine has spent busy since it started, all cores (user,
    nice, system, interrupts), from /proc/stat: whatever runs, the grader's sandboxes too."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:8]]
    return (sum(fields[:3]) + sum(fields[5:7])) / os.sysconf("SC_CLK_TCK")


def run(command, course, db_url, **extra_env):
    """(wall seconds, exit status, output tail, phases) of one command run in ``course``.

    `phases` splits a run of the course's grader by the lines it prints as it goes,
    as (wall seconds, busy processor seconds of the machine) for each: start-up
    (from the command to "autograding ...", when its workers start), grading (from
    there to the last student's line) and wind-down (to its exit); None for a
    command that prints no such lines. The child's output is unbuffered, so that
    each line is seen when it is written.
    """
    marks = [(time.perf_counter(), busy_seconds())]
    last_student = None
    tail = collections.deque(maxlen=200)
    with subprocess.Popen(command, cwd=course, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=nbgrader_env(db_url, PYTHONUNBUFFERED="1",
                                                      **extra_env)) as child:
        for line in child.stdout:
            tail.append(line)
            if len(marks) == 1 and line.startswith("autograding "):
                marks.append((time.perf_counter(), busy_seconds()))
            elif len(marks) == 2 and STUDENT_LINE.match(line.rstrip("\n")):
                last_student = (time.perf_counter(), busy_seconds())
    marks += [last_student, (time.perf_counter(), busy_seconds())]
    phases = None
    if None not in marks and len(marks) == 4:
        phases = [(after[0] - before[0], after[1] - before[1])
                  for before, after in zip(marks, marks[1:])]
    return marks[-1][0] - marks[0][0], child.returncode, "".join(tail)[-3000:], phases


def prepare(course, assignments, students, db_url, kinds):
    """A course folder with the batch handed in and the assignments released into db_url."""
    write_batch_course(ROOT, course, assignments[0], students, kinds=kinds)
    for assignment in assignments[1:]:
        write_batch(course, assignment, students, kinds=kinds)
    for assignment in assignments:
        _, code, tail, _ = run([sys.executable, "-m", "nbgrader", "generate_assignment",
                                assignment, "--force"], course, db_url)
        if code != 0:
            raise SystemExit(f"releasing {assignment} failed:\n{tail}")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def worker_peak_memory():
    """On a Dask worker: (its own peak RSS, the largest reaped child's peak RSS), in MiB."""
    import resource as worker_resource

    return (worker_resource.getrusage(worker_resource.RUSAGE_SELF).ru_maxrss / 1024,
            worker_resource.getrusage(worker_resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


class LocalDaskCluster:
    """`dask scheduler` and `dask worker --nthreads 1 --nworkers N` on 127.0.0.1."""

    def __init__(self, workers, folder):
        self.workers, self.folder, self.processes = workers, folder, []
        self.address = f"tcp://127.0.0.1:{free_port()}"

    def start(self):
        from distributed import Client

        dask = [sys.executable, "-m", "dask"]
        port = self.address.rpartition(":")[2]
        for command in (dask + ["scheduler", "--host", "127.0.0.1", "--port", port,
                                "--no-dashboard"],
                        dask + ["worker", self.address, "--nthreads", "1", "--nworkers",
                                str(self.workers), "--host", "127.0.0.1", "--no-dashboard",
                                "--local-directory", self.folder]):
            log = open(os.path.join(self.folder, command[3] + ".log"), "w")
            self.processes.append(subprocess.Popen(command, cwd=self.folder, stdout=log,
                                                   stderr=subprocess.STDOUT,
                                                   start_new_session=True))
        with Client(self.address, timeout=300, set_as_default=False) as client:
            client.wait_for_workers(self.workers, timeout=300)

    def peak_memory(self):
        """{worker address: (worker MiB, largest sandbox process MiB)}."""
        from distributed import Client

        with Client(self.address, timeout=60, set_as_default=False) as client:
            return client.run(worker_peak_memory)

    def stop(self):
        for process in reversed(self.processes):
            try:
                os.killpg(process.pid, 9)
            except ProcessLookupError:
                pass
            process.wait()


def print_phases(names, assignments, phases):
    """Where each run of the course's grader spent its time, summed over the assignments
    (each assignment's fastest round); how much faster the grading alone was with more
    workers than with one; and the most that many cores could give over one worker
    that already keeps more than one core busy."""
    summed = {}  # run -> [(wall, busy processor seconds)] of start-up, grading, wind-down
    for name in names:
        if all((name, a) in phases for a in assignments):
            summed[name] = [tuple(map(sum, zip(*(phases[name, a][i] for a in assignments))))
                            for i in range(3)]
    if not summed:
        return
    print()
    print("where each run's time went, all assignments (one command each): wall seconds, "
          "in brackets the cores kept busy on average")
    print(f"{'run':<14}{'start-up':>16}{'grading':>16}{'wind-down':>16}{'all':>16}")
    whole = {name: tuple(map(sum, zip(*parts))) for name, parts in summed.items()}
    for name, parts in summed.items():
        print(f"{name:<14}" + "".join(f"{f'{wall:.1f} ({cpu / wall:.2f})':>16}"
                                      for wall, cpu in parts + [whole[name]]))
    print("(start-up: from the command to its workers' start, the templates and the checks' "
          "set-up ready; grading: to the last student's result; wind-down: to its exit; "
          "busy cores are the whole machine's, from /proc/stat)")
    for name in summed:
        backend, _, jobs = name.rpartition("-")
        one = f"{backend}-1"
        if jobs.isdigit() and jobs != "1" and one in summed:
            wall, cpu = whole[one]
            print(f"{name} against {one}: the grading alone "
                  f"{summed[one][1][0] / summed[name][1][0]:.2f} times as fast; at most "
                  f"{int(jobs) * wall / cpu:.2f} times for the whole run, had its {jobs} cores "
                  f"been busy throughout with {one}'s {cpu:.1f} processor seconds")


def print_goals(names, assignments, per_assignment):
    """The two figures the grader's speed is held to, from this run's wall times: one
    worker's seconds per notebook against stock nbgrader's (goal at most 0.2), and how
    much faster two workers are than one (goal at least 1.8)."""
    def total(name):
        return sum(per_assignment[name, a] for a in assignments)

    for name in names:
        backend, _, jobs = name.rpartition("-")
        if jobs == "1" and "stock" in names:
            print(f"goal: {name} per notebook {total(name) / total('stock'):.3f} times stock "
                  f"nbgrader's (at most 0.2)")
        if jobs == "2" and f"{backend}-1" in names:
            print(f"goal: {name} {total(f'{backend}-1') / total(name):.3f} times as fast as "
                  f"{backend}-1 (at least 1.8)")


def total_points(db_url, assignment):
    """{student: points} of the grader's gradebook rows for one assignment."""
    totals = {}
    for (student, _, _), (score, _) in gradebook_rows(db_url, assignment)["grades"].items():
        totals[student] = totals.get(student, 0.0) + float(score or 0.0)
    return totals


def parse_kinds(text):
    if text == "class":
        return CLASS_KINDS
    if text == "all":
        return KINDS
    kinds = tuple(text.split(","))
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise SystemExit(f"unknown kinds {', '.join(unknown)}; known: {', '.join(KINDS)}")
    return kinds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default="30",
                        help="submissions per assignment; several class sizes comma-separated")
    parser.add_argument("--kinds", default="class",
                        help="class (correct, partial, untouched), all (also crashing and "
                             "unreadable), or kinds comma-separated")
    parser.add_argument("--assignments", default=",".join(course_assignments()),
                        help="comma-separated; by default every folder of solutions/")
    parser.add_argument("--jobs", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--backends", default="sqlite", help="sqlite, postgresql or both")
    parser.add_argument("--engines", default="floor,stock,local",
                        help="floor (the compute floor), stock (nbgrader's own autograde, "
                             "unsandboxed), local (--jobs on this machine), dask (a local Dask "
                             "cluster), comma-separated")
    parser.add_argument("--dask-workers", type=int, default=2,
                        help="worker processes of the local Dask cluster")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of runs; each run's fastest time is kept (default 1)")
    args = parser.parse_args()
    if args.repeat < 1:
        raise SystemExit("--repeat takes a number of rounds, 1 or more")
    problems = 0
    for count in (int(c) for c in args.students.split(",")):
        problems += measure(args, student_ids(count), parse_kinds(args.kinds))
    return 1 if problems else 0


def measure(args, students, kinds):
    """Grade one class every way asked for and print the tables; returns the problems seen."""
    engines = args.engines.split(",")
    assignments = args.assignments.split(",")
    jobs_list = [int(j) for j in args.jobs.split(",")]
    backends = args.backends.split(",")
    n = len(students) * len(assignments)

    print(f"class: {n} notebooks ({len(students)} of each of {', '.join(assignments)}), "
          f"kinds in turn: {', '.join(kinds)}")
    print(f"machine: {os.cpu_count()} cores, load average before: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    server = TemporaryPostgres() if "postgresql" in backends else None
    results, dask_results, dask_memory, per_assignment, phases = [], [], {}, {}, {}
    stock_seconds = floor_seconds = None
    outcome = {"reference": None, "points": None, "problems": 0}

    def course_for(work, name, backend):
        """A fresh course folder (and gradebook) for one run of `name`."""
        folder = f"{name}-{len(os.listdir(work))}"
        course = os.path.join(work, folder)
        db_url = (sqlite_url(course) if backend == "sqlite"
                  else server.create_database(folder.replace("-", "_")))
        prepare(course, assignments, students, db_url, kinds)
        return course, db_url

    def keep_fastest(name, assignment, took, run_phases=None):
        """The fastest time of `name`'s command for `assignment` over the rounds so far,
        and where that run's time went."""
        key = (name, assignment)
        if took <= per_assignment.get(key, took):
            per_assignment[key] = took
            if run_phases:
                phases[key] = run_phases

    def total(name):
        return sum(per_assignment[name, a] for a in assignments)

    def grade_batch(work, name, backend, engine_args, stock=False):
        """Seconds to grade the batch in a fresh course with `engine_args`; checks the grades.

        With `stock`, nbgrader's own autograde grades it instead (switched back on for
        this course copy), unsandboxed, with one torch thread per kernel as in the sandbox;
        its grades are not compared (it cannot grade every kind of the batch).
        """
        course, db_url = course_for(work, name, backend)
        seconds, rows, points = 0.0, {}, {}
        for assignment in assignments:
            command = ([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force",
                        "--Autograde.exporter_class=nbconvert.exporters.NotebookExporter"]
                       if stock else
                       [sys.executable, "-m", "grader", "autograde", assignment, *engine_args])
            took, code, tail, run_phases = run(command, course, db_url,
                                               **({"OMP_NUM_THREADS": "1"} if stock else {}))
            seconds += took
            keep_fastest(name, assignment, took, run_phases)
            if stock:
                continue
            rows[assignment] = gradebook_rows(db_url, assignment)
            points[assignment] = total_points(db_url, assignment)
            if code != 0:
                outcome["problems"] += 1
                print(f"  {name} {assignment}: exit status {code}\n{tail}")
        print(f"  graded {name}: {seconds:.1f} s (load average now "
              f"{os.getloadavg()[0]:.1f})", flush=True)
        if stock:
            return seconds
        if outcome["reference"] is None:
            outcome["reference"], outcome["points"] = rows, points
        elif rows != outcome["reference"]:
            outcome["problems"] += 1
            print(f"  {name}: the gradebook rows DIFFER from those of the first run")
        return seconds

    with tempfile.TemporaryDirectory(prefix="grading-benchmark-") as work:
        if server:
            server.start()
        try:
            floor_points = {}
            for _ in range(args.repeat):
                if "floor" in engines:
                    course, db_url = course_for(work, "floor", backends[0])
                    took_all = 0.0
                    for assignment in assignments:
                        took, _, floor_points[assignment] = floor_run(course, assignment,
                                                                      db_url)
                        keep_fastest("floor", assignment, took)
                        took_all += took
                    floor_seconds = total("floor")
                    print(f"  floor: {took_all:.1f} s", flush=True)
                if "stock" in engines:
                    grade_batch(work, "stock", backends[0], [], stock=True)
                    stock_seconds = total("stock")
                for backend in backends if "local" in engines else ():
                    for jobs in jobs_list:
                        grade_batch(work, f"{backend}-{jobs}", backend, ["--jobs", str(jobs)])
            for backend in backends if "local" in engines else ():
                for jobs in jobs_list:
                    results.append((backend, jobs, total(f"{backend}-{jobs}")))
            if "dask" in engines:
                folder = os.path.join(work, "dask")
                os.makedirs(folder)
                cluster = LocalDaskCluster(args.dask_workers, folder)
                cluster.start()  # the cluster's start-up is not timed: it serves many runs
                try:
                    name = f"{backends[0]}-dask{args.dask_workers}"
                    for _ in range(args.repeat):
                        grade_batch(work, name, backends[0], ["--scheduler", cluster.address,
                                                              "--allow-plaintext-dask"])
                    seconds = total(name)
                    dask_memory = cluster.peak_memory()
                finally:
                    cluster.stop()
                dask_results.append((backends[0], seconds))
        finally:
            if server:
                server.stop()
    if floor_points and outcome["points"] is not None:
        for assignment in assignments:
            graded = outcome["points"][assignment]
            floor_of = floor_points[assignment]
            differ = sorted(s for s in students
                            if abs(graded.get(s, 0.0) - floor_of.get(s, 0.0)) > 1e-9)
            if differ:
                outcome["problems"] += 1
                print(f"  floor {assignment}: its checks earned other points than the grader's "
                      f"for {', '.join(differ[:5])}")

    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.repeat > 1:
        print(f"each figure below is the fastest of {args.repeat} rounds, per assignment")
    print()
    print(f"{'gradebook':<11}{'jobs':>5}{'wall s':>9}{'s/notebook':>12}{'speed-up':>10}")
    serial = {b: s for b, j, s in results if j == 1}
    for backend, jobs, seconds in results:
        speedup = serial[backend] / seconds if backend in serial else float("nan")
        print(f"{backend:<11}{jobs:>5}{seconds:>9.1f}{seconds / n:>12.2f}{speedup:>10.2f}")
    for backend, seconds in dask_results:
        speedup = serial[backend] / seconds if backend in serial else float("nan")
        print(f"{backend:<11}{'dask' + str(args.dask_workers):>5}{seconds:>9.1f}"
              f"{seconds / n:>12.2f}{speedup:>10.2f}")
    names = (["floor"] if floor_seconds else []) + (["stock"] if stock_seconds else []) + [
        f"{b}-{j}" for b, j, _ in results] + [f"{b}-dask{args.dask_workers}"
                                              for b, _ in dask_results]
    print()
    print("seconds per notebook; in brackets the ratio to the floor, then to stock nbgrader:")
    print(f"{'run':<14}" + "".join(f"{a:>26}" for a in assignments) + f"{'all':>26}")
    for name in names:
        cells = []
        for assignment in assignments + ["all"]:
            parts = assignments if assignment == "all" else [assignment]
            took = sum(per_assignment[name, a] for a in parts) / (len(students) * len(parts))
            ratios = []
            for base in ("floor", "stock"):
                if (base, parts[0]) in per_assignment:
                    ratios.append(took * len(students) * len(parts)
                                  / sum(per_assignment[base, a] for a in parts))
            cells.append(f"{took:.2f} (" + ", ".join(f"{r:.2f}x" for r in ratios) + ")")
        print(f"{name:<14}" + "".join(f"{c:>26}" for c in cells))
    print("(each run's wall time divided by its notebooks, start-up included; the floor "
          "excludes its one warm start; stock nbgrader runs every kernel unsandboxed, one "
          "at a time)")
    print_phases(names, assignments, phases)
    print_goals(names, assignments, per_assignment)
    for address, (own, child) in sorted(dask_memory.items()):
        print(f"Dask worker {address}: {own:,.0f} MiB peak resident memory itself, "
              f"{child:,.0f} MiB its largest sandbox process")
    print(f"largest process reaped under the grader: {peak_mib:,.0f} MiB peak resident "
          f"memory (kernels killed by the grader may not be counted)")

    for backend in backends:
        runs = {j: s for b, j, s in results if b == backend}
        if 1 not in runs or max(runs) == 1:
            continue
        most = max(runs)
        per_notebook = runs[1] / n
        # share of a perfect speed-up per worker (above 1 only by noise)
        efficiency = min(1.0, runs[1] / (most * runs[most]))
        minutes = PROJECTED_NOTEBOOKS * per_notebook / (PROJECTED_CORES * efficiency) / 60
        ideal = PROJECTED_NOTEBOOKS * per_notebook / PROJECTED_CORES / 60
        print(f"projection ({backend}): {PROJECTED_NOTEBOOKS:,} notebooks on "
              f"{PROJECTED_CORES} cores with JOBS={PROJECTED_CORES}: about {minutes:.0f} min "
              f"(perfect scaling: {ideal:.0f} min; one worker: "
              f"{PROJECTED_NOTEBOOKS * per_notebook / 60:.0f} min)")
    for backend, seconds in dask_results:
        if backend not in serial:
            continue
        per_notebook = serial[backend] / n
        efficiency = min(1.0, serial[backend] / (args.dask_workers * seconds))
        cores = PROJECTED_MACHINES * PROJECTED_CORES
        minutes = PROJECTED_NOTEBOOKS * per_notebook / (cores * efficiency) / 60
        print(f"projection (Dask, {backend}): {PROJECTED_NOTEBOOKS:,} notebooks on "
              f"{PROJECTED_MACHINES} machines of {PROJECTED_CORES} cores ({cores} workers of "
              f"one thread): about {minutes:.0f} min (perfect scaling: "
              f"{PROJECTED_NOTEBOOKS * per_notebook / cores / 60:.0f} min), if each worker "
              f"keeps the efficiency the {args.dask_workers} local Dask workers had here "
              f"and the one gradebook writer keeps up with {cores} workers (not measured "
              f"here)")
    if results:
        print(f"assumes: each notebook costs what it costs here with one worker (this mix of "
              f"kinds and assignments), each of {PROJECTED_CORES} workers keeps the per-worker "
              f"efficiency measured here with {max(jobs_list)}, and the machine has memory for "
              f"{PROJECTED_CORES} kernels at once (each is capped by the sandbox's memory limit, "
              f"c.SandboxGrader.memory_mib)")
    problems = outcome["problems"]
    print(f"all runs recorded identical gradebook rows and exited 0"
          f"{', and the floor earned the same points' if floor_points else ''}: "
          f"{'yes' if not problems else 'NO'}")
    print()
    return problems


if __name__ == "__main__":
    sys.exit(main())
