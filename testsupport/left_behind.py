"""What a grader run leaves behind: its cgroups, its temporary folders and files.

`ProcessTree` follows a running grader and records every process id of its tree
(the grader, its workers, their sandboxes) while it runs, so that a test can
ask afterwards which cgroups those processes made. The machine may hold other
graders' groups (other runs, other users): only names that carry one of the
tree's process ids count.
"""

import os
import threading
import time

from grader.sandbox import SandboxCgroups


def children_of(pids):
    """The ids of the running processes whose parent is in `pids`."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent in pids:
            found.add(int(name))
    return found


class ProcessTree:
    """The ids of a process and of every process below it, gathered while it runs, and
    the grader cgroups of those processes seen meanwhile (`seen_cgroups`)."""

    def __init__(self, process):
        self.process, self.pids, self.seen_cgroups = process, {process.pid}, set()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._thread.start()

    def _follow(self):
        while self.process.poll() is None:
            self.pids |= children_of(self.pids)
            self.seen_cgroups.update(grader_cgroups(self.pids))
            time.sleep(0.1)

    def stop(self):
        """The ids gathered, once the process has ended."""
        self._thread.join(timeout=30)
        return self.pids


def grader_cgroups(pids):
    """The grader cgroups (grader-<host>-<pid>-<start>-<id>) of the processes `pids`, in
    this process's own cgroup of each controller (where the grader makes them)."""
    found = []
    for folder in set(SandboxCgroups.own_groups().values()):
        for name in os.listdir(folder):
            parts = name.split("-")
            if (len(parts) == 5 and parts[0] == "grader" and parts[2].isdigit()
                    and int(parts[2]) in pids):
                found.append(os.path.join(folder, name))
    return sorted(found)


def temporary_things(tmpdir, course):
    """The grader's folders in `tmpdir` and the temporary files ('.<name>.<tag>.<random>.tmp')
    anywhere in `course`."""
    found = [os.path.join(tmpdir, n) for n in os.listdir(tmpdir) if n.startswith("grader-")]
    for folder, _, names in os.walk(course):
        found += [os.path.join(folder, n) for n in names
                  if n.startswith(".") and n.endswith(".tmp")]
    return sorted(found)


def left_behind(tree, tmpdir, course):
    """Everything a finished grader run (followed by `tree`) left: [] when nothing."""
    return grader_cgroups(tree.stop()) + temporary_things(tmpdir, course)


def processes_with_environment(entry):
    """The ids of the running processes (other than this one) whose environment holds
    `entry` ('NAME=value'): a grader started with a TMPDIR of its own, its workers and
    their bubblewrap sandboxes (bwrap keeps the environment it was started with; what
    runs inside it dies with it). Reading another process's environment takes root, as
    the sandbox's cgroups do."""
    wanted = entry.encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environment = handle.read().split(b"\0")
            with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if wanted in environment and state != "Z":
            found.append(int(name))
    return sorted(found)


def command_names(pids):
    """{pid: command name} of the processes `pids` that still run."""
    names = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8") as handle:
                names[pid] = handle.read().strip()
        except OSError:
            continue
    return names


def still_running(entry, patience=30.0):
    """{pid: command name} of the processes with `entry` in their environment, once none
    is left or `patience` seconds have passed (a killed process's children get their
    SIGKILL from the kernel a moment later: they are waited for, never counted early)."""
    deadline = time.monotonic() + patience
    while True:
        left = command_names(processes_with_environment(entry))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)
