"""How fast a class is graded: stock nbgrader, one worker, two, Dask; SQLite or PostgreSQL.

Generates a batch of submissions for each assignment (correct, partial, empty,
crashing and unreadable notebooks in turn; see testsupport.synthetic_batch) and grades
it with stock ``nbgrader autograde`` (--engines stock, for comparison) and with
``python -m grader autograde`` at each number of workers into each kind of
gradebook, each run in a fresh course folder whose gradebook holds the released
assignments (releasing is not timed). With postgresql it starts its own temporary
PostgreSQL server, as the tests do. It prints seconds per submission, the ratio to
stock nbgrader, the speed-up over one worker and a projection for 1,000 notebooks
on a 16-core machine, checks that every run of the course's grader recorded the
same grades, and never fails because the machine is slow.

    .venv/bin/python benchmarks/grading.py [--students 20] [--jobs 1,2]
        [--assignments parameters,logits-to-text] [--backends sqlite[,postgresql]]
        [--engines stock,local,dask] [--dask-workers 2]

--students is per assignment: the default batch is 2 x 20 = 40 submissions.
--engines dask also grades the batch (into the first backend's kind of
gradebook) through a Dask cluster started here on 127.0.0.1: a `dask
scheduler` and `dask worker --nthreads 1 --nworkers N`, which the grader
reaches with --scheduler; it prints the peak resident memory of each worker
process and of the largest sandbox process each one reaped.
"""

import argparse
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # testsupport
sys.path.insert(0, os.path.join(ROOT, "src"))

from testsupport.course import nbgrader_env  # noqa: E402
from testsupport.gradebook import gradebook_rows, sqlite_url  # noqa: E402
from testsupport.postgres import TemporaryPostgres  # noqa: E402
from testsupport.synthetic_batch import KINDS, make_course, student_ids, write_batch  # noqa: E402

PROJECTED_NOTEBOOKS = 1000
PROJECTED_CORES = 16
PROJECTED_MACHINES = 4


