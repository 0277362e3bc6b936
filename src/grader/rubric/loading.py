"""One rubric file read and checked: rubrics/<assignment>.yaml (docs/explain-questions.md).

    cell: explain_tying            # the grade_id of the manually graded answer
    values: |                      # Python run with `student` and `salt` (the course's):
      config = student_config(student, salt)   # every name it binds is a placeholder
      ...
    items:
      - key: counts                # what a grader types to apply the item
        points: 0.5                # > 0 adds, < 0 takes away; within the cell's points
        description: "quotes {untied:,} untied and {tied:,} tied"
        explanation: "what the student reads on the feedback page"
        note: "for the grader only, never shown to the student"
        suggest: ["minus the head", "{head}"]   # optional: the grading page suggests the
                                               # item when the answer matches one of these

A bad file is refused whole, with a `RubricError` naming the file and the line: an
unknown key, a missing one, points that are not a number or lie outside the cell's, a
placeholder the values do not bind, an item key written twice, a suggestion that is no
regular expression.

A suggestion is a regular expression (case ignored) matched against the answer as the
grading page reads it: lower-cased, and each number that is one of the student's own
values written as that value's name in braces (``{tied}``), any other as ``{#}``. It is
only shown to the grader, never applied by itself.
"""

import ast
import os
import re
import string
from dataclasses import dataclass
from typing import Any

import yaml

from ..settings import CourseError

RUBRICS_FOLDER = "rubrics"  # beside solutions/, in the course folder
TOP_KEYS = {"cell": True, "values": False, "items": True, "defense": False}  # key: required
DEFENSE_KEYS = {"question": True, "answer": True}  # a defend-your-answer question
ITEM_KEYS = {"key": True, "points": True, "description": True, "explanation": True,
             "note": False, "suggest": False}
WORDED = ("description", "explanation", "note")  # the item's texts that take placeholders
ALWAYS = ("student",)  # a placeholder every rubric has: the student's id


class RubricError(CourseError):
    """A rubric file that cannot be used, with the file and line of the mistake."""


@dataclass(frozen=True)
class RubricItem:
    """One item: applied by its `key`, worth `points` (negative: a deduction)."""

    key: str
    points: float
    description: str
    explanation: str
    note: str = ""
    suggest: tuple[str, ...] = ()  # regular expressions; the grading page suggests the item


@dataclass(frozen=True)
class Rubric:
    """The rubric of one assignment's explain cell, as its file holds it."""

    path: str
    cell: str
    values: str  # Python source binding the placeholders
    items: tuple[RubricItem, ...]
    defense: tuple[tuple[str, str], ...] = ()  # (question, expected answer), placeholders in both

    def item(self, key: str) -> RubricItem | None:
        return next((item for item in self.items if item.key == key), None)

    @property
    def placeholders(self) -> frozenset[str]:
        return frozenset(ALWAYS) | bound_names(self.values)


def rubric_path(root: str, assignment: str) -> str:
    return os.path.join(root, RUBRICS_FOLDER, f"{assignment}.yaml")


def bound_names(source: str) -> frozenset[str]:
    """The names the top level of `source` binds (assignments, for-targets, imports)."""
    names = set()
    for node in ast.parse(source).body if source.strip() else []:
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For))
                   else [])
        for target in targets:
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    return frozenset(names)


def placeholders_of(text: str) -> list[str]:
    """The placeholder names of `text` ({name} or {name:format}), in order."""
    return [field.split(".")[0].split("[")[0]
            for _, field, _, _ in string.Formatter().parse(text) if field]


def filled(text: str, values: dict[str, Any]) -> str:
    """`text` with its placeholders written from `values` (format specs such as {n:,} kept)."""
    return text.format_map(values)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _scalar(node, path, what):
    if not isinstance(node, yaml.ScalarNode):
        raise RubricError(f"{path}, line {_line(node)}: {what} must be a single value")
    return node.value


def _mapping(node, path, what, known):
    """{key: (key node, value node)} of a mapping node, every key known and given once."""
    if not isinstance(node, yaml.MappingNode):
        raise RubricError(f"{path}, line {_line(node)}: {what} must be a mapping of "
                          f"{', '.join(known)}")
    found = {}
    for key_node, value_node in node.value:
        key = _scalar(key_node, path, "a key")
        if key not in known:
            raise RubricError(f"{path}, line {_line(key_node)}: unknown key {key!r} in "
                              f"{what} (known: {', '.join(known)})")
        if key in found:
            raise RubricError(f"{path}, line {_line(key_node)}: {key!r} written twice in {what}")
        found[key] = (key_node, value_node)
    missing = [key for key, required in known.items() if required and key not in found]
    if missing:
        raise RubricError(f"{path}, line {_line(node)}: {what} has no {', '.join(missing)}")
    return found


