"""The answers of an explain question grouped by their reasoning, before a person grades them.

Every student has values of their own (the rubric's placeholders), so two students who reason
alike still write different numbers. `normalise` replaces each number a student wrote that is
one of their own values by that value's name, so that the answers of one reasoning read alike
across variants; `group_answers` then groups them by a TF-IDF of that text, offline and the
same every time, and labels each group by its most telling words. `integrity_flags` lists
the numbers that are another student's value and not the writer's own: evidence for a
person to read, never a score.
"""

import hashlib
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .numbers import WrittenNumber, same_number, written_numbers

NAMED_AT_LEAST = 100  # a value of 3 digits or more may be named; 4 or 12 says nothing
TELLING_AT_LEAST = 10_000  # a value of 5 digits or more is one student's, not everyone's
TELLING_WRITTEN_DIGITS = 4  # "117M" (GPT-2's paper) is near many counts; "124.4M" is not
MOST_GROUPS = 20  # more groups than this are no help to a person reading them
LABEL_WORDS = 4
READ_AT_MOST = 20_000  # characters of an answer read for its words and numbers: pages of it
GENERIC = "#"  # the name of a number that is none of the student's values
_TOKEN = re.compile(r"⟨([^⟩\s]+)⟩")
# a value's token is one word to TF-IDF (⟨tied⟩ stays whole, never the plain word "tied")
_TERMS = r"⟨[^⟩\s]+⟩|\b\w\w+\b"
_BLANKS = {"", "your answer here"}  # nbgrader's placeholder of an answer cell


@dataclass(frozen=True)
class ExplainAnswer:
    """One student's text of the explain question and their own values (the rubric's
    placeholders: ``untied``, ``head``, ... and whatever else the values code binds)."""

    student: str
    text: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class Group:
    """Answers that read alike: `key` is derived from its members (the same students, the
    same key, between requests), `label` its most telling words (a value as ``{tied}``, any
    other number as ``{#}``), `students` sorted; `blank` for the group of empty answers."""

    key: str
    label: tuple[str, ...]
    students: tuple[str, ...]
    blank: bool


@dataclass(frozen=True)
class Flag:
    """A number `student` wrote (`written`, as written) that is the value `value_name` of
    `owners` (sorted) and none of the student's own values: for a person to ask about."""

    student: str
    written: str
    value_name: str
    owners: tuple[str, ...]


def _numeric(values: Mapping[str, Any]) -> dict[str, float | int]:
    return {name: value for name, value in values.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}


def normalise(text: str, values: Mapping[str, Any]) -> str:
    """`text` (its first READ_AT_MOST characters) lower-cased, white space collapsed, each
    number that is one of `values` of 3 digits or more written as that value's token
    (``⟨tied⟩``; the first name in sorted order when it is several), every other number as
    ``⟨#⟩``. Markdown and HTML stay as text."""
    text = text[:READ_AT_MOST]
    named = sorted((name, value) for name, value in _numeric(values).items()
                   if abs(value) >= NAMED_AT_LEAST)
    pieces, done = [], 0
    for number in written_numbers(text):
        name = next((name for name, value in named if same_number(number, value)), GENERIC)
        pieces += [text[done:number.start].lower(), f" ⟨{name}⟩ "]
        done = number.end
    pieces.append(text[done:].lower())
    return " ".join("".join(pieces).split())


def shown_term(term: str) -> str:
    """A term of the normalised text as a person reads it: ``⟨tied⟩`` as ``{tied}``."""
    return _TOKEN.sub(r"{\1}", term)


def is_blank(text: str) -> bool:
    """Whether an answer says nothing: empty, white space, or nbgrader's YOUR ANSWER HERE."""
    return " ".join(text.split()).lower() in _BLANKS


def group_key(students: Iterable[str]) -> str:
    """The key of a group of `students`: the same members, the same key, in any order."""
    return hashlib.sha256("\n".join(sorted(students)).encode("utf-8")).hexdigest()[:16]


def _cut(merges: Sequence[Sequence[int]], count: int, groups: int) -> list[int]:
    """The group of each of `count` answers when the tree of `merges` (scikit-learn's
    ``children_``, closest first) is cut into `groups`: its first count - groups merges."""
    parent = list(range(2 * count - 1))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for step, (left, right) in enumerate(merges[:count - groups]):
        parent[root(left)] = parent[root(right)] = count + step
    roots = [root(leaf) for leaf in range(count)]
    numbering: dict[int, int] = {}
    return [numbering.setdefault(node, len(numbering)) for node in roots]


def _rule_of_thumb(count: int) -> int:
    """At most about sqrt(count / 2) groups (Mardia's rule of thumb), at least 2: a class
    of 60 in up to 5 groups, of 300 in up to 12, whatever small variations they share."""
    return max(2, round(math.sqrt(count / 2)))


