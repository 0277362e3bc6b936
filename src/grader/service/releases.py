"""A new release noticed while the service runs.

The service grades each assignment as it was released when the service
prepared it. `ReleaseWatch` looks at the instructor's notebooks (their names,
sizes and modification times: cheap) every few seconds; when they differ from
what was prepared, it asks the gradebook whether that is a release (what
`make release` records, `check_released`) and names the assignments to prepare
again: a new release of one graded now, or an assignment released since the
service started. Notebooks edited and not released yet are said once and the
release being graded stays.
"""

import os
import sys
import time

from ..recording import check_released
from ..settings import CourseError, Settings

RELEASE_CHECK_SECONDS = 3.0  # how often the instructor's notebooks are looked at

Marks = tuple[tuple[str, int, int], ...]  # (file name, size, mtime in ns) of each notebook


def notebook_marks(settings: Settings, assignment: str) -> Marks:
    """What tells one state of an assignment's instructor notebooks from another."""
    folder = os.path.join(settings.source, assignment)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return ()
    marks = []
    for entry in entries:
        if entry.name.endswith(".ipynb") and not entry.name.startswith("."):
            try:
                stat = entry.stat()
            except OSError:
                continue
            marks.append((entry.name, stat.st_size, stat.st_mtime_ns))
    return tuple(marks)


class ReleaseWatch:
    """Which assignments were released anew since the service prepared them."""

    def __init__(self, settings: Settings, interval: float = RELEASE_CHECK_SECONDS):
        self.settings, self.interval = settings, interval
        self.prepared: dict[str, Marks] = {}  # the marks each assignment was prepared at
        self.said: dict[str, Marks] = {}  # unreleased edits already reported
        self.next_look = time.monotonic() + interval

    def preparing(self, assignment: str) -> None:
        """`assignment` is prepared now, from its notebooks as they are (marks taken before
        they are read, so that an edit meanwhile is seen at the next look)."""
        self.prepared[assignment] = notebook_marks(self.settings, assignment)

    def not_prepared(self, assignment: str) -> None:
        """`assignment` could not be prepared (not released, say; already reported): looked
        at again each time, so that its release is seen even with its notebooks unchanged."""
        self.prepared.pop(assignment, None)
        self.said[assignment] = notebook_marks(self.settings, assignment)

    def due(self) -> bool:
        """Whether it is time to look again (every `interval` seconds)."""
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + self.interval
        return True

    def released_anew(self) -> list[str]:
        """The assignments whose notebooks changed since they were prepared, or which were
        not prepared, and whose release the gradebook records as they are now."""
        found = []
        for name in self.settings.assignments:
            marks = notebook_marks(self.settings, name)
            if not marks or marks == self.prepared.get(name):
                continue
            try:
                check_released(self.settings, name, self.settings.instructor_notebooks(name))
            except CourseError as error:
                if self.said.get(name) != marks:
                    self.said[name] = marks
                    kept = ("the release graded so far stays" if name in self.prepared
                            else "it is not graded until it is released")
                    print(f"serve: {name} changed and is not released ({error}); {kept}",
                          file=sys.stderr, flush=True)
                continue
            found.append(name)
        return found
