"""Fingerprints of Python code that survive what copiers change (winnowing, as MOSS does).

A cell's code becomes a list of normalised tokens, with every name the
student binds (variables, functions, arguments, imports) written ``V``,
numbers ``N`` and strings ``S``; comments, docstrings, blank lines,
indentation widths, IPython magics and dead code (a body under ``if False:``,
statements after a ``return``, a function or a variable nothing reads) are
gone. Names the student did not bind (``torch``, ``sum``, ``.numel``) stay:
nobody renames a library.

The tokens are cut into units, one per top-level function or class and one
per run of other top-level statements, so that moving functions around moves
whole units. Each run of K tokens inside a unit (a k-gram) is hashed;
`winnowed` keeps the smallest hash of every WINDOW consecutive ones, which
guarantees that any shared run of K + WINDOW - 1 tokens is noticed.
"""

import ast
import bisect
import hashlib
import io
import keyword
import re
import tokenize
from collections.abc import Set
from dataclasses import dataclass, field

K = 8  # tokens in a k-gram
WINDOW = 4  # k-grams of which winnowing keeps the smallest
MAGIC_LINE = re.compile(r"^[ \t]*(?:[%!].*|[\w.]+\?\??[ \t]*)$", re.MULTILINE)
DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
STRING_PARTS = {getattr(tokenize, name) for name in ("FSTRING_MIDDLE",) if hasattr(tokenize, name)}
STRUCTURE = {";", "{", "}"}  # what line ends, indents and dedents become
FSTRING_START = getattr(tokenize, "FSTRING_START", None)
FSTRING_END = getattr(tokenize, "FSTRING_END", None)
Position = tuple[int, int]  # (line, column) in a cell's source, as tokenize gives them
Span = tuple[int, int]  # (start, end) characters of a cell's source


@dataclass(frozen=True, slots=True)
class Gram:
    """One k-gram of a student's code: its hash and where it is (cell, tokens)."""

    hash: int
    cell: int  # index in the student's list of answer cells
    unit: int  # the unit of that cell it is in
    first: int  # its first token's index in that cell's list of token spans


@dataclass
class Names:
    """What a whole submission binds and reads: the same name is renamed in every cell.

    ``required`` are the names the instructor's notebook reads (the answers its
    checks use): code that defines one of them is never dead.
    """

    bound: set[str] = field(default_factory=set)
    loaded: set[str] = field(default_factory=set)
    required: set[str] = field(default_factory=set)


def magics_blanked(source: str) -> str:
    """`source` with each IPython magic, shell and help line blanked (same length, so
    character offsets still point into the original)."""
    return MAGIC_LINE.sub(lambda match: " " * len(match.group(0)), source)


MAX_PARSES = 8  # tries of one cell: each cut past a mistake parses the rest again


def parsed(source: str) -> ast.Module | None:
    """The syntax tree of `source`, or of its longest start that parses (a cell with a
    mistake still has names and units up to it); None if not even the first line does, or
    no start does within MAX_PARSES tries (each costs a parse of the whole rest)."""
    lines = magics_blanked(source).splitlines(keepends=True)
    for _ in range(MAX_PARSES):
        if not lines:
            return None
        try:
            return ast.parse("".join(lines))
        except SyntaxError as error:
            lines = lines[:min((error.lineno or 1) - 1, len(lines) - 1)]
        except (ValueError, RecursionError, MemoryError):
            return None
    return None


def names_of(sources: list[str], required: Set[str] = frozenset()) -> Names:
    """The names that the code of `sources` (one submission's cells) binds and reads."""
    names = Names(required=set(required))
    for source in sources:
        tree = parsed(source)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Name):
                (names.loaded if isinstance(node.ctx, ast.Load) else names.bound).add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.bound.add(node.name)
            elif isinstance(node, ast.arg):
                names.bound.add(node.arg)
            elif isinstance(node, ast.alias):
                names.bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.bound.add(node.name)
    return names


