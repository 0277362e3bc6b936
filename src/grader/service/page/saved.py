"""A student's saved notebooks read from their home folder, defensively: only regular files
they own, inside their home, no link followed, at most a notebook's size. The page reads
them as root, or the home reader (home_reader.py) as the student."""

import os
import pwd
import stat

from ...plan import MAX_NOTEBOOK_BYTES


def saved_notebooks(user: str, assignment: str, notebooks: list[str]
                    ) -> tuple[dict[str, bytes], list[str]]:
    """(the student's saved notebooks of `assignment` from their home folder, why each
    that is there could not be taken): only regular files they own, inside their home, no
    link followed, at most a notebook's size. A hub user with no account on this machine
    has no home to read: (nothing, why)."""
    try:
        account = pwd.getpwnam(user)
    except KeyError:
        return {}, [f"your hub account, {user}, has no account on this machine, so no home "
                    f"folder to read a saved notebook from (ask your instructor)"]
    home, uid = os.path.realpath(account.pw_dir), account.pw_uid
    found, problems = {}, []
    for name in notebooks:
        path = os.path.join(home, assignment, f"{name}.ipynb")
        shown = f"~/{assignment}/{name}.ipynb"
        if os.path.lexists(path) and os.path.realpath(path) != path:
            problems.append(f"{shown} is a link (or lies in a linked folder), not your own file")
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            continue
        except OSError as error:
            problems.append(f"{shown} cannot be read ({error.strerror})")
            continue
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                problems.append(f"{shown} is a folder, not a notebook file")
            elif not stat.S_ISREG(info.st_mode):
                problems.append(f"{shown} is not a regular file")
            elif info.st_uid != uid:
                problems.append(f"{shown} is not yours (another account owns it)")
            else:
                with os.fdopen(fd, "rb") as handle:
                    fd = -1  # closed with the handle
                    found[f"{name}.ipynb"] = handle.read(MAX_NOTEBOOK_BYTES + 1)
        finally:
            if fd >= 0:
                os.close(fd)
    return found, problems
