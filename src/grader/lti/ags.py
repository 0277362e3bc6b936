"""AGS, the platform's gradebook as the tool sees it: one line item per assignment, its
results read, one student's score posted.

    GET  lineitems?resource_id=A&tag=T     the line items of the course (found before
    POST lineitems                          any is made: never a duplicate column)
    GET  {lineitem}/results                 every student's result
    POST {lineitem}/scores                  one student's score

A line item is the course's when its ``resourceId`` is the assignment's name
and its ``tag`` is ``grader``; one made by hand with the same resourceId or
tag (and label) is taken, not duplicated. Scores are posted with
``scoreGiven``, ``scoreMaximum``, ``activityProgress: Completed`` and
``gradingProgress: FullyGraded``, and the feedback summary as ``comment``.
"""

import datetime
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..lms import LmsRequestFailed, LmsSubmission
from .services import LINEITEM_SCOPE, RESULT_SCOPE, SCORE_SCOPE, PlatformServices

LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
RESULTS_TYPE = "application/vnd.ims.lis.v2.resultcontainer+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
TAG = "grader"  # the tag of the line items the course makes


@dataclass(frozen=True)
class LineItem:
    """One column of the platform's gradebook."""

    url: str  # its id, a URL
    label: str
    score_maximum: float
    resource_id: str
    tag: str


def line_item_of(raw: dict[str, Any]) -> LineItem:
    return LineItem(str(raw.get("id", "")), str(raw.get("label", "")),
                    float(raw.get("scoreMaximum") or 0), str(raw.get("resourceId") or ""),
                    str(raw.get("tag") or ""))


def under(url: str, path: str) -> str:
    """`url` with `path` added to its path, its query kept (Canvas's line item URLs)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path))


def line_items(services: PlatformServices, **query: str) -> list[LineItem]:
    """The course's line items that match `query` (resource_id, tag), every page."""
    url, found = services.registration.lineitems_url, []
    params: dict[str, str] | None = dict(query)
    while url:
        answer = services.call("the line items", "GET", url, (LINEITEM_SCOPE,), LINEITEMS_TYPE,
                               params=params)
        found += [line_item_of(raw) for raw in answer.json()]
        url, params = answer.links.get("next", {}).get("url", ""), None
    return found


def find_line_item(services: PlatformServices, assignment: str
                   ) -> tuple[LineItem | None, str]:
    """(the line item of `assignment` or None, how it was found): by resourceId, then by
    tag and label; more than one is an error to fix in the platform."""
    for how, query, keep in (
            ("its resourceId", {"resource_id": assignment}, lambda i: i.resource_id == assignment),
            ("its tag and label", {"tag": TAG}, lambda i: i.tag == TAG and i.label == assignment)):
        matching = [i for i in line_items(services, **query) if keep(i)]
        if len(matching) > 1:
            raise LmsRequestFailed(f"{len(matching)} line items of the platform's course "
                                   f"match {assignment!r} by {how} "
                                   f"({', '.join(i.url for i in matching)}): delete the extra "
                                   f"columns in the platform's gradebook")
        if matching:
            return matching[0], how
    return None, "none yet"


def find_or_create_line_item(services: PlatformServices, assignment: str,
                             score_maximum: float) -> tuple[LineItem, str]:
    """(the line item of `assignment`, how it was found): looked for first
    (`find_line_item`), made only when none is found."""
    found, how = find_line_item(services, assignment)
    if found is not None:
        return found, how
    made = services.call(f"the line item of {assignment}", "POST",
                         services.registration.lineitems_url, (LINEITEM_SCOPE,), LINEITEM_TYPE,
                         body={"label": assignment, "scoreMaximum": score_maximum,
                               "resourceId": assignment, "tag": TAG})
    return line_item_of(made.json()), "made now"


def results(services: PlatformServices, item: LineItem, maximum: float
            ) -> dict[str, LmsSubmission]:
    """{LTI user id: LmsSubmission} of every student with a result, in points out of
    `maximum` (the course's), whatever the line item's own maximum."""
    url, held = under(item.url, "/results"), {}
    while url:
        answer = services.call(f"the results of {item.label}", "GET", url, (RESULT_SCOPE,),
                               RESULTS_TYPE)
        for raw in answer.json():
            score, out_of = raw.get("resultScore"), raw.get("resultMaximum")
            if score is not None and out_of:
                score = float(score) * maximum / float(out_of)
            comment = raw.get("comment")
            held[str(raw["userId"])] = LmsSubmission(
                str(raw["userId"]), None if score is None else float(score),
                (comment,) if comment else ())
        url = answer.links.get("next", {}).get("url", "")
    return held


def post_score(services: PlatformServices, item: LineItem, user_id: str, given: float,
               maximum: float, comment: str) -> None:
    """The student's score into `item`: graded fully, the activity completed."""
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
    services.call(f"user {user_id}'s score", "POST", under(item.url, "/scores"),
                  (SCORE_SCOPE,), SCORE_TYPE,
                  body={"userId": user_id, "scoreGiven": given, "scoreMaximum": maximum,
                        "activityProgress": "Completed", "gradingProgress": "FullyGraded",
                        "timestamp": now, "comment": comment})
