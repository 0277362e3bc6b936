"""Where grades are pushed to Canvas: its site, the course, the token, how an assignment is found.

Each setting is a trait of `CanvasPush` (``c.CanvasPush.url = ...`` in
nbgrader_config.py) or, for the three a person sets per machine, an
environment variable, which wins: ``CANVAS_URL`` (the site,
``https://canvas.example.edu``), ``CANVAS_COURSE`` (the course's id, the number
in ``/courses/1234``) and ``CANVAS_TOKEN_FILE`` (a file holding an access token
that the instructor made in Canvas, Account, Settings, *New Access Token*).

The token file is refused unless only its owner, the user pushing, can read
it; the token itself is kept out of every message, log and repr.
"""

import csv
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field

from traitlets import Dict, Float, Integer, Unicode
from traitlets.config import Config, Configurable

ENVIRONMENT = {"url": "CANVAS_URL", "course": "CANVAS_COURSE", "token_file": "CANVAS_TOKEN_FILE",
               "gradebook_export": "CANVAS_GRADEBOOK_EXPORT"}


GRADE_PUSH_DOCS = "docs/canvas.md"  # the instructor's page about the push


class LmsSetupError(Exception):
    """A setting of the push is missing or wrong: the instructor's to fix."""


class CanvasPush(Configurable):
    """Where `make canvas-push` sends grades (or CANVAS_URL, CANVAS_COURSE, CANVAS_TOKEN_FILE)."""

    url = Unicode("", help="the Canvas site, https://canvas.example.edu (or CANVAS_URL)"
                  ).tag(config=True)
    course = Unicode("", help="the Canvas course's id, the number in its address "
                     "/courses/1234 (or CANVAS_COURSE)").tag(config=True)
    token_file = Unicode("", help="a file holding the instructor's Canvas access token, "
                         "readable by its owner only (or CANVAS_TOKEN_FILE)").tag(config=True)
    assignment_ids = Dict(key_trait=Unicode(), value_trait=Integer(),
                          help="{assignment: Canvas assignment id} where the names differ"
                          ).tag(config=True)
    gradebook_export = Unicode("", help="Canvas's gradebook export, whose header gives each "
                               "assignment's id, 'parameters (901)' (or "
                               "CANVAS_GRADEBOOK_EXPORT)").tag(config=True)
    retries = Integer(4, min=0, help="retries of a request Canvas answers 429 or 5xx"
                      ).tag(config=True)
    backoff_seconds = Float(1.0, min=0.0, help="the first wait before a retry, doubled each "
                            "time").tag(config=True)


@dataclass(frozen=True)
class CanvasConnection:
    """What the push needs to reach one Canvas course; the token never shown."""

    url: str
    course: int
    token: str = field(repr=False)
    assignment_ids: dict[str, int] = field(default_factory=dict)
    gradebook_export: str = ""
    retries: int = 4
    backoff_seconds: float = 1.0


def read_token(path: str) -> str:
    """The token held in the file `path`; LmsSetupError unless it is a file of this user's that
    only its owner can read, holding one line."""
    try:
        status = os.stat(path)
    except OSError as error:
        raise LmsSetupError(f"the Canvas token file {path} cannot be read: "
                            f"{error.strerror}") from None
    if not stat.S_ISREG(status.st_mode):
        raise LmsSetupError(f"the Canvas token file {path} is not a file")
    if status.st_mode & 0o077:
        raise LmsSetupError(f"the Canvas token file {path} can be read by others (mode "
                            f"{stat.S_IMODE(status.st_mode):o}): chmod 600 {path}, and make a "
                            f"new token in Canvas if anyone may have read it")
    if hasattr(os, "getuid") and status.st_uid != os.getuid():
        raise LmsSetupError(f"the Canvas token file {path} belongs to another user")
    with open(path, encoding="utf-8") as handle:
        token = handle.read().strip()
    if not token or "\n" in token:
        raise LmsSetupError(f"the Canvas token file {path} must hold the token alone, on one "
                            f"line")
    return token


def connection_from(config: Config, environ: Mapping[str, str] = os.environ
                    ) -> CanvasConnection:
    """The connection from `config` (c.CanvasPush) and the environment, which wins;
    LmsSetupError naming what is missing."""
    settings = CanvasPush(config=config)
    values = {name: (environ.get(variable) or getattr(settings, name)).strip()
              for name, variable in ENVIRONMENT.items()}
    missing = [f"{ENVIRONMENT[n]} (or c.CanvasPush.{n} in nbgrader_config.py)"
               for n in ("url", "course", "token_file") if not values[n]]
    if missing:
        raise LmsSetupError("to push grades to Canvas, set " + ", ".join(missing))
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", values["url"]):
        raise LmsSetupError(f"CANVAS_URL {values['url']!r} is not a web address "
                            f"(https://canvas.example.edu)")
    if not values["course"].isdigit():
        raise LmsSetupError(f"CANVAS_COURSE {values['course']!r} is not a course id: the "
                            f"number in the course's address, /courses/1234")
    return CanvasConnection(values["url"].rstrip("/"), int(values["course"]),
                            read_token(values["token_file"]), dict(settings.assignment_ids),
                            values["gradebook_export"], settings.retries,
                            settings.backoff_seconds)


def exported_assignment_id(path: str, assignment: str) -> int | None:
    """The id Canvas's gradebook export at `path` gives `assignment` in its header
    (``parameters (901)``), or None where no column names it."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise LmsSetupError(f"Canvas's gradebook export {path} cannot be read: {error}"
                            ) from None
    column = re.compile(re.escape(assignment) + r" \(([0-9]+)\)")
    ids = [int(m.group(1)) for m in map(column.fullmatch, (h.strip() for h in header)) if m]
    if len(ids) > 1:
        raise LmsSetupError(f"{path}: {len(ids)} columns name {assignment!r} "
                            f"({', '.join(map(str, ids))}): say which in "
                            f"c.CanvasPush.assignment_ids")
    return ids[0] if ids else None
