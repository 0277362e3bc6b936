"""The grade report page: one self-contained HTML file per assignment, reports/<assignment>.html.

A histogram of the scores, each check's pass rate and mean points in the order
the notebook asks them, and the students who need attention (nothing
submitted, a notebook unreadable or failed, late), and each student's extension
and late penalty. The figures are drawn with
matplotlib and embedded as PNG data, so the page loads nothing else and can be
mailed or opened from any folder.
"""

import base64
import html
import io
import os
from typing import Any

from ..files import write_atomically
from ..report_shell import report_page
from ..settings import Settings
from .grades import AssignmentGrades, number
from .roster import Person
from .summary import attention, check_statistics, deadlines, load_records


def _figure_data(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def histogram(scores: list[float], max_score: float) -> str:
    """PNG (base64) of how many students earned each score."""
    import matplotlib  # imports slowly: only when a page is drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 3.2))
    top = max(max_score, max(scores, default=0.0))
    bins = [i - 0.5 for i in range(int(top) + 2)]
    axes.hist(scores, bins=bins, color="#3b6ea5", edgecolor="white")
    axes.set_xlim(-0.5, top + 0.5)
    axes.set_xlabel(f"score (out of {number(max_score)})")
    axes.set_ylabel("students")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.set_title("Scores")
    try:
        return _figure_data(figure)
    finally:
        plt.close(figure)


def check_bars(stats: list[dict[str, Any]]) -> str:
    """PNG (base64): per check, the share of students who passed and the mean points."""
    import matplotlib  # imports slowly: only when a page is drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s["grade_id"] for s in stats]
    height = 0.9 + 0.32 * len(names)
    figure, (rate, mean) = plt.subplots(1, 2, figsize=(9.6, height), sharey=True)
    positions = list(range(len(names)))
    rate.barh(positions, [100 * s["pass_rate"] for s in stats], color="#3b8a5a")
    rate.set_xlim(0, 100)
    rate.set_xlabel("passed (% of students)")
    rate.set_yticks(positions, names)
    rate.invert_yaxis()  # first check at the top, as in the notebook
    mean.barh(positions, [s["max_points"] for s in stats], color="#dddddd", label="points")
    mean.barh(positions, [s["mean"] for s in stats], color="#c77c2e", label="mean earned")
    mean.set_xlabel("points")
    mean.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, fontsize="small")
    rate.set_title("Pass rate per check")
    mean.set_title("Mean points per check")
    try:
        return _figure_data(figure)
    finally:
        plt.close(figure)


REPORT_STYLE = """\
td { overflow-wrap: anywhere; }
td.n { overflow-wrap: normal; }
img { max-width: 100%; height: auto; }
"""

REPORT_BODY = """<p>{overview}</p>
<h2>Scores</h2>
<img alt="histogram of the scores" src="data:image/png;base64,{histogram}">
<h2>Checks, in notebook order</h2>
<img alt="pass rate and mean points per check" src="data:image/png;base64,{bars}">
<table><tr><th scope="col">check</th><th scope="col">points</th><th scope="col">passed</th>
<th scope="col">mean points</th></tr>
{check_rows}
</table>
<h2>Students who need attention ({attention_count})</h2>
{attention}
{deadlines}"""


def render(settings: Settings, people: dict[str, Person], grades: AssignmentGrades) -> str:
    """The page of one assignment (an AssignmentGrades) as HTML text."""
    records = load_records(settings, grades.name)
    students = sorted({r.student for r in records} | set(grades.submissions))
    scores = [grades.submissions[s].score if s in grades.submissions else 0.0 for s in students]
    stats = check_statistics(grades, students)
    needs = attention(people, grades, records)
    late = sum(1 for s in grades.submissions.values() if s.seconds_late > 0)
    mean = sum(scores) / len(scores) if scores else 0.0
    due = f"; due {grades.class_due:%Y-%m-%d %H:%M} UTC" if grades.class_due else ""
    overview = (f"{len(students)} submission(s) of {len(set(people) | set(students))} "
                f"student(s); mean score {mean:.2f} of {number(grades.max_score)}; "
                f"{late} late{due}.")
    check_rows = "\n".join(
        f"<tr><td>{html.escape(s['notebook'])}/{html.escape(s['grade_id'])}</td>"
        f"<td class=n>{number(s['max_points'])}</td>"
        f"<td class=n>{s['passed']}/{s['seen']} ({s['pass_rate']:.0%})</td>"
        f"<td class=n>{s['mean']:.2f}</td></tr>" for s in stats)
    if needs:
        rows = "\n".join(f"<tr><td>{html.escape(student)}</td><td>{html.escape(reason)}</td></tr>"
                         for student, reason in needs)
        attention_html = (f'<table><tr><th scope="col">student</th><th scope="col">why</th></tr>\n'
                          f"{rows}\n</table>")
    else:
        attention_html = "<p>Nobody: every student submitted on time and was graded.</p>"
    due_rows = deadlines(grades)
    deadlines_html = ""
    if due_rows:
        rows = "\n".join(f"<tr><td>{html.escape(student)}</td><td>{html.escape(words)}</td></tr>"
                         for student, words in due_rows)
        deadlines_html = (f"<h3>Late or with an extension ({len(due_rows)})</h3>\n"
                          f"<table><tr><th>student</th><th>due date and penalty</th></tr>\n"
                          f"{rows}\n</table>")
    body = REPORT_BODY.format(overview=html.escape(overview),
                              histogram=histogram(scores, grades.max_score),
                              bars=check_bars(stats), check_rows=check_rows,
                              attention_count=len(needs), attention=attention_html,
                              deadlines=deadlines_html)
    return report_page(f"{grades.name}: grade report", body, REPORT_STYLE)


def write_report_pages(settings: Settings, people: dict[str, Person],
                       grades: list[AssignmentGrades]) -> list[str]:
    """reports/<assignment>.html for each AssignmentGrades in `grades`; returns the paths."""
    paths = []
    for assignment in grades:
        path = os.path.join(settings.reports, assignment.name + ".html")
        write_atomically(path, render(settings, people, assignment))
        paths.append(path)
    return paths
