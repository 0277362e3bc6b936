"""The platform's learners (NRPS) into the course's roster, nothing the instructor wrote lost.

A learner is the roster's student whose ``lti_user_id`` is their NRPS user id,
else the one with their e-mail address, else the one with their institution's
id (``sis_user_id``, NRPS's ``lis_person_sourcedid``). A student found gets
their LTI user id and, where the roster has none, the platform's name and
e-mail address; what the roster already holds is never overwritten. A learner
the roster lacks is added under the part of their e-mail address before the
``@`` (their login at most institutions), or listed, not added, where that is
no id or another student's. An e-mail address two learners of the platform give
names neither: each is skipped, and reported, unless their LTI user id (or
institution's id) finds them. Students of the roster the platform does not list
are kept, and counted.
"""

import enum
from collections import Counter
from dataclasses import dataclass, replace

from nbgrader.api import Gradebook

from ..reports import Person, read_roster, roster_path, write_roster
from ..safe_text import one_line, student_id_problem
from ..settings import Settings
from .nrps import Member


class RosterOutcome(enum.Enum):
    """What the platform's roster did to one learner."""

    ADDED = "added"  # a new student of the roster
    UPDATED = "updated"  # a student found, who got the fields `RosterChange.detail` names
    UNCHANGED = "unchanged"  # a student found, who had everything already
    NOT_TAKEN = "not taken"  # neither added nor updated; `RosterChange.detail` says why
    SKIPPED = "skipped"  # an e-mail address another learner gives too; `detail` says so


@dataclass(frozen=True)
class RosterChange:
    """What the platform's roster did to one learner: added, updated, unchanged, not taken."""

    student: str  # the course's id ('-' where none could be given)
    lti_user_id: str
    outcome: RosterOutcome
    detail: str = ""  # the fields filled (UPDATED), or why not (NOT_TAKEN, SKIPPED)

    def outcome_text(self) -> str:
        """What happened, as `lti-roster` prints it."""
        if self.outcome is RosterOutcome.UPDATED:
            return f"updated: {self.detail}"
        if self.outcome in (RosterOutcome.NOT_TAKEN, RosterOutcome.SKIPPED):
            return self.detail
        return self.outcome.value


def matching_student(people: dict[str, Person], member: Member, by_email: bool = True
                     ) -> Person | None:
    for same in (lambda p: p.lti_user_id == member.user_id,
                 lambda p: by_email and bool(member.email)
                 and p.email.lower() == member.email.lower(),
                 lambda p: bool(member.sourcedid) and p.sis_user_id == member.sourcedid):
        found = [p for p in people.values() if same(p)]
        if len(found) == 1:
            return found[0]
    return None


def with_member(person: Person, member: Member) -> tuple[Person, list[str]]:
    """(`person` with what the platform adds, the names of the fields it filled)."""
    offered = {"lti_user_id": member.user_id, "first_name": one_line(member.given_name),
               "last_name": one_line(member.family_name), "email": one_line(member.email)}
    filled = {k: v for k, v in offered.items() if v and not getattr(person, k)}
    return replace(person, **filled), list(filled)


def new_student_id(member: Member, people: dict[str, Person]) -> tuple[str, str]:
    """(the id a new learner is added under, or '' and why none: 'not added: ...')."""
    login = member.email.partition("@")[0].strip().lower() if "@" in member.email else ""
    if not login:
        return "", "not added: the platform gives no e-mail address to name them by"
    problem = student_id_problem(login)
    if problem:
        return "", f"not added: {login!r} from their e-mail address is no id ({problem})"
    if login in people:
        return "", (f"not added: {login!r} is another student's id (give the roster's "
                    f"student lti_user_id {member.user_id} if it is them)")
    return login, ""


def sync_roster(settings: Settings, members: list[Member], dry_run: bool = False
                ) -> tuple[list[RosterChange], int]:
    """(a change per learner, how many roster students the platform does not list) of the
    learners `members` taken into the roster and gradebook (with `dry_run`, only said)."""
    people = {p.id: p for p in read_roster(roster_path(settings))}
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in gb.students:
            people.setdefault(student.id, Person(student.id, student.first_name or "",
                                                 student.last_name or "", student.email or "",
                                                 lms_user_id=student.lms_user_id or ""))
    changes, written, listed = [], [], set()
    addresses = Counter(m.email.lower() for m in members if m.email)
    for member in members:
        shared = addresses[member.email.lower()] > 1
        person = matching_student(people, member, by_email=not shared)
        if person is None and shared:
            others = ", ".join(m.user_id for m in members if m.user_id != member.user_id
                               and m.email.lower() == member.email.lower())
            changes.append(RosterChange("-", member.user_id, RosterOutcome.SKIPPED, (
                f"skipped: another learner of the platform ({others}) has the same e-mail "
                f"address ({one_line(member.email)}), which so names neither; give the "
                f"roster's student their lti_user_id if it is them")))
            continue
        if person is None:
            student, why = new_student_id(member, people)
            if not student:
                changes.append(RosterChange("-", member.user_id, RosterOutcome.NOT_TAKEN, why))
                continue
            person, _ = with_member(Person(student), member)
            change = RosterChange(person.id, member.user_id, RosterOutcome.ADDED)
        elif person.lti_user_id and person.lti_user_id != member.user_id:
            changes.append(RosterChange(
                person.id, member.user_id, RosterOutcome.NOT_TAKEN,
                f"not updated: the roster gives them LTI user id {person.lti_user_id}; "
                f"correct lti_user_id in the roster if they are the same"))
            listed.add(person.id)
            continue
        else:
            person, filled = with_member(person, member)
            change = (RosterChange(person.id, member.user_id, RosterOutcome.UPDATED,
                                   ", ".join(filled)) if filled
                      else RosterChange(person.id, member.user_id, RosterOutcome.UNCHANGED))
        people[person.id] = person
        listed.add(person.id)
        changes.append(change)
        if change.outcome is not RosterOutcome.UNCHANGED:
            written.append(person)
    if written and not dry_run:
        with Gradebook(settings.db_url, settings.course_id) as gb:
            for person in written:
                gb.update_or_create_student(person.id, **{
                    k: getattr(person, k) for k in ("first_name", "last_name", "email")
                    if getattr(person, k)})
        write_roster(settings, list(people.values()))
    return changes, len(set(people) - listed)
