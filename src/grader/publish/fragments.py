"""What must never be published: the solution and hidden-test blocks of solutions/, and the
texts of the rubrics in rubrics/, as text to search for.

Text is compared squeezed (`squeeze`: every whitespace character taken out, on both
sides), so a block that a page reflowed, indented or split over lines of markup is
still found. The rule that keeps short, common code (``pass``, ``return idx``,
``model.eval()``) from making false hits:

- every block whose squeezed text has at least MIN_CHARS characters is a fragment,
  whole, unless the course publishes it on purpose: text that the released notebooks
  (exercises/, the checks' visible parts included) or the course package's source (the
  wheel) hold, anywhere, is left out;
- so is every line of a block whose squeezed text has at least MIN_CHARS characters,
  unless it is published on purpose so, or a page's source (book/) holds it: a line
  such as ``warnings.simplefilter("ignore")`` is everyone's Python, not a secret. A
  page that shows a whole block is still found;
- and the markers of nbgrader's hidden-test regions (CANARIES), which nbgrader takes
  out of every released notebook: where one is found, a file came from solutions/.

A rubric (rubrics/<assignment>.yaml) gives its items' descriptions, explanations and
graders' notes, its defense questions and their answers, and its `values`, each whole
under the same rule as a block; and the pieces of a text between its placeholders
(``{untied:,}``) under the rule of a line, which finds the text with a student's
numbers written in. A rubric file that is not YAML of that shape gives its lines.
"""

import json
import os
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import yaml

from ..rubric import RUBRICS_FOLDER
from ..settings import Settings

MIN_CHARS = 24  # squeezed characters: `return idx` has 9, `model.eval()` 12


class SecretKind(StrEnum):
    """What a fragment is part of."""

    SOLUTION = "solution"
    HIDDEN_TEST = "hidden test"
    CANARY = "canary"  # a marker of nbgrader's hidden regions
    RUBRIC = "rubric"  # a text of a rubric: an item's words, a grader's note, a defense answer


# {kind: (begin, end)}: a line that holds one of these opens or closes a region, as for nbgrader
REGIONS = {SecretKind.SOLUTION: ("BEGIN SOLUTION", "END SOLUTION"),
           SecretKind.HIDDEN_TEST: ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")}
CANARIES = tuple(f"### {marker}" for marker in REGIONS[SecretKind.HIDDEN_TEST])


def squeeze(text: str) -> str:
    """`text` with every whitespace character taken out."""
    return "".join(text.split())


@dataclass(frozen=True)
class Fragment:
    """One piece of secret text: its squeezed form, and where it comes from (never its text,
    which a report must not show)."""

    squeezed: str
    kind: SecretKind
    assignment: str
    notebook: str  # the notebook's file name in solutions/<assignment>/; a rubric's in rubrics/
    grade_id: str
    whole: bool  # a whole block (a rubric's whole text), or one distinctive line (piece) of it
    part: str = ""  # which text of a rubric: 'item counts, its note'

    def where(self) -> str:
        if self.kind is SecretKind.CANARY:
            return "a hidden-test marker of nbgrader (a file from solutions/)"
        if self.kind is SecretKind.RUBRIC:
            return (f"{'a' if self.whole else 'a piece of a'} text of rubrics/{self.notebook}"
                    f"{', ' + self.part if self.part else ''}")
        part = "a" if self.whole else "a line of a"
        return (f"{part} {self.kind.value} block of solutions/{self.assignment}/"
                f"{self.notebook}, "
                f"cell {self.grade_id}")


def cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def secret_blocks(cell: dict) -> list[tuple[SecretKind, str]]:
    """[(kind, text)] of the solution and hidden-test regions of an instructor notebook's cell;
    a solution cell without markers is a solution block whole (nbgrader replaces it whole)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    source = cell_text(cell)
    found, current, lines = [], None, []
    for line in source.splitlines():
        opened = [kind for kind, (begin, _) in REGIONS.items() if begin in line]
        if opened:
            current, lines = opened[0], []
        elif current is not None and REGIONS[current][1] in line:
            found.append((current, "\n".join(lines)))
            current = None
        elif current is not None:
            lines.append(line)
    if meta.get("solution") and not any(kind is SecretKind.SOLUTION for kind, _ in found):
        found.append((SecretKind.SOLUTION, source))
    return found


@dataclass(frozen=True)
class PublicText:
    """What the course publishes on purpose, squeezed: `released` (the released notebooks and
    the package's source) and `pages` (the pages' sources), each as one text."""

    released: str
    pages: str

    def holds_block(self, squeezed: str) -> bool:
        return squeezed in self.released

    def holds_line(self, squeezed: str) -> bool:
        return squeezed in self.released or squeezed in self.pages


def files_text(folder: str, suffix: str) -> list[str]:
    """The text of every file under `folder` whose name ends in `suffix`; a notebook's cells."""
    texts = []
    for base, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(suffix) or ".ipynb_checkpoints" in base:
                continue
            with open(os.path.join(base, name), encoding="utf-8") as handle:
                text = handle.read()
            if suffix == ".ipynb":
                text = "\n".join(cell_text(c) for c in json.loads(text).get("cells", []))
            texts.append(text)
    return texts


def course_public_text(settings: Settings, release: str, package_sources: Iterable[str]
                       ) -> PublicText:
    """The released notebooks (in `release`, exercises/) and `package_sources`; the pages
    (book/*.md)."""
    released = files_text(release, ".ipynb")
    pages = files_text(os.path.join(settings.root, "book"), ".md")
    return PublicText("\0".join(squeeze(t) for t in [*released, *package_sources]),
                      "\0".join(squeeze(t) for t in pages))


def secret_fragments(settings: Settings, public: PublicText,
                     assignments: Iterable[str] | None = None,
                     kinds: tuple[SecretKind, ...] = (SecretKind.SOLUTION,
                                                      SecretKind.HIDDEN_TEST)
                     ) -> list[Fragment]:
    """The fragments of the instructor notebooks of `assignments` (default: all) of the
    `kinds` asked for, and the canaries; `public`: what is published on purpose."""
    fragments: dict[str, Fragment] = {}
    for assignment in settings.assignments if assignments is None else assignments:
        for name, path in settings.instructor_notebooks(assignment).items():
            with open(path, encoding="utf-8") as handle:
                cells = json.load(handle).get("cells", [])
            for cell in cells:
                grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "?")
                for kind, text in secret_blocks(cell):
                    if kind not in kinds:
                        continue
                    where = dict(kind=kind, assignment=assignment, notebook=name + ".ipynb",
                                 grade_id=grade_id)
                    block = squeeze(text)
                    if len(block) >= MIN_CHARS and not public.holds_block(block):
                        fragments.setdefault(block, Fragment(block, whole=True, **where))
                    for line in text.splitlines():
                        squeezed = squeeze(line)
                        if len(squeezed) >= MIN_CHARS and not public.holds_line(squeezed):
                            fragments.setdefault(squeezed, Fragment(squeezed, whole=False,
                                                                    **where))
    for canary in CANARIES:
        fragments.setdefault(squeeze(canary), Fragment(squeeze(canary), SecretKind.CANARY,
                                                       "", "", "", True))
    return list(fragments.values())


