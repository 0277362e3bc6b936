"""Each file of an LMS download sorted: an attempt of a student at a notebook, or skipped.

A file's name is read as its LMS writes it (`Platform.read_name`), matched to
one student of the roster (`Platform.roster_key`, `Platform.file_key`) and to a
notebook of the assignment (renamed copies included); of several attempts at
one notebook the latest is kept (the later time, then the larger attachment id).
Every file that is not collected is a `SkippedFile`, with its reason.
"""

import datetime
import difflib
from dataclasses import dataclass
from enum import StrEnum

from ..lms import LmsFileName, Platform, RosterPerson, released_notebook
from .archive import ArchiveEntry


class SkipReason(StrEnum):
    """Why a file of the zip is not collected."""

    NOT_A_NOTEBOOK = "not a notebook"  # not .ipynb, or the copy macOS adds to a zip
    NOT_NAMED = "not named as the LMS names a submission"
    NO_STUDENT = "no single student of the roster"  # unknown, shared, or hidden by the LMS
    OTHER_NOTEBOOK = "not a notebook of the assignment"
    OLDER_ATTEMPT = "an older attempt"
    TWO_PEOPLE = "two of the LMS's people for one student"  # refused: which one is ours?


@dataclass(frozen=True)
class SkippedFile:
    """One file of the zip that is not collected, and why."""

    entry: str  # its name in the zip
    reason: SkipReason
    why: str  # the reason in words, naming what was looked for

    @property
    def line(self) -> str:
        return f"skipped {self.entry!r}: {self.why}"


@dataclass(frozen=True)
class Attempt:
    """One notebook file of the zip matched to a student and a released notebook."""

    student_id: str
    notebook: str  # the released notebook's file name, "parameters.ipynb"
    name: LmsFileName
    entry: ArchiveEntry

    @property
    def order(self) -> tuple[datetime.datetime, int, str]:
        """Later attempts sort later: the entry's time, then the attachment id."""
        return (self.entry.modified, int(self.name.attachment_id or 0), self.entry.name)


def roster_matches(lms: Platform, roster: list[RosterPerson]) -> dict[str, list[str]]:
    """{the LMS's key of a student: [student ids]} of everyone on the roster."""
    matches: dict[str, list[str]] = {}
    for person in roster:
        key = lms.roster_key(person)
        if key:
            matches.setdefault(key, []).append(person.id)
    return matches


def student_for(lms: Platform, name: LmsFileName, matches: dict[str, list[str]],
                by_name: dict[str, list[RosterPerson]]) -> tuple[str | None, str | None]:
    """(student id, None) for the file `name`, or (None, why no student matches), naming
    the closest names on the roster (`by_name`, from `roster_names`) where none matches."""
    hidden = lms.unmatchable(name)
    if hidden:
        return None, hidden
    found = matches.get(lms.file_key(name), [])
    what = lms.who(name)
    if len(found) > 1:
        return None, f"{what} matches {len(found)} students of the roster ({', '.join(found)})"
    if not found:
        return None, (f"{what} is not on the roster (no student with that {lms.matched_by})"
                      + closest_on_roster(lms, name, by_name))
    return found[0], None


def roster_names(lms: Platform, roster: list[RosterPerson]) -> dict[str, list[RosterPerson]]:
    """{a student's name as `lms` writes it in its file names, compared: [the students]}."""
    names: dict[str, list[RosterPerson]] = {}
    for person in roster:
        key = lms.name_key(person)
        if key:
            names.setdefault(key, []).append(person)
    return names


def closest_on_roster(lms: Platform, name: LmsFileName,
                      by_name: dict[str, list[RosterPerson]]) -> str:
    """"; the closest on the roster: ..." naming the students whose names are nearest to the
    name in the file `name` (difflib, at most three), with their ids; "" for none."""
    close = difflib.get_close_matches(lms.file_name_key(name), list(by_name), n=3, cutoff=0.6)
    people = [person for key in close for person in by_name[key]]
    if not people:
        return ""
    return "; the closest on the roster: " + ", ".join(lms.on_roster(p) for p in people)


