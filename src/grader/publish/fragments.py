"""What must never be published: the solution and hidden-test blocks of solutions/, as text
to search for.

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
"""

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ..settings import Settings

MIN_CHARS = 24  # squeezed characters: `return idx` has 9, `model.eval()` 12


class SecretKind(StrEnum):
    """What a fragment is part of."""

    SOLUTION = "solution"
    HIDDEN_TEST = "hidden test"
    CANARY = "canary"  # a marker of nbgrader's hidden regions


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
    notebook: str  # the notebook's file name in solutions/<assignment>/
    grade_id: str
    whole: bool  # a whole block, or one distinctive line of it

    def where(self) -> str:
        if self.kind is SecretKind.CANARY:
            return "a hidden-test marker of nbgrader (a file from solutions/)"
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
