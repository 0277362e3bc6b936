"""The similarity report of an assignment: reports/similarity-<assignment>.csv and .html.

The CSV has every pair of students, most similar first; the page lists the
pairs at or above the threshold, each with its matching passages side by side
and highlighted, and the submissions that could not be compared. Both are
written beside the grade report, as it is (same folder, same permissions),
and hold student code: they are for the course team, never for feedback.
The page is one self-contained file: every student text in it is escaped, each
control, bidi or invisible character shown as its escape (safe_text.shown_on_page),
and it loads nothing from anywhere.
"""

import html
import os

from ..files import csv_text, write_atomically
from ..report_shell import report_page
from ..safe_text import shown_on_page, spreadsheet_cell
from ..settings import Settings
from .answers import AnswerCell, read_class
from .comparison import Comparison, Pair, compare_class, passages
from .fingerprints import Span

CSV_FIELDS = ["student_a", "student_b", "similarity", "above_threshold"]
BELOW_SHOWN = 10  # the most similar pairs under the threshold, listed for a second look

SIMILARITY_STYLE = """\
table { margin: 0.5em 0 1em; }
.table-wrap { overflow-x: auto; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(16em, 1fr)); gap: 1em; }
figure { margin: 0; min-width: 0; }
figcaption { font-weight: bold; margin-bottom: 0.3em; }
pre { background: #f6f6f6; border: 1px solid #ccc; padding: 0.5em; overflow-x: auto;
      font-size: 0.9em; margin: 0; }
mark { background: #ffd966; color: #222; }
"""

SIMILARITY_BODY = """<p>{overview}</p>
<p>This page is evidence for a person to read: a high similarity is a reason to look at
two notebooks, not a finding, and nothing here changes a grade. Code that everyone shares
is left out of the comparison: the instructor's notebook and code that more than
{common_limit} students wrote alike. Highlighted: the passages that match once names,
comments, literals, spacing and the order of functions are set aside.</p>
<h2>Pairs at or above the threshold ({above_count})</h2>
{above}
<h2>The most similar pairs below the threshold</h2>
{below}
<h2>Not compared ({missing_count})</h2>
{missing}
<h2>Compared in part ({part_count})</h2>
{part}
{details}"""


def highlighted(source: str, spans: list[Span]) -> str:
    """`source` as escaped HTML with each (start, end) character span in <mark>."""
    parts, at = [], 0
    for start, end in spans:
        parts.append(html.escape(source[at:start]))
        parts.append("<mark>" + html.escape(source[start:end]) + "</mark>")
        at = end
    parts.append(html.escape(source[at:]))
    return "".join(parts)


def pair_table(comparison: Comparison, pairs: list[Pair], linked: bool) -> str:
    if not pairs:
        return "<p>None.</p>"
    rows = []
    for rank, pair in enumerate(pairs, 1):
        names = f"{shown_on_page(pair.student_a)} and {shown_on_page(pair.student_b)}"
        if linked:
            names = f'<a href="#pair-{rank}">{names}</a>'
        rows.append(f"<tr><td class=n>{rank}</td><td>{names}</td>"
                    f"<td class=n>{pair.similarity:.0%}</td><td class=n>{pair.shared}</td></tr>")
    return ('<div class="table-wrap" tabindex="0"><table><tr><th scope="col">rank</th>'
            '<th scope="col">students</th><th scope="col">similarity</th>'
            '<th scope="col">shared fingerprints</th></tr>\n' + "\n".join(rows)
            + "\n</table></div>")


def cell_caption(student: str, cell: AnswerCell) -> str:
    return shown_on_page(f"{student}: {cell.notebook}.ipynb, cell {cell.number} ({cell.label})")


