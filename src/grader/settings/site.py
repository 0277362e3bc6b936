"""Where the course is published (``c.CourseSite.url``), and the addresses that must never be.

The published site is `make publish`'s folder, _publish/, served as it is by a
static host: the site, the released notebooks, the students' wheel of the course
package. Its address is the one setting that makes the released notebooks'
first cell install the package off the hub (release_lines.py writes the line):

    c.CourseSite.url = "https://your-org.github.io/gptcourse/"

It must be https, so that what students install cannot be changed on the way;
plain http is accepted on 127.0.0.1 only (a site served on this machine, as the
tests serve it).

The instructor's own repository holds solutions/: an install or launch address
that is this checkout's git remote would make students' notebooks need it
readable by all of them (`own_repository_problems`).
"""

import os
import re
import subprocess
from urllib.parse import urlsplit

from typing import Any

from traitlets import TraitError, Unicode
from traitlets.config import Config, Configurable

LOOPBACK = "127.0.0.1"  # the one host plain http is accepted for


def site_url_problem(url: str) -> str | None:
    """Why `url` cannot be the published site's address, or None when it can (an empty
    address is 'not published', not a problem)."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises ValueError)
    except ValueError as error:
        return f"it is not a web address ({error})"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "it is not a web address: write it as https://HOST/PATH/"
    if parts.scheme == "http" and parts.hostname != LOOPBACK:
        return ("it is plain http, which anyone on the way can change, and students would "
                "install what it serves: use https (http is accepted on 127.0.0.1 only)")
    if parts.username or parts.password:
        return "it holds a user name or password, which every released notebook would show"
    if parts.query or parts.fragment:
        return "it has a ?query or #fragment: give the site's folder only"
    return None


class SiteUrl(Unicode):
    """A published site's address: https, or http on 127.0.0.1 (`site_url_problem`)."""

    def validate(self, obj: Any, value: Any) -> str:  # noqa: D102 (a trait's check)
        text = super().validate(obj, value).strip()
        problem = site_url_problem(text)
        if problem:
            raise TraitError(f"not a published site's address: {problem}")
        return text


class CourseSite(Configurable):
    """Where `make publish`'s _publish/ is served (docs/publishing.md)."""

    url = SiteUrl("", help="the published site's address, where _publish/ is served, e.g. "
                  "https://your-org.github.io/gptcourse/: the released notebooks install the "
                  "course package from there (empty: they cannot install it off the hub)"
                  ).tag(config=True)


def site_url(config: Config | None) -> str:
    """c.CourseSite.url of a loaded configuration, without a trailing slash ('' if unset)."""
    return CourseSite(config=config).url.rstrip("/")


GITHUB_PAGES = re.compile(r"^([^.]+)\.github\.io$")


def repository_key(url: str) -> str | None:
    """'host/owner/repository' of a git remote or of a web address inside a repository
    (https://github.com/o/r/blob/..., git@github.com:o/r.git, github.com:o/r,
    raw.githubusercontent.com/o/r/...), lowercased, or None when `url` names no repository."""
    text = url.strip()
    scp = re.fullmatch(r"(?:[\w.-]+@)?([\w.-]+):(?!//)(.+)", text)  # [git@]github.com:o/r.git
    if scp:
        host, path = scp.group(1), scp.group(2)
    else:
        try:
            parts = urlsplit(text)
        except ValueError:
            return None
        host, path = parts.hostname or "", parts.path
        if not host and parts.scheme in ("", "file"):
            return None  # a local path: no one else reads it
    host = host.lower()
    if host == "raw.githubusercontent.com":
        host = "github.com"
    if GITHUB_PAGES.match(host):
        return None  # a Pages site serves what was deployed to it, not the repository
    segments = [s for s in path.split("/") if s]
    if len(segments) < 2:
        return None
    owner, name = segments[0], re.sub(r"\.git$", "", segments[1])
    return f"{host}/{owner}/{name}".lower()


def own_remotes(root: str) -> list[str]:
    """The URLs of the git remotes of the checkout at `root` (none outside a git checkout)."""
    try:
        found = subprocess.run(["git", "-C", root, "config", "--get-regexp",
                                r"^remote\..*\.(url|pushurl)$"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if found.returncode != 0 or not os.path.isdir(root):
        return []
    return [line.split(None, 1)[1] for line in found.stdout.splitlines() if " " in line]


def own_repository_problems(root: str, addresses: dict[str, str]) -> list[str]:
    """One line for each of `addresses` ({what it is: URL}) that points into this checkout's
    own git remote, which holds solutions/: the reason and the fix."""
    mine = {key: remote for remote in own_remotes(root)
            if (key := repository_key(remote)) is not None}
    problems = []
    for what, url in addresses.items():
        key = repository_key(url) if url else None
        if key in mine:
            problems.append(
                f"{what} is {url!r}, this course's own repository (git remote {mine[key]!r}), "
                f"which holds solutions/ and every hidden test: students' notebooks would need "
                f"it readable by every student. Publish the bundle instead (make publish; "
                f"make publish-repo REMOTE=... for a separate public repository, "
                f"docs/publishing.md) and give its address.")
    return problems