def rubric_texts(rubric: Any) -> Iterator[tuple[str, str, bool]]:
    """[(which text, text, whether it is worded)] of a rubric file's content: the items'
    words, the defense questions and answers (worded: placeholders in prose) and the values
    (code)."""
    if not isinstance(rubric, dict):
        return
    for item in rubric.get("items") or []:
        for field in ("description", "explanation", "note"):
            if isinstance(item, dict) and isinstance(item.get(field), str):
                yield f"item {item.get('key')}, its {field}", item[field], True
    for number, entry in enumerate(rubric.get("defense") or [], 1):
        for field in ("question", "answer"):
            if isinstance(entry, dict) and isinstance(entry.get(field), str):
                yield f"defense question {number}, its {field}", entry[field], True
    if isinstance(rubric.get("values"), str):
        yield "its values", rubric["values"], False


def literal_pieces(text: str) -> list[str]:
    """The text of `text` between its placeholders ({name} or {name:format}); [] when it has
    none."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return []
    return [literal for literal, _, _, _ in parsed] if any(
        field is not None for _, field, _, _ in parsed) else []


def rubric_fragments(settings: Settings, public: PublicText) -> list[Fragment]:
    """The fragments of every rubric file of rubrics/ (module docstring); `public`: what is
    published on purpose."""
    folder = os.path.join(settings.root, RUBRICS_FOLDER)
    names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    fragments: dict[str, Fragment] = {}
    for name in (n for n in names if n.endswith((".yaml", ".yml"))):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            text = handle.read()
        try:
            rubric = yaml.safe_load(text)
        except yaml.YAMLError:
            rubric = None
        texts = list(rubric_texts(rubric))
        if not texts:  # not a rubric's shape: each of its lines
            texts = [(f"line {number}", line, True)
                     for number, line in enumerate(text.splitlines(), 1)]
        cell = str(rubric.get("cell", "")) if isinstance(rubric, dict) else ""
        for part, words, worded in texts:
            where = dict(kind=SecretKind.RUBRIC, assignment=os.path.splitext(name)[0],
                         notebook=name, grade_id=cell, part=part)
            whole = squeeze(words)
            if len(whole) >= MIN_CHARS and not public.holds_block(whole):
                fragments.setdefault(whole, Fragment(whole, whole=True, **where))
            for piece in map(squeeze, literal_pieces(words) if worded else []):
                if len(piece) >= MIN_CHARS and not public.holds_line(piece):
                    fragments.setdefault(piece, Fragment(piece, whole=False, **where))
    return list(fragments.values())
