"""The sandbox's cgroups: memory and process limits for a sandbox's processes together."""

import os
import signal
import time

from ..files import owner_gone

CGROUP_ROOT = "/sys/fs/cgroup"


class SandboxCgroups:
    """Memory and process limits for a whole sandbox: the kernel and every process it starts.

    Uses the cgroup v1 `memory` and `pids` controllers where they are mounted
    (as on these course servers), else cgroup v2 where this process's cgroup
    delegates `memory` and `pids`. `available()` says which, or why neither;
    without cgroups only the per-process limits (address space, and the process
    count of the sandbox's user) apply.
    """

    def __init__(self, memory_bytes, max_processes):
        self.memory_bytes, self.max_processes = memory_bytes, max_processes
        self.paths = []

    @staticmethod
    def own_groups() -> dict[str, str]:
        """{controller: folder of this process's cgroup} for the usable controllers."""
        try:
            with open("/proc/self/cgroup", encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return {}
        found = {}
        for line in lines:
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(","):
                folder = os.path.join(CGROUP_ROOT, name, path.lstrip("/"))
                if name in ("memory", "pids") and os.access(folder, os.W_OK):
                    found[name] = folder
            if controllers == "" and "memory" not in found:  # cgroup v2
                for mount in (CGROUP_ROOT, os.path.join(CGROUP_ROOT, "unified")):
                    folder = os.path.join(mount, path.lstrip("/"))
                    try:
                        with open(os.path.join(folder, "cgroup.subtree_control")) as handle:
                            delegated = handle.read().split()
                    except OSError:
                        continue
                    if {"memory", "pids"} <= set(delegated) and os.access(folder, os.W_OK):
                        found = {"v2": folder}
                        break
        return found if ("memory" in found and "pids" in found) or "v2" in found else {}

    @classmethod
    def available(cls) -> tuple[bool, str]:
        """(True, 'cgroup v1 memory and pids') or (False, the reason) on this machine."""
        groups = cls.own_groups()
        if "v2" in groups:
            return True, "cgroup v2 memory and pids"
        if groups:
            return True, "cgroup v1 memory and pids"
        return False, ("no writable cgroup with the memory and pids controllers (run the "
                       "grader as root, or delegate them to its cgroup)")

    def create(self, name: str) -> bool:
        """Make the sandbox's groups; False when cgroups are not available."""
        groups = self.own_groups()
        settings = ({"v2": {"memory.max": self.memory_bytes, "memory.swap.max": 0,
                            "pids.max": self.max_processes}} if "v2" in groups else
                    {"memory": {"memory.limit_in_bytes": self.memory_bytes},
                     "pids": {"pids.max": self.max_processes}})
        try:
            for controller, values in settings.items():
                folder = os.path.join(groups[controller], name)
                os.makedirs(folder, exist_ok=True)
                self.paths.append(folder)
                for key, value in values.items():
                    target = os.path.join(folder, key)
                    if os.path.exists(target):
                        with open(target, "w") as handle:
                            handle.write(str(value))
        except (KeyError, OSError):
            self.remove()
            return False
        return True

    def join(self) -> None:
        """Move the calling process into the groups (run in the child before exec)."""
        for folder in self.paths:
            with open(os.path.join(folder, "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))

    def add(self, pid: int) -> None:
        """Move process `pid` (a template's fresh fork, not yet running anything) into the
        groups."""
        for folder in self.paths:
            with open(os.path.join(folder, "cgroup.procs"), "w") as handle:
                handle.write(str(pid))

    def empty(self, timeout: float = 5.0) -> bool:
        """Kill what is left in the groups and wait until they hold no process; False when
        some process was still there after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = []
            for folder in self.paths:
                try:
                    with open(os.path.join(folder, "cgroup.procs"), encoding="utf-8") as handle:
                        left += [int(x) for x in handle.read().split()]
                except OSError:
                    continue
            if not left:
                return True
            if time.monotonic() >= deadline:
                return False
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.005)

    @classmethod
    def remove_stale(cls) -> list[str]:
        """Remove the groups of graders that are no longer running; returns their folders."""
        removed = []
        for folder in set(cls.own_groups().values()):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                parts = name.split("-")  # grader, host, pid, start, number (see Kernel.start)
                if len(parts) == 5 and parts[0] == "grader" and owner_gone("-".join(parts[1:4])):
                    stale = cls(0, 0)
                    stale.paths = [os.path.join(folder, name)]
                    stale.remove()
                    removed.append(os.path.join(folder, name))
        return removed

    def hit_memory_limit(self, since: int = 0) -> bool:
        """Whether the groups reached their memory limit (more often than `since` times)."""
        return self.memory_limit_events() > since

    def memory_limit_events(self) -> int:
        count = 0
        for folder in self.paths:
            for name in ("memory.failcnt", "memory.events"):
                try:
                    with open(os.path.join(folder, name), encoding="utf-8") as handle:
                        text = handle.read()
                except OSError:
                    continue
                if name == "memory.failcnt" and text.strip().isdigit():
                    count += int(text.strip())
                if name == "memory.events":
                    count += sum(int(line.split()[1]) for line in text.splitlines()
                                 if len(line.split()) == 2 and line.split()[0] in ("oom_kill", "max"))
        return count

    def remove(self) -> None:
        """Kill what is left in the groups and remove them."""
        for folder in self.paths:
            for _ in range(50):
                try:
                    with open(os.path.join(folder, "cgroup.procs"), encoding="utf-8") as handle:
                        pids = [int(x) for x in handle.read().split()]
                except OSError:
                    pids = []
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.paths = []
