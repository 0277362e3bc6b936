"""Which release the service grades against: each assignment's release watched while it runs.

`make release` (nbgrader generate_assignment) rewrites release/<assignment>/ and the
gradebook's record of the assignment; that folder is what is watched. Its
fingerprint (`release_fingerprints`: each file's name, size and modification time) is
looked at every ``c.GradingService.release_check_seconds``; `ReleaseWatch.changed`
says when it differs from the one the service prepared, has stayed the same for
two looks and agrees with the gradebook's record of the release (`release_agrees`,
the check the service starts with): a release still being written is not switched
to halfway. An assignment released after the service started appears as a new entry;
a release/ folder that is gone (nbgrader removes it before writing it again) is no
change. Edits to
solutions/ that are not released change nothing: students are graded against the
checks they were given.
"""

import hashlib
import json
import os
import sys
import threading
from collections.abc import Callable, Mapping

from ...recording import check_released
from ...settings import CourseError, Settings
from ...worker import Assignment, prepare_assignment, read_instructor_notebooks

Fingerprints = dict[str, tuple[tuple[str, int, int], ...]]  # assignment -> its files' stats


def release_digest(instructor_texts: Mapping[str, str]) -> str:
    """The digest of a release as graded: SHA-256 over its instructor notebooks' texts (an
    `Assignment`'s instructor_texts), each hand-in's record of what it was graded against."""
    text = json.dumps(dict(instructor_texts), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def current_release(settings: Settings, assignment: str) -> str:
    """The digest of `assignment` as it would be graded now ("" when it cannot be read)."""
    try:
        return release_digest(read_instructor_notebooks(settings.instructor_notebooks(assignment)))
    except (CourseError, OSError):
        return ""


def release_folder(settings: Settings, assignment: str) -> str:
    """release/<assignment>/ as nbgrader's CourseDirectory places it."""
    from nbgrader.coursedir import CourseDirectory  # imports nbgrader's apps: when needed

    directory = CourseDirectory(config=settings.config, root=settings.root)
    return os.path.join(directory.root, directory.release_directory, assignment)


def folder_fingerprint(folder: str) -> tuple[tuple[str, int, int], ...]:
    """(name, size, modification time in ns) of every file under `folder`, sorted."""
    stats = []
    for parent, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if f != ".ipynb_checkpoints")
        for name in names:
            path = os.path.join(parent, name)
            try:
                info = os.stat(path)
            except FileNotFoundError:  # removed while it is looked at: the next look sees it
                continue
            stats.append((os.path.relpath(path, folder), info.st_size, info.st_mtime_ns))
    return tuple(sorted(stats))


def release_fingerprints(settings: Settings) -> Fingerprints:
    """{assignment: fingerprint of its release/ folder} of every assignment released."""
    fingerprints = {}
    for assignment in settings.assignments:
        folder = release_folder(settings, assignment)
        if os.path.isdir(folder):
            fingerprints[assignment] = folder_fingerprint(folder)
    return fingerprints


def release_agrees(settings: Settings, assignments: list[str]) -> bool:
    """Whether each of `assignments` (still in solutions/) is released whole: solutions/,
    the gradebook's record and release/ agree (recording.check_released)."""
    for assignment in assignments:
        if assignment not in settings.assignments:
            continue
        try:
            check_released(settings, assignment, settings.instructor_notebooks(assignment))
        except CourseError:
            return False
    return True


class ReleaseWatch:
    """The releases the service prepared, and whether they have changed since."""

    def __init__(self, settings: Settings,
                 look: Callable[[Settings], Fingerprints] = release_fingerprints,
                 agrees: Callable[[Settings, list[str]], bool] = release_agrees):
        self.settings, self.look, self.agrees = settings, look, agrees
        self.prepared = self.last = look(settings)
        self.changes: list[str] = []  # the assignments whose release changed, when it did

    def changed(self) -> bool:
        """Whether a release differs from the one prepared, the same as at the last look,
        and agrees with the gradebook."""
        seen = self.look(self.settings)
        settled, self.last = seen == self.last, seen
        # a release/ folder that is gone is being written again (nbgrader removes it first)
        # or was withdrawn: either way the release prepared stays
        self.changes = sorted(name for name in seen if seen[name] != self.prepared.get(name))
        return settled and bool(self.changes) and self.agrees(self.settings, self.changes)

    def taken(self) -> None:
        """The releases as they are now are the ones being prepared now."""
        self.last = self.look(self.settings)
        self.prepared = {**self.prepared, **self.last}


def watch_releases(watch: ReleaseWatch, stop: threading.Event, ending: threading.Event,
                   every: float) -> None:
    """Set `ending` when `stop` is set or a release has changed; looks every `every` s."""
    while not ending.is_set():
        if stop.wait(every) or watch.changed():
            ending.set()


def released_assignments(settings: Settings, before: dict[str, Assignment] | None = None
                         ) -> dict[str, Assignment]:
    """Every assignment as released now, prepared; one not released is reported and left out
    (its hand-ins are refused with the reason), or, if it was prepared `before`, graded as
    it was released then."""
    prepared = {}
    for name in settings.assignments:
        try:
            check_released(settings, name, settings.instructor_notebooks(name))
            prepared[name] = prepare_assignment(settings, name, settings.limits)
        except CourseError as error:
            kept = name in (before or {})
            print(f"serve: {name} is not graded"
                  f"{' against its new release' if kept else ''}: {error}", file=sys.stderr)
            if kept:
                prepared[name] = before[name]
    return prepared
