"""Item analysis: how each check of an assignment did over the class, as a CSV and a page.

reports/<assignment>-items.csv has one row per check (a graded cell), in
notebook order: its points, how many students handed in, `mean` (the share of
its points the class earned, 0 to 1: its difficulty, 1 being easy), and
`discrimination`, the point-biserial correlation of the check's score with the
rest of each student's total (the other checks' points, so the check does not
correlate with itself): near 1 the students who did well elsewhere earn it,
near 0 it tells them apart no better than chance, below 0 the weaker students
earn it more often, which usually means the check rewards the wrong thing.
The correlation is empty when every student earned the same points on the
check or on the rest (it is not defined then). The last columns are the most
frequent failure message of the check and how many students got it.

reports/<assignment>-items.html draws difficulty against discrimination as
inline SVG (no script, nothing loaded), flags the checks almost everyone passes
or fails and those with negative discrimination, and shows each check's cell.

Scores are read from the gradebook as every report reads them (manual grades
win); the messages from the grader's report parts.
"""

import html
import math
import os
from collections import Counter
from dataclasses import dataclass

import nbformat

from ..files import csv_text, write_atomically
from ..recording import read_student_parts
from ..report_shell import report_page
from ..safe_text import one_line, spreadsheet_safe
from ..settings import Settings
from .grades import AssignmentGrades, Check, number, read_grades

ITEM_FIELDS = ["check", "notebook", "points", "students", "mean", "discrimination", "flags",
               "top_failure", "top_failure_students"]
ALMOST_ALL_PASS = 0.9  # a mean at or above it: almost everyone earns the check
ALMOST_ALL_FAIL = 0.1  # a mean at or below it: almost nobody does


@dataclass(frozen=True)
class Item:
    """One check's figures over the class."""

    check: Check
    students: int
    mean: float  # the share of the check's points earned, 0 to 1
    discrimination: float | None  # None: not defined (no spread in the check or the rest)
    top_failure: str  # the most frequent failure message, "" if nobody failed it
    top_failure_students: int

    @property
    def flags(self) -> list[str]:
        """What an instructor should look at: 'almost all pass', 'almost all fail',
        'negative discrimination'."""
        flags = []
        if self.students and self.mean >= ALMOST_ALL_PASS:
            flags.append("almost all pass")
        elif self.students and self.mean <= ALMOST_ALL_FAIL:
            flags.append("almost all fail")
        if self.discrimination is not None and self.discrimination < 0:
            flags.append("negative discrimination")
        return flags


def correlation(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's correlation of two equally long lists (point-biserial when `xs` takes two
    values); None when either has no spread or there are fewer than two pairs."""
    n = len(xs)
    if n < 2:
        return None
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    sxx = sum((x - mean_x) ** 2 for x in xs)
    syy = sum((y - mean_y) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sxy / math.sqrt(sxx * syy)


def failure_messages(settings: Settings, assignment: str) -> dict[tuple[str, str], Counter]:
    """{(notebook, grade_id): Counter of first lines of the failure messages} from the
    report parts: one count per student who did not earn the check's full points."""
    found: dict[tuple[str, str], Counter] = {}
    for record in read_student_parts(settings.reports, assignment):
        for notebook in record.notebooks:
            for test in notebook.tests:
                if test.points < test.max_points:
                    message = one_line(test.message) or str(test.status)
                    found.setdefault((notebook.notebook, test.grade_id), Counter())[message] += 1
    return found


def item_analysis(grades: AssignmentGrades,
                  messages: dict[tuple[str, str], Counter] | None = None) -> list[Item]:
    """An `Item` per check of `grades`, over the students with a submission in the gradebook."""
    messages = messages or {}
    students = sorted(grades.submissions)
    scores = {s: [grades.submissions[s].points.get((c.notebook, c.grade_id)) or 0.0
                  for c in grades.checks] for s in students}
    totals = {s: sum(points) for s, points in scores.items()}
    items = []
    for index, check in enumerate(grades.checks):
        own = [scores[s][index] for s in students]
        rest = [totals[s] - scores[s][index] for s in students]
        mean = (sum(own) / len(own) / check.max_points) if own and check.max_points else 0.0
        counts = messages.get((check.notebook, check.grade_id), Counter())
        # the most frequent message; of equally frequent ones, the first in sorted order
        top = min(counts.items(), key=lambda kv: (-kv[1], kv[0])) if counts else ("", 0)
        items.append(Item(check, len(students), mean, correlation(own, rest), top[0], top[1]))
    return items


