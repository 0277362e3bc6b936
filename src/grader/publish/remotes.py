"""Whether a git remote is the course's own repository, however it is spelled: the guard of
`make publish-repo` (bundle_repository.py), which must never push the bundle there.

A remote is compared by what it resolves to, not by how it is written, once git's own
rewriting is applied (a remote's name gives its URL; ``url.<base>.insteadOf``):

- an address on another machine, in any of git's spellings (``host:org/repo`` with or
  without ``user@``, ``ssh://``, ``git://``, ``https://``, with or without ``.git``), by its
  host, owner and name (`repository_key`);
- a repository on this machine (a path, relative or not, or a ``file://`` URL) by the real
  path of its git folder, the common one of all its worktrees: this checkout, its
  ``.git``, a worktree of it, a path through a symbolic link or ``..``.

The course's own repository is this checkout's, and that of each of its remotes.
"""

import os
import re
import subprocess
from urllib.parse import unquote, urlsplit

from ..settings.site import repository_key

GIT_SECONDS = 30
SCP_FORM = re.compile(r"(?:[\w.-]+@)?[\w.-]+:(?!//)")  # git's host:path, no scheme
# git's variables that would point its commands at another repository than the one asked about
GIT_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
                 "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES")


def git_output(args: list[str], ceiling: str | None = None) -> str | None:
    """What `git ARGS` prints, stripped; None if it fails. `ceiling`: a folder git must not
    look for a repository above."""
    env = {k: v for k, v in os.environ.items() if k not in GIT_VARIABLES}
    if ceiling is not None:
        env["GIT_CEILING_DIRECTORIES"] = ceiling
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, env=env,
                              timeout=GIT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_url(root: str, remote: str) -> str:
    """`remote` as git reads it in the checkout at `root`: a remote's name gives its URL, and
    url.<base>.insteadOf rewrites it."""
    return git_output(["-C", root, "ls-remote", "--get-url", remote]) or remote


def local_folder(url: str, base: str) -> str | None:
    """The folder a remote on this machine names (a path, relative to `base`, or a file://
    URL), or None for an address on another machine."""
    if url.lower().startswith("file://"):
        parts = urlsplit(url)
        return unquote(parts.path) if parts.hostname in (None, "localhost") else None
    if "://" in url or SCP_FORM.match(url):
        return None
    return os.path.join(base, os.path.expanduser(url))


def repository_folder(path: str, above: bool = False) -> str:
    """The real path of the git folder of the repository at `path`, as git push finds it
    there (a work tree, its .git folder or file, a bare repository, `path`.git), the common
    folder of a worktree's; `path`'s own real path when it is no repository. `above`: the
    repository may be found in a folder above `path`, as for the course's own folder."""
    real = os.path.realpath(path)
    if not os.path.exists(real) and os.path.isdir(real + ".git"):
        real += ".git"
    where = ["--git-dir", real] if os.path.isfile(real) else ["-C", real]
    found = git_output([*where, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                       ceiling=None if above else os.path.dirname(real))
    return os.path.realpath(found) if found else real


def named_remotes(root: str) -> list[tuple[str, str]]:
    """[(name, URL)] of the remotes of the checkout at `root`, fetch and push URLs, as git
    reads them."""
    listed = git_output(["-C", root, "config", "--get-regexp", r"^remote\..*\.(url|pushurl)$"])
    remotes = []
    for line in (listed or "").splitlines():
        key, _, url = line.partition(" ")
        remotes.append((key.split(".", 1)[1].rsplit(".", 1)[0], git_url(root, url)))
    return remotes


def own_repository_push_problem(root: str, remote: str) -> str | None:
    """Why the bundle may not be pushed to `remote` (given from the current folder), or None
    when it is not the course's own repository (module docstring)."""
    url = git_url(root, remote)
    said = f"REMOTE is {remote!r}" + (f" ({url!r})" if url != remote else "")
    local = local_folder(url, os.getcwd())
    if local is not None and repository_folder(local) == repository_folder(root, above=True):
        return (f"{said}, this course's own checkout, which holds solutions/: give a "
                f"separate repository")
    for name, own in named_remotes(root):
        own_local = local_folder(own, root)
        same = (repository_folder(local) == repository_folder(own_local)
                if local is not None and own_local is not None
                else local is None and own_local is None
                and repository_key(url) is not None and repository_key(url) == repository_key(own))
        if same:
            return (f"{said}, this course's own repository (git remote {name!r}: {own!r}), "
                    f"which holds solutions/ and every hidden test: give a separate, public "
                    f"repository (docs/publishing.md)")
    return None