def _clustered(texts: list[str], most_groups: int) -> tuple[list[int], Any, list[str]]:
    """(the group of each text, their TF-IDF rows, the terms) for the normalised `texts`."""
    # scikit-learn is the grading page's extra, and slow to import: only when grouping
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import silhouette_score
    from sklearn.metrics.pairwise import cosine_distances

    vectorizer = TfidfVectorizer(token_pattern=_TERMS, lowercase=False, sublinear_tf=True,
                                 ngram_range=(1, 2))
    count = len(texts)
    try:
        rows = vectorizer.fit_transform(texts)
    except ValueError:  # not one word in any answer ("?", "-"): they read alike
        return [0] * count, None, []
    terms = list(vectorizer.get_feature_names_out())
    if count < 3:
        return [0] * count, rows, terms
    # Agglomerative, average linkage on cosine distances: no seed, no initial guess, so
    # the same answers give the same tree; the tree is built once and cut at each number
    # of groups, and the cut kept is the one whose groups stand apart best (the highest
    # silhouette, the fewest groups on a tie), so nobody picks a distance by hand.
    distances = cosine_distances(rows)
    tree = AgglomerativeClustering(metric="precomputed", linkage="average",
                                   distance_threshold=0.0, n_clusters=None,
                                   compute_full_tree=True).fit(distances)
    best, best_score = [0] * count, -2.0
    for groups in range(2, min(most_groups, count - 1, _rule_of_thumb(count)) + 1):
        cut = _cut(tree.children_, count, groups)
        score = round(float(silhouette_score(distances, cut, metric="precomputed")), 9)
        if score > best_score:
            best, best_score = cut, score
    return best, rows, terms


def _labels(rows: Any, members: list[list[int]], terms: list[str]) -> list[tuple[str, ...]]:
    """The most telling terms of each group of `members`: those whose mean TF-IDF weight in
    the group stands out most against the mean over the other answers."""
    import numpy  # scikit-learn's own dependency, loaded with it: only when grouping

    if rows is None:
        return [()] * len(members)

    def mean(indices: list[int]) -> Any:
        return numpy.asarray(rows[indices].mean(axis=0)).ravel()

    labels = []
    everyone = set(range(rows.shape[0]))
    for group in members:
        rest = sorted(everyone - set(group))
        standout = mean(group) - mean(rest) if rest else mean(group)
        ranked = sorted(((-weight, term) for weight, term in zip(standout, terms)
                         if weight > 0))
        labels.append(tuple(shown_term(term) for _, term in ranked[:LABEL_WORDS]))
    return labels


def group_answers(answers: Sequence[ExplainAnswer], most_groups: int = MOST_GROUPS,
                  by_values: bool = True) -> list[Group]:
    """`answers` in groups that read alike, largest first, then by key: the blank answers
    one group of their own (``blank``), the others grouped by a TF-IDF of their text as
    `normalise` writes it (with `by_values` false, of their text as written, lower-cased:
    what the grouping would be without the students' values). The same answers give the
    same groups, in any order.

    Raises ValueError when a student has two answers."""
    twice = sorted(student for student, count in
                   Counter(answer.student for answer in answers).items() if count > 1)
    if twice:
        raise ValueError(f"each student has one answer; {', '.join(twice)} "
                         f"{'has' if len(twice) == 1 else 'have'} more")
    ordered = sorted(answers, key=lambda answer: answer.student)
    blank = [answer.student for answer in ordered if is_blank(answer.text)]
    written = [answer for answer in ordered if not is_blank(answer.text)]
    groups = [Group(group_key(blank), (), tuple(blank), True)] if blank else []
    if written:
        texts = [normalise(answer.text, answer.values) if by_values
                 else " ".join(answer.text[:READ_AT_MOST].lower().split())
                 for answer in written]
        found, rows, terms = _clustered(texts, most_groups)
        members = [[index for index, group in enumerate(found) if group == number]
                   for number in range(max(found) + 1)]
        for group, label in zip(members, _labels(rows, members, terms)):
            names = tuple(written[index].student for index in group)
            groups.append(Group(group_key(names), label, names, False))
    return sorted(groups, key=lambda group: (-len(group.students), group.key))


def _matches(number: WrittenNumber, index: list[tuple[float, str, str]]) -> list[tuple[str, str]]:
    """(student, value name) of each value of `index` (sorted by value) that is `number`."""
    low = bisect_left(index, (number.value - number.precision,))
    high = bisect_right(index, (number.value + number.precision, "\uffff"))
    return [(student, name) for value, student, name in index[low:high]
            if same_number(number, value)]


def integrity_flags(answers: Sequence[ExplainAnswer],
                    public: Iterable[float | int] = ()) -> dict[str, list[Flag]]:
    """{student: their flags}: each number an answer holds (in its first READ_AT_MOST
    characters), written to 4 digits or more, that is a telling value (5 digits or more) of
    other students and none of the writer's own values nor of the `public` numbers (the
    site's own figures). Students with no flag are left out."""
    public = [value for value in public if not isinstance(value, bool)]
    index = sorted((float(value), answer.student, name) for answer in answers
                   for name, value in _numeric(answer.values).items()
                   if math.isfinite(value) and abs(value) >= TELLING_AT_LEAST)
    flags: dict[str, list[Flag]] = {}
    for answer in sorted(answers, key=lambda answer: answer.student):
        own, found = list(_numeric(answer.values).values()), []
        for number in written_numbers(answer.text[:READ_AT_MOST]):
            if (number.significant_digits < TELLING_WRITTEN_DIGITS
                    or any(same_number(number, value) for value in own + public)):
                continue
            owners: dict[str, set[str]] = {}
            for student, name in _matches(number, index):
                if student != answer.student:
                    owners.setdefault(name, set()).add(student)
            found += [Flag(answer.student, number.text, name, tuple(sorted(whose)))
                      for name, whose in sorted(owners.items())]
        if found:
            flags[answer.student] = found
    return flags
