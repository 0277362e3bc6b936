"""The warm template: one sandbox that has started Python, torch and the course package, and
forks a fresh sandbox for each student (see ``inside/template_server.py``)."""

import base64
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from ..files import owner_tag, tagged_folder
from ..settings import Limits, SandboxError
from .cgroups import SandboxCgroups
from .channel import CellOutcome, CellStatus, death_reason
from .kernel import START_TIMEOUT, Kernel

FILE_CHUNK = 4 << 20  # bytes of a student's file per request to a fork


class Template:
    """A warm sandbox that forks a fresh sandbox for each student (see ``inside/``).

    It is a Kernel like any other that has imported torch and the course
    package and run the instructor's leading set-up cells (`prelude`, pairs of
    kind and source); then it only forks. Each fork enters namespaces of its
    own with empty writable folders and no capabilities, gets the student's
    files and runs the rest of the notebook: a fresh sandbox without the
    seconds of start-up. `outcomes` are the prelude's cell outcomes, the same
    for every student. Raises SandboxError when this machine cannot fork such
    sandboxes (the caller then starts a Kernel per student).

    One template serves a whole machine: with `channels` above 1 it listens on
    that many control channels, and a grading worker forked from this process
    takes one with `adopt` (its own spawns, its own reports of their ends). Each
    fork is moved into cgroups of the process that asked for it before it runs
    anything (`student_cgroups`), so the memory and process limits are each
    student's own, whatever the template and the other workers' students use.
    """

    def __init__(self, limits: Limits, package: str, package_copy: str | None = None,
                 prelude: Sequence[tuple[str, str]] = (), channels: int = 1):
        self.limits, self.package, self.package_copy = limits, package, package_copy
        self.prelude = tuple(prelude)
        self.kernel = Kernel(tagged_folder("work"), limits, package, package_copy,
                             control=True)
        self.kernel.start(None)
        self.outcomes, self.exits, self.count = [], {}, 0
        self.owner, self.spare, self.pidfd = os.getpid(), [], None
        self._cgroups = self._cgroups_of = None
        try:
            for kind, source in self.prelude:
                outcome = self.kernel.execute(kind, source, limits.timeout)
                if outcome.status not in (CellStatus.OK, CellStatus.ERROR):
                    raise SandboxError(f"a set-up cell did not finish in the template: "
                                       f"{outcome.message}")
                self.outcomes.append(outcome)
            reply, outcome = self.kernel.request({"op": "template"}, START_TIMEOUT)
            if not reply or reply.get("template") is not True:
                raise SandboxError(f"the template did not start: {outcome.message}")
            self.control = self.kernel.control_socket
            self.pidfd = os.pidfd_open(self.kernel.process.pid)
            for number in range(1, channels):
                ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
                try:
                    socket.send_fds(self.control, [json.dumps({"attach": number}).encode()],
                                    [theirs.fileno()])
                finally:
                    theirs.close()
                self.spare.append(ours)
            ForkedKernel(self, self.kernel.workdir, limits).start(None).kill()  # forks work here
        except BaseException:
            self.close()
            raise

    def adopt(self, channel: int) -> None:
        """In a grading worker forked from the process that started the template: use
        control channel `channel` (1 to channels - 1) from now on, and only that one."""
        if not self.has_channel(channel):
            raise SandboxError(f"the template has no control channel {channel}")
        self.control = self.spare[channel - 1]
        for number, other in enumerate(self.spare, 1):
            if number != channel:
                other.close()
        self.spare, self.exits, self.count = [self.control], {}, 0
        self._cgroups = self._cgroups_of = None

    def has_channel(self, channel: int) -> bool:
        """Whether control channel `channel` is there for a grading worker to `adopt`."""
        return 1 <= channel <= len(self.spare)

    def serves(self, channels: int) -> bool:
        """Whether the process that started it can hand `channels` - 1 grading workers a
        control channel of their own (`adopt`); a worker's own template serves it alone."""
        return not self.owned() or len(self.spare) >= channels - 1

    def owned(self) -> bool:
        """Whether this process started the template (and so is the one to stop it)."""
        return self.owner == os.getpid()

    def alive(self) -> bool:
        if self.owned() or self.pidfd is None:
            return self.kernel.process is not None and self.kernel.process.poll() is None
        return not select.select([self.pidfd], [], [], 0)[0]

    def student_cgroups(self) -> SandboxCgroups | None:
        """This process's cgroups for its students' forks (one student at a time), made on
        first use; None where cgroups are not available (the per-process limits hold)."""
        if self._cgroups_of != os.getpid():
            self._cgroups_of = os.getpid()
            groups = SandboxCgroups(self.limits.memory_mib << 20, self.limits.max_processes)
            self._cgroups = groups if groups.create(
                f"grader-{owner_tag()}-{id(self)}") else None
        return self._cgroups

    def close(self) -> None:
        """Stop the template (in the process that started it) or let go of it (elsewhere)."""
        if self._cgroups is not None and self._cgroups_of == os.getpid():
            self._cgroups.remove()
            self._cgroups = None
        for channel in self.spare:
            channel.close()
        self.spare = []
        if not self.owned():
            return
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        self.kernel.kill()
        shutil.rmtree(self.kernel.workdir, ignore_errors=True)

    def receive(self, timeout: float) -> tuple[dict[str, Any] | None, int | None]:
        """Read one message from the template or a fork: (message, sender's pid), or (None, None)."""
        if self.control is None or self.control.fileno() < 0:
            raise SandboxError("the template is gone")
        readable, _, _ = select.select([self.control], [], [], max(timeout, 0))
        if not readable:
            return None, None
        try:
            data, ancillary, _, _ = self.control.recvmsg(1 << 12, socket.CMSG_SPACE(12))
        except OSError:
            data, ancillary = b"", []
        if not data:
            if self.owned():
                self.kernel.kill()
            raise SandboxError("the template is gone")
        pid = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("i", payload[:4])[0]
        message = json.loads(data)
        if "exited" in message:
            self.exits[message["exited"]] = message["status"]
        return message, pid

    def spawn(self, cpu_seconds: int | None, cgroups: SandboxCgroups | None = None
              ) -> tuple[int, int, tuple[int, int, int, int]]:
        """(number, pid as this process sees it, driver ends of the four pipes) of a new fork,
        moved into `cgroups` before it runs anything."""
        self.count += 1
        number = self.count
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        go_read, go_write = os.pipe()
        theirs = (request_read, reply_write, out_write, err_write, go_read)
        ours = (request_write, reply_read, out_read, err_read)
        try:
            socket.send_fds(self.control, [json.dumps(
                {"spawn": number, "cpu_seconds": cpu_seconds or 0,
                 "tmpfs_mib": self.limits.tmpfs_mib, "file_mib": self.limits.file_mib,
                 "max_processes": self.limits.max_processes}).encode()],
                list(theirs))
        except OSError as error:
            for fd in (*theirs, *ours, go_write):
                os.close(fd)
            raise SandboxError(f"the template is gone ({error})") from None
        for fd in theirs:
            os.close(fd)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while time.monotonic() < deadline:
                message, pid = self.receive(deadline - time.monotonic())
                if message is not None and message.get("spawned") == number and pid:
                    if cgroups is not None:
                        cgroups.add(pid)
                    os.write(go_write, b"g")
                    return number, pid, ours
                if message is not None and message.get("exited") == number:
                    break
        except (OSError, SandboxError) as error:
            for fd in ours:
                os.close(fd)
            raise SandboxError(f"the template could not make a sandbox for a student ({error})"
                               ) from None
        finally:
            os.close(go_write)
        for fd in ours:
            os.close(fd)
        raise SandboxError("the template could not make a sandbox for a student "
                           f"(exit status {self.exits.get(number)})")


