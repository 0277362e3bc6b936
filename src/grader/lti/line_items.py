"""What the course's AGS pushes left on the platform, kept beside the tool's keys
(course-data/lti/line_items.json): each assignment's line item, and the students whose
score it holds.

A platform's line item can be deleted there (a column of its gradebook removed by hand).
The push then finds none and makes a new, empty one; this record is how it knows that
the line item it made before is gone, and whose grades were on it, so that it sends them
all again instead of only the students it was asked for.
"""

import json
import os
from dataclasses import dataclass

from ..files import write_atomically

RECORD = "line_items.json"


@dataclass(frozen=True)
class SentLineItem:
    """The line item the course's push last wrote an assignment's scores to."""

    url: str
    students: frozenset[str]  # whose score it holds (posted, or found up to date)


class LineItemRecord:
    """The record of the line items in `folder` (the tool's key folder)."""

    def __init__(self, folder: str):
        self.path = os.path.join(folder, RECORD)

    def read(self) -> dict[str, SentLineItem]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                raw = json.load(handle)
            return {name: SentLineItem(str(item["url"]), frozenset(map(str, item["students"])))
                    for name, item in raw.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}  # unreadable: as before any push (nothing is sent twice by it)

    def of(self, assignment: str) -> SentLineItem | None:
        return self.read().get(assignment)

    def keep(self, assignment: str, item: SentLineItem) -> None:
        kept = self.read()
        kept[assignment] = item
        write_atomically(self.path, json.dumps(
            {name: {"url": i.url, "students": sorted(i.students)} for name, i in
             sorted(kept.items())}, indent=1) + "\n")
