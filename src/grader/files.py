"""Files written whole or not at all, and what processes that died while working left behind.

Everything temporary the grader makes carries its owner's tag,
'<host>-<pid>-<start>' (the start time of the process, so that a process id
the system has given to another process does not look alive): a temporary file
beside the file it will replace, a run's private work root, a sandbox's working
folder and a sandbox's cgroup. The next run removes what it finds once the
owner is gone: at once when the owner ran on this machine, and after
STALE_SECONDS when it ran on another one (a folder shared between machines),
because that owner may still be at work.
"""

import csv
import io
import os
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence

STALE_SECONDS = 600  # a thing of another machine's process this old is left over


def start_ticks(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks since boot, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19])  # field 22 of stat(5), counted after the command name
    except (OSError, IndexError, ValueError):
        return None


def _host() -> str:
    return "".join(c if c.isalnum() else "_" for c in socket.gethostname()) or "host"


def owner_tag(pid: int | None = None) -> str:
    """'<host>-<pid>-<start>' of process `pid` (this process by default)."""
    pid = os.getpid() if pid is None else pid
    return f"{_host()}-{pid}-{start_ticks(pid)}"


def owner_gone(tag: str) -> bool | None:
    """True when the process `tag` names ran on this machine and no longer runs;
    False when it still runs; None when it is another machine's (only age tells)."""
    host, pid, ticks = (tag.rsplit("-", 2) + ["", ""])[:3]
    if host != _host() or not pid.isdigit():
        return None
    return str(start_ticks(int(pid))) != ticks


def is_left_over(tag: str, path: str) -> bool:
    """Whether `path`, made by the process `tag`, was left by a process that is gone."""
    gone = owner_gone(tag)
    if gone is None:
        try:
            return time.time() - os.lstat(path).st_mtime > STALE_SECONDS
        except OSError:
            return False
    return gone


# --- files written whole ------------------------------------------------------

def csv_text(rows: Sequence[Mapping[str, object]] | Sequence[Sequence[object]],
             fields: list[str] | None = None) -> str:
    """`rows` as CSV text: dicts under a header of `fields`, or lists as they are."""
    text = io.StringIO(newline="")
    if fields:
        writer = csv.DictWriter(text, fields)
        writer.writeheader()
        writer.writerows(rows)
    else:
        csv.writer(text).writerows(rows)
    return text.getvalue()


def _write_temporary(path: str, text: str | bytes) -> str:
    """`text` (or bytes) in a new temporary file beside `path`; its name is
    '.<name>.<owner tag>.<random>.tmp', so that remove_left_over_files knows it."""
    folder, name = os.path.split(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    prefix = f".{name}."
    remove_left_over_files(folder, prefix)
    handle = tempfile.NamedTemporaryFile("wb", delete=False, dir=folder,
                                         prefix=f"{prefix}{owner_tag()}.", suffix=".tmp")
    try:
        with handle:
            handle.write(text if isinstance(text, bytes)
                         else text.encode("utf-8", "backslashreplace"))
        umask = os.umask(0)  # the usual permissions, not a temporary's 0600: the course
        os.umask(umask)  # team reads what the grader writes
        os.chmod(handle.name, 0o666 & ~umask)
    except BaseException:
        os.remove(handle.name)
        raise
    return handle.name


def write_atomically(path: str, text: str | bytes) -> str:
    """`text` (or bytes) into `path` through a temporary file beside it, moved into place when
    complete; returns `path`."""
    temporary = _write_temporary(path, text)
    try:
        os.replace(temporary, path)
    except BaseException:
        os.remove(temporary)
        raise
    return path


class StagedFiles:
    """Files written to temporary names beside their targets, put in place together.

    The writer stages a student's autograded notebooks and report, commits the
    gradebook, then publishes: a failure before the commit discards the
    temporary files, so an error never leaves one behind. What a killed
    writer leaves is removed by the next run (remove_left_over_files).
    """

    def __init__(self):
        self.pending = []  # (temporary path, target path)
        self.removals = []

    def write(self, path: str, text: str) -> None:
        self.pending.append((_write_temporary(path, text), path))

    def remove(self, path: str) -> None:
        self.removals.append(path)

    def publish(self) -> None:
        for temporary, target in self.pending:
            os.replace(temporary, target)
        for path in self.removals:
            if os.path.lexists(path):
                os.remove(path)
        self.pending, self.removals = [], []

    def discard(self) -> None:
        for temporary, _ in self.pending:
            try:
                os.remove(temporary)
            except OSError:
                pass
        self.pending, self.removals = [], []


# --- what dead owners left ------------------------------------------------------

def remove_left_over_files(folder: str, prefix: str = ".") -> int:
    """Remove the temporary files in `folder` that dead writers left; returns how many."""
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        path = os.path.join(folder, name)
        tag = name[:-len(".tmp")].rpartition(".")[0].rpartition(".")[2]
        try:
            if is_left_over(tag, path):
                os.remove(path)
                removed += 1
        except OSError:
            pass
    return removed


def tagged_folder(kind: str, base: str | None = None) -> str:
    """A new folder 'grader-<kind>-<owner tag>-<random>' in `base` (the temporary folder)."""
    return tempfile.mkdtemp(prefix=f"grader-{kind}-{owner_tag()}-", dir=base)


def remove_left_over_folders(base: str | None = None) -> list[str]:
    """Remove the grader's folders in `base` whose owners are gone; returns their paths.

    Only folders of this user (any, for root) named by tagged_folder are touched.
    """
    base = base or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        parts = name.split("-")  # grader, kind, host, pid, start, random
        if len(parts) != 6 or parts[0] != "grader":
            continue
        tag = "-".join(parts[2:5])
        try:
            info = os.lstat(path)
        except OSError:
            continue
        mine = info.st_uid == os.geteuid() or os.geteuid() == 0
        if stat.S_ISDIR(info.st_mode) and mine and is_left_over(tag, path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