def pair_details(comparison: Comparison, rank: int, pair: Pair) -> str:
    cells_a = comparison.answers.students[pair.student_a]
    cells_b = comparison.answers.students[pair.student_b]
    parts = [f'<section aria-labelledby="pair-{rank}"><h2 id="pair-{rank}">{rank}. '
             f"{shown_on_page(pair.student_a)} and {shown_on_page(pair.student_b)}: "
             f"{pair.similarity:.0%}</h2>"]
    for cell_a, spans_a, cell_b, spans_b, shared in passages(comparison, pair):
        a, b = cells_a[cell_a], cells_b[cell_b]
        parts.append(f"<h3>{html.escape(a.label)} and {html.escape(b.label)}: "
                     f"{shared} matching k-gram(s)</h3>\n<div class=sides>"
                     f"<figure><figcaption>{cell_caption(pair.student_a, a)}</figcaption>"
                     f"<pre tabindex=0><code>{highlighted(a.source, spans_a)}</code></pre></figure>"
                     f"<figure><figcaption>{cell_caption(pair.student_b, b)}</figcaption>"
                     f"<pre tabindex=0><code>{highlighted(b.source, spans_b)}</code></pre></figure></div>")
    parts.append("</section>")
    return "\n".join(parts)


def render_similarity(comparison: Comparison) -> str:
    """The similarity page of one assignment as HTML text."""
    answers = comparison.answers
    above = [p for p in comparison.pairs if p.above_threshold]
    below = [p for p in comparison.pairs if not p.above_threshold][:BELOW_SHOWN]
    overview = (f"{len(answers.students)} submission(s) compared in "
                f"{len(comparison.pairs)} pair(s); threshold {comparison.threshold:.0%} "
                f"(c.SimilarityReport.threshold); {len(above)} pair(s) at or above it.")
    if answers.not_compared:
        rows = "\n".join(f"<tr><td>{shown_on_page(s)}</td><td>{shown_on_page(reason)}</td></tr>"
                         for s, reason in sorted(answers.not_compared.items()))
        missing = ('<table><tr><th scope="col">student</th><th scope="col">why</th></tr>\n'
                   f"{rows}\n</table>")
    else:
        missing = "<p>Nobody: every submission was read.</p>"
    if answers.compared_in_part:
        rows = "\n".join(f"<tr><td>{shown_on_page(s)}</td><td>{shown_on_page(what)}</td></tr>"
                         for s, what in sorted(answers.compared_in_part.items()))
        part = ('<table><tr><th scope="col">student</th><th scope="col">left out</th></tr>\n'
                f"{rows}\n</table>")
    else:
        part = "<p>Nobody: every submission was compared whole.</p>"
    body = SIMILARITY_BODY.format(
        overview=html.escape(overview), common_limit=comparison.common_limit,
        above_count=len(above), above=pair_table(comparison, above, linked=True),
        below=pair_table(comparison, below, linked=False),
        missing_count=len(answers.not_compared), missing=missing,
        part_count=len(answers.compared_in_part), part=part,
        details="\n".join(pair_details(comparison, rank, pair)
                          for rank, pair in enumerate(above, 1)))
    return report_page(f"{answers.assignment}: similarity report", body, SIMILARITY_STYLE,
                       width="72em")


def similarity_rows(comparison: Comparison) -> list[dict[str, str]]:
    return [{"student_a": spreadsheet_cell(p.student_a), "student_b": spreadsheet_cell(p.student_b),
             "similarity": f"{p.similarity:.4f}",
             "above_threshold": "true" if p.above_threshold else "false"}
            for p in comparison.pairs]


def write_similarity(settings: Settings, assignment: str, threshold: float | None = None
                     ) -> list[str]:
    """reports/similarity-<assignment>.csv and .html written; returns their paths.

    `threshold` defaults to c.SimilarityReport.threshold.
    """
    comparison = compare_class(read_class(settings, assignment),
                               settings.similarity_threshold if threshold is None else threshold,
                               settings.similarity_common_fraction)
    base = os.path.join(settings.reports, f"similarity-{assignment}")
    return [write_atomically(base + ".csv", csv_text(similarity_rows(comparison), CSV_FIELDS)),
            write_atomically(base + ".html", render_similarity(comparison))]
