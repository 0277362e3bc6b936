"""The course's graders as the grading page meets them: who they are, who grades whom (the
split kept in course-data/grading-page/, split_record.py), who may score an answer, and
what is left."""

import grp
import os
import time
import urllib.parse
from collections.abc import Collection

import requests

from ..reports.roster import read_roster, roster_path
from ..settings import CourseError, GradingPage, Settings
from .split import Progress, may_reassign, may_score, progress
from .split_record import Reassignment, graders_for, reassign

MEMBERS_KEPT_S = 60.0  # how long the hub group's members are kept before asked again


class StaffSplit:
    """The settings' graders and the split of each assignment's students among them."""

    def __init__(self, settings: Settings, hub_group: str | None = None) -> None:
        self.settings, self.hub_group = settings, hub_group
        self.page = GradingPage(config=settings.config)
        self._members: tuple[float, list[str]] = (-MEMBERS_KEPT_S, [])

    def graders(self) -> list[str]:
        """The settings' graders, else (as a hub service) the hub group's members."""
        if self.page.graders or not self.hub_group:
            return list(self.page.graders)
        asked, members = self._members
        if time.monotonic() - asked >= MEMBERS_KEPT_S:
            members = hub_group_members(self.hub_group)
            self._members = (time.monotonic(), members)
        return list(members)

    def sections(self) -> dict[str, str] | None:
        """{student: section} from the course's roster, for the split by section."""
        if self.page.split != "section":
            return None
        path = roster_path(self.settings)
        if not os.path.exists(path):
            return {}
        return {person.id: person.section for person in read_roster(path)}

    def split(self, assignment: str, students: Collection[str]) -> dict[str, str]:
        """{student: grader}: the kept split, new students placed and recorded."""
        return graders_for(self.settings.data, assignment, sorted(students), self.page,
                           sections=self.sections())

    def may_score(self, grader: str, student: str, split: dict[str, str]) -> str | None:
        return may_score(grader, student, split, self.page)

    def progress(self, split: dict[str, str], graded: Collection[str]) -> Progress:
        return progress(split, graded)

    def may_reassign(self, user: str) -> bool:
        return may_reassign(user, self.graders(), self.page)

    def reassign(self, assignment: str, students: Collection[str], to_grader: str, by: str
                 ) -> Reassignment:
        """`students` given to `to_grader` at `by`'s word, recorded; refused with a sentence
        when `by` may not move students or `to_grader` is no grader."""
        return reassign(self.settings.data, assignment, students, to_grader, by, self.page,
                        graders=self.graders())


def unix_group_members(group: str) -> list[str] | None:
    """The members of the machine's group `group` (the PAM hub's staff), None if none."""
    try:
        return sorted(grp.getgrnam(group).gr_mem)
    except KeyError:
        return None


def hub_group_members(group: str) -> list[str]:
    """The members of the staff's group `group`: the machine's group of that name where
    there is one (the hub of deploy/jupyterhub_config.py logs in the machine's accounts),
    else the hub's group, asked of the hub's API with the service's own token (its role
    needs the scope read:groups!group=GROUP, deploy/jupyterhub_service.py)."""
    members = unix_group_members(group)
    if members is not None:
        return members
    api, token = os.environ.get("JUPYTERHUB_API_URL"), os.environ.get("JUPYTERHUB_API_TOKEN")
    if not api or not token:
        raise CourseError("no graders: list them as c.GradingPage.graders, or run the page as "
                          "the hub's service (JUPYTERHUB_API_URL and its token are not set)")
    answer = requests.get(f"{api.rstrip('/')}/groups/{urllib.parse.quote(group, safe='')}",
                          headers={"Authorization": f"token {token}"}, timeout=10)
    if answer.status_code != 200:
        raise CourseError(f"the hub did not give the members of its group {group} "
                          f"({answer.status_code}): give the grading page's service the scope "
                          f"read:groups!group={group}, or list c.GradingPage.graders")
    return sorted(answer.json().get("users", []))
