"""A file of every kind a term leaves in a course folder, as the course's commands write
them (the terms wing's tests plant them and check where each one goes).

`TERM_STATE` maps each kind to its path under a course folder with the default layout
(the run-time data in course-data/, the reports in course-data/reports/), for the
assignment `tiny` and the student `alice`. `STUDENT_WORK` are those that hold a
student's work or values; the rest are the grade record and the term's other records.
"""

import os

TERM_STATE = {
    "released solutions": "solutions-released.csv",
    "extensions": "extensions.csv",
    "regrade requests": "regrade-requests.csv",
    "the database's URL": "gradebook-url.txt",
    "gradebook": "course-data/gradebook.db",
    "hand-in": "course-data/submitted/alice/tiny/tiny.ipynb",
    "autograded notebook": "course-data/autograded/alice/tiny/tiny.ipynb",
    "feedback": "course-data/feedback/alice/tiny/tiny.html",
    "service queue": "course-data/service/queue.db",
    "service stored hand-in": "course-data/service/blobs/ab/abcdef0123",
    "service check try": "course-data/service/checks/alice/tiny/tiny.ipynb",
    "regrade record": "course-data/regrades/tiny-20261101T120000000000Z-dry-run.json",
    "explain state": "course-data/explain/tiny.json",
    "LMS file": "course-data/lms/feedback-tiny.zip",
    "LTI record": "course-data/lti/line_items.json",
    "roster": "course-data/roster.csv",
    "grades": "course-data/grades.csv",
    "LMS export": "course-data/exports/canvas.csv",
    "exchange hand-in": "course-data/exchange/tinycourse/inbound/alice+tiny+2026-11-01 "
                        "12:00:00.000000 UTC/tiny.ipynb",
    "summary": "course-data/reports/summary.txt",
    "report page": "course-data/reports/tiny.html",
    "item analysis": "course-data/reports/tiny-items.csv",
    "grade report rows": "course-data/reports/tiny.csv",
    "student's part of the grade report": "course-data/reports/tiny/alice.json",
    "defense sheet": "course-data/reports/defense-tiny/alice.html",
    "defense sheets to print": "course-data/reports/defense-tiny/all.html",
    "similarity table": "course-data/reports/similarity-tiny.csv",
    "similarity page": "course-data/reports/similarity-tiny.html",
    "published bundle": "_publish/solutions/tiny/tiny.ipynb",
    "term archive": "term-archives/tinycourse-20261201T000000Z.tar.gz",
}
STUDENT_WORK = ("hand-in", "autograded notebook", "feedback", "service stored hand-in",
                "service check try", "explain state", "LMS file", "exchange hand-in",
                "grade report rows", "student's part of the grade report", "defense sheet",
                "defense sheets to print", "similarity table", "similarity page")


def plant(course, kinds=tuple(TERM_STATE)):
    """A small file of each of `kinds` in `course`, where none is there yet (a real one, a
    gradebook made by grading, is left as it is); returns {kind: path relative to it}."""
    planted = {}
    for kind in kinds:
        path = os.path.join(course, TERM_STATE[kind])
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(f"{kind} of alice: def double(x): return x + x  # 2026-fall\n")
        planted[kind] = TERM_STATE[kind]
    return planted
