"""The sandbox's writable folders listed, and its mounts.

A check's calls may write files; if they did, the cells after the check must
not see them, and the driver starts a fresh kernel (the "restart" flag of
``check_forks.py``). `writable_snapshot` lists what is in the writable folders
before and after, cheaply (names, sizes, times), to tell.
"""

import os

_lstat = os.lstat  # kept before any notebook code runs, which could replace them
_listdir = os.listdir

WRITABLE = ("/tmp", "/home", "/dev/shm")  # with the working folder: what a call may change
SNAPSHOT_CAP = 20_000  # entries listed per snapshot; more counts as changed


def writable_snapshot(folders, skip=()):
    """{path: (inode, size, mtime, mode)} of everything below `folders` (links not followed).

    `skip`: read-only folders bound below them (the Python environment where
    it lives below /home or /tmp), which no call can change.
    """
    entries = {}
    for top in folders:
        stack = [top]
        while stack:
            folder = stack.pop()
            try:
                names = _listdir(folder)
            except OSError:
                continue
            for name in names:
                path = os.path.join(folder, name)
                if path in skip:
                    continue
                try:
                    info = _lstat(path)
                except OSError:
                    continue
                entries[path] = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode)
                if len(entries) > SNAPSHOT_CAP:
                    return None
                if (info.st_mode & 0o170000) == 0o040000:
                    stack.append(path)
    return entries


def read_only_mounts():
    """The read-only mount points of this sandbox (its Python environment, the package)."""
    return {point for point, options in mounts() if "ro" in options}


def mounts():
    """[(mount point, options)] of this mount namespace, from /proc/self/mountinfo."""
    import re

    found = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as handle:
        for line in handle:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            found.append((point, fields[5].split(",")))
    return found

