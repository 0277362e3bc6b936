"""The built site holds no homework's answer: no code, no printed source, nothing to copy.

The answers are the code of the solution notebooks (``solutions/*/*.ipynb``) between
``### BEGIN SOLUTION`` and ``### END SOLUTION``. Every code block and every text output
the reader can see or download, on the site's HTML pages (each ``<pre>``) and in the
page notebooks of the download button (``_sources/book/*.ipynb``: code cells and their
text outputs), is compared with them line by line, normalised: comments and whitespace
dropped, and what a statement stores its value in (``x =``, ``return``) as well, so
``logits = logits.masked_fill(...)`` on a page is the answer's ``return
logits.masked_fill(...)``. Lines that carry no answer (``else:``, ``with
torch.no_grad():``, a bare ``return idx``, anything of a few characters) are left out;
RUN consecutive answer lines found together in one block fail the test.
"""

import html
import json
import re
import tokenize
import io
from pathlib import Path

import pytest

from testsupport.course import ROOT as COURSE_ROOT

ROOT = Path(COURSE_ROOT).resolve()
SOLUTIONS = sorted((ROOT / "solutions").glob("*/*.ipynb"))
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
RUN = 3  # consecutive answer lines that make a copy
SHORTEST = 8  # characters of a normalised line below which it carries no answer
EMPTY_LINES = re.compile(r"^(else:|try:|finally:|pass|break|continue|return\w*|"
                         r"withtorch\.no_grad\(\):|withtorch\.inference_mode\(\):|"
                         r"(el)?if__name__.*)$")
_TARGET = re.compile(r"^(return\s+|(?!(if|elif|while|for|with|assert|lambda)\b)"
                     r"[\w.\[\], *]+?(?<![=!<>+\-*/%&|^@])=(?!=))")
_PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.S)
_TAG = re.compile(r"<[^>]+>")


def _without_comment(line):
    """``line`` without its ``#`` comment (a ``#`` inside a string stays)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return line.split("#", 1)[0] if line.lstrip().startswith("#") else line
    for token in tokens:
        if token.type == tokenize.COMMENT:
            return line[:token.start[1]]
    return line


def normalised(line):
    """A line as it is compared: no comment, no whitespace, no target it is stored in."""
    return "".join(_TARGET.sub("", _without_comment(line).strip(), count=1).split())


def answer_lines(text):
    """The lines of ``text`` that could carry an answer, normalised, in order."""
    lines = []
    for line in text.splitlines():
        if BEGIN in line or END in line:
            continue
        norm = normalised(line)
        if len(norm) >= SHORTEST and not EMPTY_LINES.match(norm):
            lines.append(norm)
    return lines


def runs(lines, length=RUN):
    return {tuple(lines[i:i + length]) for i in range(len(lines) - length + 1)}


def answers():
    """{run of RUN answer lines: "assignment/grade_id"} of every solution notebook."""
    found = {}
    for path in SOLUTIONS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if BEGIN not in source:
                continue
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "?")
            for block in re.findall(re.escape(BEGIN) + r"(.*?)" + re.escape(END), source, re.S):
                for run in runs(answer_lines(block)):
                    found[run] = f"{path.parent.name}/{grade_id}"
    return found


def copies(blocks, keys):
    """[(where, answer, the copied lines)] of every block of text that holds a run of an answer."""
    found = []
    for where, text in blocks:
        for run in sorted(runs(answer_lines(text)) & keys.keys()):
            found.append((where, keys[run], "\n".join(run)))
    return found


def site_blocks(site):
    """(where, text) of every code block and text output a reader of the built site meets."""
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.parts or "pagefind" in page.parts:
            continue
        for pre in _PRE.findall(page.read_text(encoding="utf-8")):
            yield str(page.relative_to(site)), html.unescape(_TAG.sub("", pre))
    for notebook in sorted((site / "_sources").rglob("*.ipynb")):
        where = str(notebook.relative_to(site))
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            yield where, "".join(cell["source"])
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                for kind, text in [("text", output.get("text", "")),
                                   *[(kind, data.get(kind, "")) for kind in
                                     ("text/plain", "text/markdown", "text/html")]]:
                    text = "".join(text) if isinstance(text, list) else text
                    if kind == "text/html":  # markup: its text, as a reader sees it
                        text = html.unescape(_TAG.sub("", text))
                    if text:
                        yield where, text


def test_the_answers_are_found():
    """The comparison has something to compare with: every assignment's answers, many runs."""
    keys = answers()
    assert {where.split("/")[0] for where in keys.values()} == {p.parent.name for p in SOLUTIONS}
    assert len(keys) > 20


def test_a_printed_sampler_is_a_copy():
    """The package's sampler printed on a page (inspect.getsource) holds the answer of
    top_k_filter: the comparison sees through the comments, the spacing and
    ``logits =`` where the answer says ``return``."""
    import inspect

    from gptcourse import sample_next_token

    found = copies([("a page", inspect.getsource(sample_next_token))], answers())
    assert "sampling/top_k_filter_answer" in {answer for _, answer, _ in found}, found


def test_no_page_holds_an_answer(site):
    """No code cell, printed source or output of the site, on its pages or in the
    notebooks it offers, holds RUN consecutive lines of a homework's answer."""
    blocks = list(site_blocks(site))
    assert any(where.endswith(".ipynb") for where, _ in blocks)
    assert any(where.endswith(".html") for where, _ in blocks)
    found = copies(blocks, answers())
    assert not found, "answers on the site:\n" + "\n\n".join(
        f"{where} holds {answer}:\n{lines}" for where, answer, lines in found)
