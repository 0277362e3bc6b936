"""The warm template: one sandbox that has started Python, torch and the course package, and
forks a fresh sandbox for each student (see ``runner.py``)."""

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

from ..files import tagged_folder
from ..settings import Limits, SandboxError
from .channel import CellOutcome, CellStatus, death_reason
from .kernel import START_TIMEOUT, Kernel

FILE_CHUNK = 4 << 20  # bytes of a student's file per request to a fork
# for the grader's own tests only: each fork's first N check forks fail as on a busy machine
FAILING_FORKS_VARIABLE = "GRADER_TEST_FAILING_CHECK_FORKS"


class Template:
    """A warm sandbox that forks a fresh sandbox for each student (see ``runner.py``).

    It is a Kernel like any other that has imported torch and the course
    package and run the instructor's leading set-up cells (`prelude`, pairs of
    kind and source); then it only forks. Each fork enters namespaces of its
    own with empty writable folders and no capabilities, gets the student's
    files and runs the rest of the notebook: a fresh sandbox without the
    seconds of start-up. `outcomes` are the prelude's cell outcomes, the same
    for every student. Raises SandboxError when this machine cannot fork such
    sandboxes (the caller then starts a Kernel per student).
    """

    def __init__(self, limits: Limits, package: str, package_copy: str | None = None,
                 prelude: tuple = ()):
        self.limits, self.package, self.package_copy = limits, package, package_copy
        self.prelude = tuple(prelude)
        self.kernel = Kernel(tagged_folder("work"), limits, package, package_copy,
                             control=True)
        self.kernel.start(None)
        self.outcomes, self.exits, self.count = [], {}, 0
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
            ForkedKernel(self, self.kernel.workdir, limits).start(None).kill()  # forks work here
        except BaseException:
            self.close()
            raise

    def alive(self) -> bool:
        return self.kernel.process is not None and self.kernel.process.poll() is None

    def close(self) -> None:
        self.kernel.kill()
        shutil.rmtree(self.kernel.workdir, ignore_errors=True)

    def receive(self, timeout: float) -> tuple:
        """Read one message from the template or a fork: (message, sender's pid), or (None, None)."""
        if self.kernel.control_socket is None:
            raise SandboxError("the template is gone")
        readable, _, _ = select.select([self.control], [], [], max(timeout, 0))
        if not readable:
            return None, None
        try:
            data, ancillary, _, _ = self.control.recvmsg(1 << 12, socket.CMSG_SPACE(12))
        except OSError:
            data, ancillary = b"", []
        if not data:
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

    def spawn(self, cpu_seconds: int | None) -> tuple:
        """(number, pid as this process sees it, driver ends of the four pipes) of a new fork."""
        self.count += 1
        number = self.count
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        theirs = (request_read, reply_write, out_write, err_write)
        try:
            socket.send_fds(self.control, [json.dumps(
                {"spawn": number, "cpu_seconds": cpu_seconds or 0,
                 "tmpfs_mib": self.limits.tmpfs_mib,
                 "failing_forks": int(os.environ.get(FAILING_FORKS_VARIABLE) or 0)}).encode()],
                list(theirs))
        except OSError as error:
            for fd in (*theirs, request_write, reply_read, out_read, err_read):
                os.close(fd)
            raise SandboxError(f"the template is gone ({error})") from None
        for fd in theirs:
            os.close(fd)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            message, pid = self.receive(deadline - time.monotonic())
            if message is not None and message.get("spawned") == number and pid:
                return number, pid, (request_write, reply_read, out_read, err_read)
            if message is not None and message.get("exited") == number:
                break
        for fd in (request_write, reply_read, out_read, err_read):
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

    def start(self, cpu_seconds: int | None) -> "ForkedKernel":
        self.memory_events = (self.template.kernel.cgroups.memory_limit_events()
                              if self.template.kernel.cgroups else 0)
        number, pid, fds = self.template.spawn(cpu_seconds)
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
        self.process.kill()  # its namespace's first process: everything in it ends too

    def kill(self) -> None:
        process = self.process
        super().kill()
        if process is not None:
            process.close()

    def _death_reason(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the kernel stopped answering"
        cgroups = self.template.kernel.cgroups
        if cgroups is not None and cgroups.hit_memory_limit(self.memory_events):
            return (f"kernel died (out of memory: the sandbox may use {self.limits.memory_mib} "
                    "MiB in all, its processes together)")
        return death_reason(code, self.limits)