def _points(node, path, key, max_points):
    text = _scalar(node, path, f"the points of {key!r}")
    try:
        points = float(text)
    except ValueError:
        raise RubricError(f"{path}, line {_line(node)}: the points of {key!r} are "
                          f"{text!r}, not a number") from None
    if points == 0 or points != points or (max_points is not None and abs(points) > max_points):
        within = f" or beyond ±{max_points:g}, the cell's points" if max_points is not None else ""
        raise RubricError(f"{path}, line {_line(node)}: the points of {key!r} are {points:g}: "
                          f"an item is worth more than 0{within}")
    return points


def load_rubric(path: str, max_points: float | None = None, cell: str | None = None) -> Rubric:
    """The rubric in the file at `path`, checked: its items' points within ±`max_points`
    (the explain cell's, where known) and, when `cell` is given, for that cell."""
    shown = os.path.relpath(path)
    try:
        with open(path, encoding="utf-8") as handle:
            root = yaml.compose(handle)
    except OSError as error:
        raise RubricError(f"{shown}: cannot be read ({error.strerror})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark else ""
        raise RubricError(f"{shown}{where}: not YAML ({getattr(error, 'problem', error)})") \
            from None
    if root is None:
        raise RubricError(f"{shown}, line 1: the file is empty")
    top = _mapping(root, shown, "the rubric", TOP_KEYS)
    cell_node = top["cell"][1]
    cell_name = _scalar(cell_node, shown, "cell")
    if cell is not None and cell_name != cell:
        raise RubricError(f"{shown}, line {_line(cell_node)}: cell {cell_name!r} is not the "
                          f"assignment's explain cell, {cell!r}")
    values = _scalar(top["values"][1], shown, "values") if "values" in top else ""
    try:
        names = frozenset(ALWAYS) | bound_names(values)
    except SyntaxError as error:
        line = _line(top["values"][1]) + (error.lineno or 0)
        raise RubricError(f"{shown}, line {line}: the values are not Python "
                          f"({error.msg})") from None
    items_node = top["items"][1]
    if not isinstance(items_node, yaml.SequenceNode) or not items_node.value:
        raise RubricError(f"{shown}, line {_line(items_node)}: items must be a list of items")
    defense = tuple(_defense(top["defense"][1], shown, names)) if "defense" in top else ()
    items, lines = [], {}
    for node in items_node.value:
        fields = _mapping(node, shown, "an item", ITEM_KEYS)
        key = _scalar(fields["key"][1], shown, "key")
        if key in lines:
            raise RubricError(f"{shown}, line {_line(fields['key'][1])}: item key {key!r} "
                              f"is written twice (first on line {lines[key]})")
        if not key or any(c.isspace() for c in key):
            raise RubricError(f"{shown}, line {_line(fields['key'][1])}: item key {key!r} "
                              f"must be one word, the one a grader types")
        lines[key] = _line(fields["key"][1])
        texts = {name: _worded(fields[name][1], shown, f"{name} of {key!r}", names)
                 for name in WORDED if name in fields}
        suggest = _suggestions(fields["suggest"][1], shown, key) if "suggest" in fields else ()
        items.append(RubricItem(key, _points(fields["points"][1], shown, key, max_points),
                                texts["description"], texts["explanation"], texts.get("note", ""),
                                suggest))
    return Rubric(path, cell_name, values, tuple(items), defense)


def _worded(node, path, what, names):
    """The text of `node`, its placeholders all among `names`."""
    text = _scalar(node, path, what)
    try:
        used = placeholders_of(text)
    except ValueError as error:
        raise RubricError(f"{path}, line {_line(node)}: {what}: {error}") from None
    unknown = [p for p in used if p not in names]
    if unknown:
        raise RubricError(f"{path}, line {_line(node)}: placeholder {{{unknown[0]}}} in {what} "
                          f"is not one of the values ({', '.join(sorted(names))})")
    return text


def _suggestions(node, path, key):
    """The item's suggestions: one regular expression or a list of them, each compiled."""
    nodes = node.value if isinstance(node, yaml.SequenceNode) else [node]
    patterns = []
    for entry in nodes:
        pattern = _scalar(entry, path, f"a suggestion of {key!r}")
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as error:
            raise RubricError(f"{path}, line {_line(entry)}: the suggestion {pattern!r} of "
                              f"{key!r} is no regular expression ({error})") from None
        patterns.append(pattern)
    return tuple(patterns)


def _defense(node, path, names):
    """[(question, answer)] of the rubric's defend-your-answer questions."""
    if not isinstance(node, yaml.SequenceNode):
        raise RubricError(f"{path}, line {_line(node)}: defense must be a list of questions")
    for entry in node.value:
        fields = _mapping(entry, path, "a defense question", DEFENSE_KEYS)
        yield (_worded(fields["question"][1], path, "a defense question", names),
               _worded(fields["answer"][1], path, "a defense answer", names))
