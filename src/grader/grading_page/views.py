"""The grading page's HTML: every text a student or a grader wrote is escaped here.

One page per question: the groups beside the answers of the group chosen, each answer
with its student's own values, its flags, its draft and its score in the gradebook, and a
form of the rubric's items (keyboard first: keys.js).
"""

import html
from typing import Any

from ..explain.grading import score_of
from ..recording import AskedRegrade
from ..rubric import filled
from ..safe_text import shown, shown_id
from .grouping import Group
from .question import Question
from .split import Progress

STYLE = """body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff;
line-height:1.45}header{padding:.6rem 1rem;border-bottom:1px solid #bbb}main{display:flex;
gap:1rem;padding:0 1rem}nav{flex:0 0 16rem}nav ol{list-style:none;padding:0}nav li{margin:.3rem 0}
nav a[aria-current]{font-weight:700}section{flex:1;min-width:0}article{border:1px solid #bbb;
border-radius:4px;padding:.6rem .8rem;margin:.8rem 0}article:focus-within,article:focus{outline:
3px solid #2b5797}pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.5rem}
.flag{background:#fff4d6;border-left:4px solid #9a6700;padding:.3rem .6rem}.conflict{background:
#fde8e8;border-left:4px solid #9b1c1c;padding:.3rem .6rem}.note{background:#eef3fb;border-left:4px
solid #2b5797;padding:.3rem .6rem}label{display:block}kbd{border:1px solid #888;border-radius:3px;
padding:0 .25rem;font-size:.85em}table{border-collapse:collapse}td,th{padding:.15rem .5rem;
text-align:left;border-bottom:1px solid #ddd}.values{font-size:.9em;color:#333}
.suggest{font-size:.85em;border:1px solid #2b5797;border-radius:3px;padding:0 .3rem}"""

E = html.escape
SUGGESTED = " <span class=suggest>suggested by the rubric</span>"  # never applied by itself
SHOWN_CHARS = 20_000  # of one answer on the page; formgrader shows the whole of a longer one


