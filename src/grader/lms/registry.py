"""Which LMSs the grader knows: one instance of each platform class, by name.

Adding an LMS is adding its class (a `Platform` subclass in its own module) to
`PLATFORMS`; the command line's --lms choices, collecting, feedback and the
exports follow.
"""

from .base import GradebookCsv, Platform
from .canvas import Canvas
from .moodle import Moodle

PLATFORMS: dict[str, Platform] = {p.name: p for p in (Canvas(), Moodle())}
DEFAULT_PLATFORM = Canvas.name  # the LMS a download is read as when none is named
GRADE_PUSH_PLATFORM = PLATFORMS[Canvas.name]  # the LMS grades are pushed to (canvas_api.py)
GRADE_PUSH_COMMAND = f"{GRADE_PUSH_PLATFORM.name}-push"  # its command (push/commands.py)


class UnknownPlatform(LookupError):
    """An LMS the grader does not know; the message names the known ones."""


def known_platforms() -> str:
    """The known LMSs' names, as a message lists them: "canvas or moodle"."""
    names = list(PLATFORMS)
    return " or ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} or {names[-1]}"


def platform(name: str) -> Platform:
    """The LMS named `name` (as --lms writes it); UnknownPlatform naming the known ones."""
    try:
        return PLATFORMS[name]
    except KeyError:
        raise UnknownPlatform(f"LMS={name!r}: the LMS is {known_platforms()}") from None


def gradebooks() -> list[tuple[Platform, GradebookCsv]]:
    """Each LMS with a gradebook CSV (the roster reads its export, the exports write its
    import), with its columns."""
    return [(p, p.gradebook) for p in PLATFORMS.values() if p.gradebook is not None]