class Fork:
    """The Popen-like handle of one fork of a Template."""

    def __init__(self, template, number, pid, out_fd, err_fd):
        self.template, self.number, self.pid = template, number, pid
        self.pidfd = os.pidfd_open(pid)
        self.stdout = os.fdopen(out_fd, "rb", buffering=0)
        self.stderr = os.fdopen(err_fd, "rb", buffering=0)

    def poll(self) -> int | None:
        if self.number in self.template.exits:
            return self.template.exits[self.number]
        if select.select([self.pidfd], [], [], 0)[0]:  # it ended: its status is on the way
            try:
                return self.wait(5)
            except subprocess.TimeoutExpired:
                return 128 + signal.SIGKILL
        return None

    def wait(self, timeout: float | None = None) -> int:
        deadline = time.monotonic() + (timeout if timeout is not None else 3600)
        while self.number not in self.template.exits:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(f"sandbox {self.number}", timeout)
            try:
                self.template.receive(min(left, 0.5))
            except SandboxError:
                return 128 + signal.SIGKILL  # the template went with it
        return self.template.exits[self.number]

    def kill(self) -> None:
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        os.close(self.pidfd)


class ForkedKernel(Kernel):
    """A Kernel that is a fresh fork of a Template rather than a new bubblewrap process."""

    def __init__(self, template: Template, workdir: str, limits: Limits):
        super().__init__(workdir, limits, template.package)
        self.template = template
        self.student_groups = None

    def start(self, cpu_seconds: int | None) -> "ForkedKernel":
        self.student_groups = self.template.student_cgroups()
        self.memory_events = (self.student_groups.memory_limit_events()
                              if self.student_groups else 0)
        number, pid, fds = self.template.spawn(cpu_seconds, self.student_groups)
        self.request_write, self.reply_read, out_read, err_read = fds
        try:
            self.process = Fork(self.template, number, pid, out_read, err_read)
        except OSError:
            for fd in fds:
                os.close(fd)
            raise SandboxError("the template's fork ended before it started") from None
        self.buffers = {"reply": b""}
        for fd in (out_read, err_read, self.reply_read, self.request_write):
            os.set_blocking(fd, False)
        ready = self._handshake(START_TIMEOUT)
        if ready.status == CellStatus.OK:
            ready = self._send_files()
        if ready.status != CellStatus.OK:
            self.kill()
            raise SandboxError(f"the sandbox did not start: {ready.message} {ready.stderr[-2000:]}")
        return self

    def _send_files(self):
        """The student's files, copied into the fork's working folder through its channel."""
        for fd, relative in self._open_student_files():
            with os.fdopen(fd, "rb") as handle:
                first = True
                while True:
                    chunk = handle.read(FILE_CHUNK)
                    if not chunk and not first:
                        break
                    reply, outcome = self.request(
                        {"op": "file", "path": relative, "append": not first,
                         "data": base64.b64encode(chunk).decode()}, START_TIMEOUT)
                    if reply is None or reply.get("written") is not True:
                        outcome.status = CellStatus.FAILED
                        outcome.message = (reply or {}).get("error") or outcome.message
                        return outcome
                    first = False
                    if len(chunk) < FILE_CHUNK:
                        break
        return CellOutcome(CellStatus.OK)

    def _kill_processes(self):
        """End the student's PID namespace through its first process, so that the fork's end
        is reported only once every process in it is gone (the fork waits for that first
        process; the kernel ends the others before it); the fork itself where that first
        process cannot be found."""
        inner = self._first_process()
        if inner is not None:
            try:
                os.kill(inner, signal.SIGKILL)
                return
            except ProcessLookupError:
                pass
        self.process.kill()

    def _first_process(self):
        """The pid of the student's first process (the fork's only child), where /proc shows it."""
        pid = self.process.pid
        try:
            with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
                children = handle.read().split()
        except OSError:
            return None
        return int(children[0]) if len(children) == 1 else None

    def kill(self) -> None:
        process = self.process
        super().kill()
        if process is not None:
            process.close()
        if self.student_groups is not None:
            self.student_groups.empty()  # the next student's fork joins them: nothing left

    def _death_reason(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the kernel stopped answering"
        cgroups = self.student_groups
        if cgroups is not None and cgroups.hit_memory_limit(self.memory_events):
            return (f"kernel died (out of memory: the sandbox may use {self.limits.memory_mib} "
                    "MiB in all, its processes together)")
        return death_reason(code, self.limits)
