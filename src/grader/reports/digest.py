"""What went out to a student, as one digest: the score, the grader's comments and each
check's message.

The feedback released and the grades pushed remember the digest of what they sent
(the service's store); a grade goes out again, once, when the digest of what the
gradebook and the report part hold now differs: a changed score, an edited comment or a
changed check message alike.
"""

import hashlib
import json
from collections.abc import Mapping

Cell = tuple[str, str]  # (notebook, grade_id)


def feedback_digest(score: float, comments: Mapping[Cell, str],
                    messages: Mapping[Cell, str]) -> str:
    """The SHA-256 (hex) of a student's score (to 1e-9), the grader's comments and each
    check's message, by cell; empty texts count as none."""
    shown = {"score": round(score, 9),
             "comments": sorted([*cell, text] for cell, text in comments.items() if text),
             "messages": sorted([*cell, text] for cell, text in messages.items() if text)}
    return hashlib.sha256(json.dumps(shown, sort_keys=True, ensure_ascii=False)
                          .encode("utf-8")).hexdigest()
