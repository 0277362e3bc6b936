"""A busy machine for the processes a test starts, undone when the test's block ends.

`scarce_cpu` gives them a fraction of one core in all (a cgroup's CPU quota), shared with
a process that forks and reaps children without pause, as other grading running beside a
class would: a machine as busy for them as one where others grade, on two cores or
sixty-four alike, at no cost to the rest of the machine (processes that spin beside them
would take the cores other tests run on). A test shows with it that what it checks does
not depend on how busy the machine is.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time

FORK_AND_REAP = ("import os\n"
                 "while True:\n"
                 "    pid = os.fork()\n"
                 "    if pid == 0:\n"
                 "        os._exit(0)\n"
                 "    os.waitpid(pid, 0)\n")
CGROUP_ROOT = "/sys/fs/cgroup"
PERIOD_US = 100_000


def _cpu_group(name: str) -> tuple[str, str]:
    """(folder of a new cgroup under this process's, the file that sets its quota), with
    the cgroup v1 `cpu` controller or cgroup v2 `cpu.max`; RuntimeError if neither is
    writable here (the tests that use it run as root, as `make test` on CI does)."""
    with open("/proc/self/cgroup", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            parent = os.path.join(CGROUP_ROOT, "cpu", path.lstrip("/"))
            if os.access(parent, os.W_OK):
                return os.path.join(parent, name), "cpu.cfs_quota_us"
        if controllers == "":
            for mount in (CGROUP_ROOT, os.path.join(CGROUP_ROOT, "unified")):
                parent = os.path.join(mount, path.lstrip("/"))
                try:
                    with open(os.path.join(parent, "cgroup.subtree_control")) as handle:
                        delegated = handle.read().split()
                except OSError:
                    continue
                if "cpu" in delegated and os.access(parent, os.W_OK):
                    return os.path.join(parent, name), "cpu.max"
    raise RuntimeError("no writable cgroup with the cpu controller: a test that gives its "
                       "processes a share of a core runs as root (make test on CI does)")


def members(group: str) -> list[int]:
    """The processes in cgroup folder `group`."""
    try:
        with open(os.path.join(group, "cgroup.procs"), encoding="utf-8") as handle:
            return [int(pid) for pid in handle.read().split()]
    except FileNotFoundError:
        return []


@contextlib.contextmanager
def scarce_cpu(share: float = 1.0) -> object:
    """A cgroup whose processes use at most `share` of one core in all, one of them forking
    and reaping children without pause; yields the `preexec_fn` that puts a process the
    test starts (and so all it starts) into it; its `group` is the cgroup's folder. At the
    end every process still in it is killed and the cgroup removed."""
    group, quota_file = _cpu_group(f"scarce-cpu-{os.getpid()}-{time.monotonic_ns()}")
    os.mkdir(group)
    quota = int(share * PERIOD_US)
    with open(os.path.join(group, quota_file), "w", encoding="utf-8") as handle:
        handle.write(f"{quota} {PERIOD_US}" if quota_file == "cpu.max" else str(quota))

    def join():
        with open(os.path.join(group, "cgroup.procs"), "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid()))

    join.group = group
    forker = subprocess.Popen([sys.executable, "-c", FORK_AND_REAP], preexec_fn=join,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        yield join
    finally:
        forker.kill()
        forker.wait()
        for _ in range(50):  # what the test started and left behind, then the group
            for pid in members(group):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            try:
                os.rmdir(group)
                break
            except OSError:
                time.sleep(0.1)