def _number(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _values_line(values: dict[str, Any]) -> str:
    shown_values = [f"{name} = {_number(value)}" for name, value in sorted(values.items())
                    if isinstance(value, (int, float, str)) and name != "student"]
    return E(shown(", ".join(shown_values)))


def progress_table(progress: Progress) -> str:
    rows = "".join(f"<tr><th scope=row>{E(shown_id(one.grader))}</th><td>{len(one.graded)}"
                   f"</td><td>{len(one.left)}</td></tr>" for one in progress.graders)
    rows += f"<tr><th scope=row>all</th><td>{progress.graded}</td><td>{progress.left}</td></tr>"
    return (f"<table aria-label='progress by grader'><tr><th>grader</th><th>graded</th>"
            f"<th>left</th></tr>{rows}</table>")


def groups_nav(question: Question, chosen: Group | None, graded: set[str], mine: set[str] | None,
               base: str) -> str:
    items = []
    for number, group in enumerate(question.groups, start=1):
        members = [s for s in group.students if mine is None or s in mine]
        if not members:
            continue
        done = sum(s in graded for s in members)
        label = "(blank answers)" if group.blank else ", ".join(group.label) or "(no words)"
        current = " aria-current=true" if chosen and group.key == chosen.key else ""
        items.append(f"<li><a href='{E(base)}&amp;group={E(group.key)}'{current}>{number}. "
                     f"{E(label)}</a> <span>{done}/{len(members)} graded</span></li>")
    return f"<nav aria-label='groups of answers'><h2>Groups</h2><ol>{''.join(items)}</ol></nav>"


def _aside(question: Question, student: str, requests: list[AskedRegrade]) -> str:
    """The student's AI declaration and their open regrade requests about this answer."""
    parts = []
    declared = question.declarations.get(student)
    if declared is not None:
        parts.append(f"<p class=note>Their AI declaration (never graded): "
                     f"{E(shown(declared.strip())) if declared.strip() else '<em>left empty</em>'}"
                     f"</p>")
    parts += [f"<p class=flag>Regrade request, asked {E(r.asked_at)}: <q>"
              f"{E(shown(r.message))}</q> (<a href='../requests#r-{E(r.id)}'>answer it</a>)</p>"
              for r in requests]
    return "".join(parts)


def answer_article(question: Question, student: str, gradebook: float | None,
                   entry: dict[str, Any] | None, draft: list[str], grader: str | None,
                   may_score: str | None, xsrf: str, action: str,
                   requests: list[AskedRegrade] = ()) -> str:
    cell, rubric = question.cell, question.cell.rubric
    values = question.values[student]
    text = question.answers[student].strip()
    shown_text = (f"<pre>{E(shown(text[:SHOWN_CHARS], keep_layout=True))}</pre>" if text
                  and text != "YOUR ANSWER HERE" else "<p><em>(no answer)</em></p>")
    if len(text) > SHOWN_CHARS:
        shown_text += (f"<p class=note>The answer goes on for {len(text) - SHOWN_CHARS:,} more "
                       f"characters: formgrader shows it whole.</p>")
    flags = "".join(
        f"<p class=flag>Integrity: <q>{E(shown(flag.written))}</q> is the {E(flag.value_name)} "
        f"of {E(', '.join(map(shown_id, flag.owners)))}, not of this student's own model. A "
        f"flag changes no score.</p>" for flag in question.flags.get(student, []))
    applied = entry["items"] if entry else draft
    suggested = question.suggested.get(student, set())
    boxes = "".join(
        f"<label><input type=checkbox name=item value='{E(item.key)}' data-key='{number}'"
        f"{' checked' if item.key in applied else ''}> <kbd>{number}</kbd> "
        f"<b>{item.points:+g}</b> {E(item.key)}: {E(filled(item.description, values))}"
        f"{SUGGESTED if item.key in suggested else ''}"
        f"</label>" for number, item in enumerate(rubric.items, start=1))
    state = ("graded by " + E(shown_id(entry.get("by", "the terminal"))) +
             f": {entry['score']:g} of {cell.points:g}" if entry else
             "draft from the group: save to score" if draft else "not graded")
    before = "" if gradebook is None else f"{gradebook:g}"
    form = (f"<form method=post action='{E(action)}'>{xsrf}"
            f"<input type=hidden name=student value='{E(student)}'>"
            f"<input type=hidden name=shown_score value='{before}'>"
            f"<fieldset><legend>Rubric items (keys 1-{len(rubric.items)})</legend>{boxes}"
            f"</fieldset><label>Adjustment (points) <input name=adjust type=number step=0.25 "
            f"value='{E(str(entry.get('adjust', 0) if entry else 0))}'></label>"
            f"<label>Comment of your own <textarea name=own rows=2 maxlength=4000>"
            f"{E(entry.get('own', '') if entry else '')}</textarea></label>"
            f"<button type=submit>Save <kbd>Enter</kbd></button></form>")
    if may_score:
        form = f"<p class=note>{E(may_score)}</p>"
    preview = score_of(rubric, applied, cell.points)
    return (f"<article id='a-{E(student)}' tabindex=0 data-student='{E(student)}' "
            f"data-state='{'graded' if entry else 'open'}'>"
            f"<h3>{E(shown_id(student))}</h3>"
            f"<p class=values>Their own values: {_values_line(values)}</p>{shown_text}{flags}"
            f"{_aside(question, student, list(requests))}"
            f"<p>{state}; in the gradebook: {E(before or 'no score yet')}"
            f"{'; graded by ' + E(shown_id(grader)) + ' in the split' if grader else ''}"
            f"; items now: {preview:g}</p>{form}</article>")


def question_page(question: Question, chosen: Group | None, articles: list[str], nav: str,
                  progress: str, message: str, conflict: str, group_bar: str, user: str,
                  mine: bool, base: str) -> str:
    cell = question.cell
    notice = (f"<p class=conflict role=alert>{E(conflict)}</p>" if conflict else "") + (
        f"<p class=note role=status>{E(message)}</p>" if message else "")
    switch = (f"<a href='{E(base.replace('view=mine', 'view=all'))}'>all students</a>" if mine
              else f"<a href='{E(base.replace('view=all', 'view=mine'))}'>mine only</a>")
    heading = ("(blank answers)" if chosen and chosen.blank else
               ", ".join(chosen.label) if chosen else "no answers")
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Grading "
            f"{E(cell.assignment)}: {E(cell.grade_id)}</title><style>{STYLE}</style>"
            f"<script src='keys.js' defer></script></head><body><header><a href='./'>All "
            f"questions</a><h1>{E(cell.assignment)}: {E(cell.grade_id)} ({cell.points:g} "
            f"points)</h1><p>Signed in as {E(shown_id(user))}. {switch}. Keys: <kbd>j</kbd>/"
            f"<kbd>k</kbd> next/previous answer, <kbd>1</kbd>-<kbd>9</kbd> an item, "
            f"<kbd>Enter</kbd> save.</p>{progress}{notice}</header><main>{nav}<section "
            f"aria-label='answers'><h2>Group: {E(heading)}</h2>{group_bar}{''.join(articles)}"
            f"</section></main></body></html>")


def group_bar(question: Question, chosen: Group, xsrf: str, action: str,
              graders: list[str] | None = None, move: str = "", shown_students: tuple = ()
              ) -> str:
    """The group's forms: an item applied as drafts, and, for whoever may move students
    between graders (`graders` given), the answers shown moved to another grader."""
    buttons = "".join(
        f"<button name=item value='{E(item.key)}'>{item.points:+g} {E(item.key)}</button> "
        for item in question.cell.rubric.items)
    bar = (f"<form method=post action='{E(action)}' class=note>{xsrf}<input type=hidden "
           f"name=group value='{E(chosen.key)}'>Apply an item to every answer of this group "
           f"not graded yet, as a draft (each answer is still saved by you, one by one): "
           f"{buttons}</form>")
    if graders:
        options = "".join(f"<option value='{E(g)}'>{E(shown_id(g))}</option>" for g in graders)
        students = "".join(f"<input type=hidden name=student value='{E(s)}'>"
                           for s in shown_students)
        bar += (f"<form method=post action='{E(move)}' class=note>{xsrf}{students}"
                f"<label>Move the {len(shown_students)} answer(s) shown to <select name=to>"
                f"{options}</select></label> <button type=submit>Move</button></form>")
    return bar


def index_page(rows: list[tuple[str, int, int]], user: str, waiting: int) -> str:
    items = "".join(f"<li><a href='q/{E(a)}?view=mine'>{E(a)}</a>: {done} of {total} "
                    f"graded</li>" for a, done, total in rows)
    items += f"<li><a href='requests'>Regrade requests</a>: {waiting} open</li>"
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Grading page"
            f"</title><style>{STYLE}</style></head><body><header><h1>Explain questions to "
            f"grade</h1><p>Signed in as {E(shown_id(user))}.</p></header><main><ul>{items}"
            f"</ul></main></body></html>")