def attempt_or_skipped(lms: Platform, entry: ArchiveEntry, notebooks: list[str],
                       matches: dict[str, list[str]], by_name: dict[str, list[RosterPerson]],
                       assignment: str) -> Attempt | SkippedFile:
    """The Attempt the file `entry` is, or the SkippedFile saying why it is not collected."""
    def skipped(reason: SkipReason, why: str) -> SkippedFile:
        return SkippedFile(entry.name, reason, why)

    if entry.name.startswith("__MACOSX/"):
        return skipped(SkipReason.NOT_A_NOTEBOOK,
                       "a copy macOS adds to a zip it makes, not a submission")
    if not entry.name.endswith(".ipynb"):
        return skipped(SkipReason.NOT_A_NOTEBOOK, "not a notebook (.ipynb)")
    name = lms.read_name(entry.name)
    if name is None:
        return skipped(SkipReason.NOT_NAMED,
                       f"not named as {lms.title} names a submission ({lms.layout})")
    student, why = student_for(lms, name, matches, by_name)
    if student is None:
        return skipped(SkipReason.NO_STUDENT, why or "")
    notebook = released_notebook(name.file_name, notebooks)
    if notebook is None:
        return skipped(SkipReason.OTHER_NOTEBOOK,
                       f"{name.file_name!r} is not a notebook of {assignment} "
                       f"(its notebooks: {', '.join(notebooks)})")
    return Attempt(student, notebook, name, entry)


def sort_entries(lms: Platform, entries: list[ArchiveEntry], notebooks: list[str],
                 roster: list[RosterPerson], assignment: str
                 ) -> tuple[list[Attempt], list[SkippedFile]]:
    """([Attempt], [SkippedFile]) for every file of the zip."""
    matches, by_name = roster_matches(lms, roster), roster_names(lms, roster)
    attempts, skipped = [], []
    for entry in entries:
        sorted_as = attempt_or_skipped(lms, entry, notebooks, matches, by_name, assignment)
        (attempts if isinstance(sorted_as, Attempt) else skipped).append(sorted_as)
    return attempts, skipped


def one_person_each(lms: Platform, attempts: list[Attempt], roster: list[RosterPerson],
                    recorded: dict[str, str]) -> tuple[list[Attempt], list[SkippedFile]]:
    """([the attempts of students who are one person of the LMS], [SkippedFile for the
    others]). Files are matched by what their names say (for Moodle, the full name); a
    student is one person when every file matched to them carries one LMS id (a Moodle
    participant id, a Canvas user id), the one `recorded` {student: LMS id} by an earlier
    collect of the assignment where there is one. Two people of the LMS are never folded
    into one student: where the roster's lms_user_id of the student is one of their ids,
    that one is the student and the other's files are skipped; else none is collected."""
    ids: dict[str, set[str]] = {}
    for attempt in attempts:
        ids.setdefault(attempt.student_id, set()).add(attempt.name.lms_user_id)
    on_roster = {person.id: person.lms_user_id for person in roster}
    kept, skipped = [], []
    for attempt in attempts:
        student, its_id = attempt.student_id, attempt.name.lms_user_id
        found = ids[student] | ({recorded[student]} if recorded.get(student) else set())
        vouched = on_roster.get(student) if on_roster.get(student) in ids[student] else None
        if vouched == its_id or (vouched is None and len(found) == 1):
            kept.append(attempt)
        elif vouched is not None:
            skipped.append(SkippedFile(
                attempt.entry.name, SkipReason.NO_STUDENT,
                f"{lms.who(attempt.name)}, {lms.id_name} {its_id}, is not {student} of the "
                f"roster, whose lms_user_id is {vouched}"))
        else:
            before = recorded.get(student)
            earlier = (f" (an earlier collect took {lms.id_name} {before})"
                       if before in found else "")
            shown = ", ".join(sorted(found, key=lambda i: (len(i), i)))
            skipped.append(SkippedFile(
                attempt.entry.name, SkipReason.TWO_PEOPLE,
                f"{len(found)} people of {lms.title} ({lms.id_name}s {shown}){earlier} match "
                f"{student} of the roster by {lms.matched_by}: none of their files is "
                f"collected; write the {lms.id_name} of the one who is {student} in the "
                f"roster's lms_user_id column (make roster), or take the other's files out of "
                f"the zip, and collect again"))
    return kept, skipped


def latest_attempts(attempts: list[Attempt]) -> tuple[list[Attempt], list[SkippedFile]]:
    """([the latest Attempt of each student and notebook], [SkippedFile for the others])."""
    by_notebook: dict[tuple[str, str], list[Attempt]] = {}
    for attempt in attempts:
        by_notebook.setdefault((attempt.student_id, attempt.notebook), []).append(attempt)
    latest, skipped = [], []
    for _, group in sorted(by_notebook.items()):
        group.sort(key=lambda a: a.order)
        latest.append(group[-1])
        for older in group[:-1]:
            skipped.append(SkippedFile(older.entry.name, SkipReason.OLDER_ATTEMPT,
                                       f"an older attempt of {older.notebook} by "
                                       f"{older.student_id} ({group[-1].entry.name!r} is later)"))
    return latest, skipped