def item_rows(items: list[Item]) -> list[dict[str, str | int]]:
    """The CSV's rows, text as a spreadsheet shows it safely."""
    return [{"check": spreadsheet_safe(item.check.grade_id), "notebook": item.check.notebook,
             "points": number(item.check.max_points), "students": item.students,
             "mean": f"{item.mean:.4f}",
             "discrimination": "" if item.discrimination is None else f"{item.discrimination:.4f}",
             "flags": "; ".join(item.flags),
             "top_failure": spreadsheet_safe(item.top_failure),
             "top_failure_students": item.top_failure_students} for item in items]


def cell_sources(settings: Settings, assignment: str) -> dict[tuple[str, str], str]:
    """{(notebook, grade_id): source} of every graded cell of the instructor's notebooks."""
    sources = {}
    for name, path in settings.instructor_notebooks(assignment).items():
        for cell in nbformat.read(path, as_version=4).cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id:
                sources[(name, grade_id)] = cell.source
    return sources


def anchor(check: Check) -> str:
    """The id of a check's cell on the page."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in f"{check.notebook}-"
                   f"{check.grade_id}")
    return "cell-" + safe


# the chart's frame, in SVG user units: x is the mean (0 to 1), y the discrimination (-1 to 1)
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 400, 70, 20, 20, 50


def _x(mean: float) -> float:
    return LEFT + mean * (WIDTH - LEFT - RIGHT)


def _y(discrimination: float) -> float:
    return TOP + (1 - discrimination) / 2 * (HEIGHT - TOP - BOTTOM)


def chart(items: list[Item]) -> str:
    """Inline SVG: each check a numbered dot at (mean, discrimination); checks without a
    discrimination sit on the zero line as hollow dots. The numbers are the table's."""
    parts = [f'<svg role="img" aria-labelledby="chart-title chart-desc" viewBox="0 0 {WIDTH} '
             f'{HEIGHT}" width="{WIDTH}" height="{HEIGHT}" xmlns="http://www.w3.org/2000/svg">',
             '<title id="chart-title">Difficulty against discrimination, one dot per check'
             '</title>',
             '<desc id="chart-desc">Horizontal axis: the share of the points the class earned, '
             'from 0 (nobody) to 1 (everyone). Vertical axis: discrimination, from -1 to 1. '
             'Each dot is numbered as in the table below.</desc>',
             f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" '
             f'height="{HEIGHT - TOP - BOTTOM}" fill="#fff" stroke="#555"/>']
    for band_start, band_end in ((0.0, ALMOST_ALL_FAIL), (ALMOST_ALL_PASS, 1.0)):
        parts.append(f'<rect x="{_x(band_start):.1f}" y="{TOP}" '
                     f'width="{_x(band_end) - _x(band_start):.1f}" '
                     f'height="{HEIGHT - TOP - BOTTOM}" fill="#f3e3c3"/>')
    parts.append(f'<rect x="{LEFT}" y="{_y(0):.1f}" width="{WIDTH - LEFT - RIGHT}" '
                 f'height="{_y(-1) - _y(0):.1f}" fill="#f6d5d5" fill-opacity="0.6"/>')
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<text x="{_x(tick):.1f}" y="{HEIGHT - BOTTOM + 18}" '
                     f'text-anchor="middle" font-size="13" fill="#222">{tick:g}</text>')
    for tick in (-1, -0.5, 0, 0.5, 1):
        parts.append(f'<line x1="{LEFT - 5}" x2="{WIDTH - RIGHT}" y1="{_y(tick):.1f}" '
                     f'y2="{_y(tick):.1f}" stroke="#999" stroke-dasharray="3 3"/>')
        parts.append(f'<text x="{LEFT - 8}" y="{_y(tick) + 4:.1f}" text-anchor="end" '
                     f'font-size="13" fill="#222">{tick:g}</text>')
    parts.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 10}" '
                 f'text-anchor="middle" font-size="14" fill="#222">mean (share of the points '
                 f'earned)</text>')
    parts.append(f'<text x="16" y="{(TOP + HEIGHT - BOTTOM) / 2:.0f}" text-anchor="middle" '
                 f'font-size="14" fill="#222" transform="rotate(-90 16 '
                 f'{(TOP + HEIGHT - BOTTOM) / 2:.0f})">discrimination</text>')
    spots: dict[tuple[float, float], list[tuple[int, Item]]] = {}  # checks at one place
    for number_shown, item in enumerate(items, 1):
        spot = (round(_x(item.mean), 1), round(_y(item.discrimination or 0.0), 1))
        spots.setdefault(spot, []).append((number_shown, item))
    for (x, y), here in spots.items():
        undefined = all(item.discrimination is None for _, item in here)
        flagged = any(item.flags for _, item in here)
        fill = "#fff" if undefined else ("#b3261e" if flagged else "#1f5f99")
        label = ", ".join(str(n) for n, _ in here)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="9" fill="{fill}" '
                     f'stroke="#222" stroke-width="1.5"/>')
        anchor_end = ' text-anchor="end"' if x > WIDTH - RIGHT - 60 else ""
        shift = -12 if anchor_end else 12
        parts.append(f'<text x="{x + shift:.1f}" y="{y - 10:.1f}" font-size="13" '
                     f'fill="#222"{anchor_end}>{label}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


ITEMS_STYLE = """\
figure { margin: 1em 0; }
@media (max-width: 30em) { td, th { font-size: 0.9em; overflow-wrap: anywhere; } }
.flag { color: #8b1a12; font-weight: bold; }
svg { max-width: 100%; height: auto; }
pre { background: #f4f4f4; padding: 0.6em; white-space: pre-wrap; overflow-wrap: anywhere; }
"""

ITEMS_BODY = """<p>{overview}</p>
<h2>Difficulty and discrimination</h2>
<figure>
{chart}
<figcaption>Shaded at the sides: checks almost everyone fails (left) or passes (right);
shaded below zero: negative discrimination. Red dots are flagged, hollow dots have no
discrimination (everyone earned the same).</figcaption>
</figure>
<h2>Checks, in notebook order</h2>
<table><thead><tr><th scope="col">#</th><th scope="col">check</th><th scope="col">points</th>
<th scope="col">mean</th><th scope="col">discrimination</th><th scope="col">flags</th>
<th scope="col">most frequent failure</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<h2>The cells</h2>
{cells}"""


def items_page(settings: Settings, grades: AssignmentGrades, items: list[Item]) -> str:
    """The item-analysis page of one assignment as HTML text."""
    sources = cell_sources(settings, grades.name)
    notebooks = settings.instructor_notebooks(grades.name)
    flagged = sum(1 for item in items if item.flags)
    overview = (f"{len(grades.submissions)} submission(s) in the gradebook, {len(items)} "
                f"check(s), {flagged} flagged. Discrimination is the correlation of a check's "
                f"score with the rest of the student's total.")
    rows, cells = [], []
    for number_shown, item in enumerate(items, 1):
        check = item.check
        discrimination = ("not defined" if item.discrimination is None
                          else f"{item.discrimination:.2f}")
        flags = (f'<span class="flag">{html.escape("; ".join(item.flags))}</span>'
                 if item.flags else "")
        failure = (f"{html.escape(item.top_failure)} ({item.top_failure_students})"
                   if item.top_failure else "")
        rows.append(f'<tr><td class=n>{number_shown}</td><td><a href="#{anchor(check)}">'
                    f"{html.escape(check.notebook)}/{html.escape(check.grade_id)}</a></td>"
                    f"<td class=n>{number(check.max_points)}</td>"
                    f"<td class=n>{item.mean:.2f}</td><td class=n>{discrimination}</td>"
                    f"<td>{flags}</td><td>{failure}</td></tr>")
        source = sources.get((check.notebook, check.grade_id), "")
        notebook_path = os.path.relpath(notebooks.get(check.notebook, ""), settings.root)
        cells.append(f'<section id="{anchor(check)}">'
                     f"<h3>{number_shown}. {html.escape(check.grade_id)}</h3>"
                     f"<p>In {html.escape(notebook_path)}</p>"
                     f"<pre><code>{html.escape(source)}</code></pre></section>")
    body = ITEMS_BODY.format(overview=html.escape(overview), chart=chart(items),
                             rows="\n".join(rows), cells="\n".join(cells))
    return report_page(f"{grades.name}: item analysis", body, ITEMS_STYLE)


def write_item_analysis(settings: Settings, grades: AssignmentGrades) -> list[str]:
    """reports/<assignment>-items.csv and .html of one assignment; returns their paths."""
    items = item_analysis(grades, failure_messages(settings, grades.name))
    base = os.path.join(settings.reports, grades.name + "-items")
    write_atomically(base + ".csv", csv_text(item_rows(items), ITEM_FIELDS))
    write_atomically(base + ".html", items_page(settings, grades, items))
    return [base + ".csv", base + ".html"]


def item_analysis_of(settings: Settings, assignment: str) -> list[str]:
    """The item analysis of one assignment written from the gradebook (what `make
    item-analysis` runs); returns lines saying where each file is."""
    _, [grades] = read_grades(settings, [assignment])
    return [f"item analysis: {os.path.relpath(path, settings.root)}"
            for path in write_item_analysis(settings, grades)]
