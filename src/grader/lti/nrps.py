"""NRPS, the platform's class list: the learners of the course, every page.

    GET {context_memberships_url}?role=...#Learner     the members who are learners

Instructors, teaching assistants and members the platform marks Inactive or
Deleted are left out (the platform may ignore the role filter, so each
member's roles are checked here too).
"""

from dataclasses import dataclass
from typing import Any

from .services import MEMBERSHIP_SCOPE, PlatformServices

MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


@dataclass(frozen=True)
class Member:
    """One learner of the platform's course."""

    user_id: str  # the LTI user id, the sub of their launches
    given_name: str
    family_name: str
    email: str
    sourcedid: str  # the institution's id (lis_person_sourcedid), where the platform gives it


def is_learner(raw: dict[str, Any]) -> bool:
    roles = [str(r) for r in raw.get("roles") or []]
    return (raw.get("status", "Active") == "Active"
            and any(r == LEARNER or r.rsplit("#", 1)[-1] == "Learner" for r in roles))


def member_of(raw: dict[str, Any]) -> Member:
    given, family = str(raw.get("given_name") or ""), str(raw.get("family_name") or "")
    if not given and not family and raw.get("name"):
        given, _, family = str(raw["name"]).partition(" ")
    return Member(str(raw["user_id"]), given.strip(), family.strip(),
                  str(raw.get("email") or "").strip(),
                  str(raw.get("lis_person_sourcedid") or "").strip())


def learners(services: PlatformServices) -> list[Member]:
    """The learners of the course, in the platform's order."""
    url = services.registration.memberships_url
    params: dict[str, str] | None = {"role": LEARNER}
    found = []
    while url:
        answer = services.call("the course's members", "GET", url, (MEMBERSHIP_SCOPE,),
                               MEMBERSHIPS_TYPE, params=params)
        found += [member_of(m) for m in answer.json().get("members", []) if is_learner(m)
                  and m.get("user_id")]
        url, params = answer.links.get("next", {}).get("url", ""), None
    return found