def run(command, course, db_url, **extra_env):
    """(wall seconds, exit status, output tail) of one command run in ``course``."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=course, env=nbgrader_env(db_url, **extra_env),
                            capture_output=True, text=True)
    seconds = time.perf_counter() - start
    return seconds, result.returncode, (result.stdout + result.stderr)[-3000:]


def prepare(course, assignments, students, db_url):
    """A course folder with the batch handed in and the assignments released into db_url."""
    make_course(ROOT, course, assignments[0], students)
    for assignment in assignments[1:]:
        write_batch(course, assignment, students)
    for assignment in assignments:
        _, code, tail = run([sys.executable, "-m", "nbgrader", "generate_assignment",
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20, help="submissions per assignment")
    parser.add_argument("--assignments", default="parameters,logits-to-text")
    parser.add_argument("--jobs", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--backends", default="sqlite", help="sqlite, postgresql or both")
    parser.add_argument("--engines", default="stock,local,dask",
                        help="stock (nbgrader's own autograde, unsandboxed), local (--jobs on "
                             "this machine), dask (a local Dask cluster), comma-separated")
    parser.add_argument("--dask-workers", type=int, default=2,
                        help="worker processes of the local Dask cluster")
    args = parser.parse_args()
    engines = args.engines.split(",")
    assignments = args.assignments.split(",")
    jobs_list = [int(j) for j in args.jobs.split(",")]
    backends = args.backends.split(",")
    students = student_ids(args.students)
    n = len(students) * len(assignments)

    print(f"batch: {n} submissions ({len(students)} of each of {', '.join(assignments)}), "
          f"kinds in turn: {', '.join(KINDS)}")
    print(f"machine: {os.cpu_count()} cores, load average before: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    server = TemporaryPostgres() if "postgresql" in backends else None
    results, dask_results, dask_memory, per_assignment = [], [], {}, {}
    stock_seconds = None
    outcome = {"reference": None, "problems": 0}

    def grade_batch(work, name, backend, engine_args, stock=False):
        """Seconds to grade the batch in a fresh course with `engine_args`; checks the grades.

        With `stock`, nbgrader's own autograde grades it instead (switched back on for
        this course copy), unsandboxed, with one torch thread per kernel as in the sandbox;
        its grades are not compared (it cannot grade every kind of the batch).
        """
        course = os.path.join(work, name)
        if backend == "sqlite":
            db_url = sqlite_url(course)
        else:
            db_url = server.create_database(name.replace("-", "_"))
        prepare(course, assignments, students, db_url)
        seconds, rows = 0.0, {}
        for assignment in assignments:
            command = ([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force",
                        "--Autograde.exporter_class=nbconvert.exporters.NotebookExporter"]
                       if stock else
                       [sys.executable, "-m", "grader", "autograde", assignment, *engine_args])
            took, code, tail = run(command, course, db_url,
                                   **({"OMP_NUM_THREADS": "1"} if stock else {}))
            seconds += took
            per_assignment[name, assignment] = took
            if stock:
                continue
            rows[assignment] = gradebook_rows(db_url, assignment)
            if code != 0:
                outcome["problems"] += 1
                print(f"  {name} {assignment}: exit status {code}\n{tail}")
        print(f"  graded {name}: {seconds:.1f} s (load average now "
              f"{os.getloadavg()[0]:.1f})", flush=True)
        if stock:
            return seconds
        if outcome["reference"] is None:
            outcome["reference"] = rows
        elif rows != outcome["reference"]:
            outcome["problems"] += 1
            print(f"  {name}: the grades DIFFER from those of the first run")
        return seconds

    with tempfile.TemporaryDirectory(prefix="grading-benchmark-") as work:
        if server:
            server.start()
        try:
            if "stock" in engines:
                stock_seconds = grade_batch(work, "stock", backends[0], [], stock=True)
            for backend in backends if "local" in engines else ():
                for jobs in jobs_list:
                    seconds = grade_batch(work, f"{backend}-{jobs}", backend,
                                          ["--jobs", str(jobs)])
                    results.append((backend, jobs, seconds))
            if "dask" in engines:
                folder = os.path.join(work, "dask")
                os.makedirs(folder)
                cluster = LocalDaskCluster(args.dask_workers, folder)
                cluster.start()  # the cluster's start-up is not timed: it serves many runs
                try:
                    seconds = grade_batch(work, f"{backends[0]}-dask{args.dask_workers}",
                                          backends[0], ["--scheduler", cluster.address])
                    dask_memory = cluster.peak_memory()
                finally:
                    cluster.stop()
                dask_results.append((backends[0], seconds))
        finally:
            if server:
                server.stop()

    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    print(f"{'gradebook':<11}{'jobs':>5}{'wall s':>9}{'s/submission':>14}{'speed-up':>10}")
    serial = {b: s for b, j, s in results if j == 1}
    for backend, jobs, seconds in results:
        speedup = serial[backend] / seconds if backend in serial else float("nan")
        print(f"{backend:<11}{jobs:>5}{seconds:>9.1f}{seconds / n:>14.2f}{speedup:>10.2f}")
    for backend, seconds in dask_results:
        speedup = serial[backend] / seconds if backend in serial else float("nan")
        print(f"{backend:<11}{'dask' + str(args.dask_workers):>5}{seconds:>9.1f}"
              f"{seconds / n:>14.2f}{speedup:>10.2f}")
    if stock_seconds:
        print()
        names = ["stock"] + [f"{b}-{j}" for b, j, _ in results] + [
            f"{b}-dask{args.dask_workers}" for b, _ in dask_results]
        print("seconds per notebook, and the ratio to stock nbgrader's on the same notebooks:")
        print(f"{'run':<14}" + "".join(f"{a:>24}" for a in assignments) + f"{'all':>18}")
        for name in names:
            cells = []
            for assignment in assignments:
                took = per_assignment[name, assignment] / len(students)
                ratio = took / (per_assignment["stock", assignment] / len(students))
                cells.append(f"{took:>14.2f} ({ratio:>5.2f}x)")
            total = sum(per_assignment[name, a] for a in assignments)
            cells.append(f"{total / n:>9.2f} ({total / stock_seconds:>5.2f}x)")
            print(f"{name:<14}" + "".join(f"{c:>24}" for c in cells[:-1]) + f"{cells[-1]:>18}")
        print("(each run's wall time, divided by its notebooks: start-up included; stock "
              "nbgrader runs every kernel unsandboxed, one at a time)")
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
    print(f"assumes: each notebook costs what it costs here with one worker (this mix of "
          f"kinds and assignments), each of {PROJECTED_CORES} workers keeps the per-worker "
          f"efficiency measured here with {max(jobs_list)}, and the machine has memory for "
          f"{PROJECTED_CORES} kernels at once (each is capped by the sandbox's memory limit, "
          f"c.SandboxGrader.memory_mib)")
    problems = outcome["problems"]
    print(f"all runs recorded identical grades and exited 0: {'yes' if not problems else 'NO'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