def _always_false(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and not test.value


def _unused(node: ast.stmt, names: Names) -> bool:
    """A top-level function, class or assignment whose names nothing reads."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        targets = [node.name]
    elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        targets = [t.id for t in node.targets]
    else:
        return False
    return not any(t in names.loaded or t in names.required for t in targets)


def dead_spans(tree: ast.Module, names: Names) -> list[tuple[Position, Position]]:
    """[(start, end)] as (line, column) pairs of code that never runs or is never used:
    docstrings and other lone strings, bodies under a constant false test, statements
    after return/raise/break/continue, unused top-level definitions and assignments."""
    spans = []

    def span(node):
        return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)

    for node in tree.body:
        if _unused(node, names):
            spans.append(span(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            spans.append(span(node))
        if isinstance(node, (ast.If, ast.While)) and _always_false(node.test) and node.body:
            spans.append((span(node)[0], span(node.body[-1])[1]))
        for body in (getattr(node, attr, None) for attr in ("body", "orelse", "finalbody")):
            if not isinstance(body, list):
                continue
            for at, statement in enumerate(body[:-1]):
                if isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                    spans.append((span(body[at + 1])[0], span(body[-1])[1]))
                    break
    return spans


class DeadCode:
    """Whether a position is in one of a cell's dead spans, in log time: the spans sorted and
    joined where they overlap (a cell of thousands of lone strings stays linear)."""

    def __init__(self, spans: list[tuple[Position, Position]]) -> None:
        self.starts, self.ends = [], []
        for start, end in sorted(spans):
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def __contains__(self, position: Position) -> bool:
        at = bisect.bisect_right(self.starts, position) - 1
        return at >= 0 and position < self.ends[at]


def unit_starts(tree: ast.Module | None) -> list[int]:
    """First lines of the units of a cell: each top-level def or class starts one, and so
    does the first statement after one."""
    if tree is None:
        return [1]  # (sorted, as bisect needs)
    starts, previous_was_definition = [], True
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        definition = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if definition or previous_was_definition:
            starts.append(first)
        previous_was_definition = definition
    return starts or [1]


def raw_tokens(source: str) -> list[tokenize.TokenInfo]:
    """tokenize's tokens of `source`, as far as it can read (a broken cell keeps its start)."""
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            found.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def normalised_tokens(source: str, names: Names
                      ) -> list[tuple[int, str, Position, Position]]:
    """[(unit, text, start, end)]: the cell's tokens as compared, with the unit each is in
    and its (line, column) span in `source`."""
    cleaned = magics_blanked(source)
    tree = parsed(source)
    dead = DeadCode(dead_spans(tree, names) if tree else [])
    starts = unit_starts(tree)
    tokens, previous, in_fstring, dropped_indents = [], "", 0, 0
    for token in raw_tokens(cleaned):
        kind, text = token.type, token.string
        if kind == FSTRING_START:
            in_fstring += 1
            if in_fstring == 1:
                opening = token.start
            continue
        if in_fstring:
            if kind == FSTRING_END:
                in_fstring -= 1
                if not in_fstring:
                    kind, text, token = tokenize.STRING, "S", token._replace(start=opening)
            if in_fstring:
                continue
        if kind in DROPPED or kind in STRING_PARTS or (kind == tokenize.ERRORTOKEN
                                                        and not text.strip()):
            continue
        if kind == tokenize.DEDENT and dropped_indents:
            dropped_indents -= 1  # closes a block that was dropped
            continue
        if kind != tokenize.DEDENT and token.start in dead:
            dropped_indents += kind == tokenize.INDENT
            continue
        if kind == tokenize.NEWLINE and (not tokens or tokens[-1][1] in ";{}"):
            continue  # ends a dropped statement, or nothing
        if kind == tokenize.NAME and not keyword.iskeyword(text) and previous != ".":
            shown = "V" if text in names.bound else text
        elif kind == tokenize.NUMBER:
            shown = "N"
        elif kind == tokenize.STRING:
            shown = "S"
        elif kind == tokenize.NEWLINE:
            shown = ";"
        elif kind == tokenize.INDENT:
            shown = "{"
        elif kind == tokenize.DEDENT:
            shown = "}"
        else:
            shown = text
        unit = bisect.bisect_right(starts, token.start[0])
        tokens.append((unit, shown, token.start, token.end))
        previous = text
    return tokens


def stable_hash(text: str) -> int:
    """The same number for the same text in every process (Python's hash() is not)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def line_offsets(source: str) -> list[int]:
    """The character offset where each line of `source` starts, line 1 first."""
    offsets, total = [0, 0], 0
    for line in source.splitlines(keepends=True):
        total += len(line)
        offsets.append(total)
    return offsets


def kgrams(sources: list[str], names: Names, k: int = K
           ) -> tuple[list[Gram], list[list[Span]]]:
    """([Gram], [[(start, end)]]): every k-gram of the cells `sources`, in order, none
    crossing a unit or a cell; and the character span of each token of each cell."""
    grams, spans = [], []
    for cell, source in enumerate(sources):
        offsets = line_offsets(source)

        def offset(position):
            line, column = position
            return offsets[min(line, len(offsets) - 1)] + column

        tokens = normalised_tokens(source, names)
        spans.append([(offset(t[2]), offset(t[2] if t[1] in STRUCTURE else t[3]))
                      for t in tokens])  # line ends and indents are never highlighted
        for at in range(len(tokens) - k + 1):
            window = tokens[at:at + k]
            if window[0][0] != window[-1][0]:
                continue  # crosses into the next unit
            grams.append(Gram(stable_hash(" ".join(t[1] for t in window)), cell,
                              window[0][0], at))
    return grams, spans


def winnowed(grams: list[Gram], window: int = WINDOW) -> set[int]:
    """The hashes winnowing keeps: the smallest of every `window` consecutive k-grams of
    a unit (units apart, so that moving a function keeps its fingerprints)."""
    kept = set()
    by_unit = {}
    for gram in grams:
        by_unit.setdefault((gram.cell, gram.unit), []).append(gram.hash)
    for hashes in by_unit.values():
        if len(hashes) <= window:
            kept.update([min(hashes)] if hashes else [])
            continue
        for at in range(len(hashes) - window + 1):
            part = hashes[at:at + window]
            kept.add(min(part))
    return kept
