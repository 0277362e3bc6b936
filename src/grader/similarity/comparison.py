"""Every pair of students compared on their fingerprints, what everyone shares left out.

A fingerprint is no evidence when it is in the instructor's code (the
released notebook and its solutions, which the site teaches) or in the
answers of more than `common_fraction` of the class (an idiom everyone
writes, as MOSS discounts base code). Of what is left, a pair's similarity is
the share of the two students' fingerprints that both have (Dice's
coefficient): 1 when they are the same, and a near-empty submission cannot
look like a copy (each set counts as at least MIN_FINGERPRINTS). Dead code
added to a copy is dropped before fingerprinting (fingerprints.py).
"""

from dataclasses import dataclass, field
from itertools import combinations

from .answers import ClassAnswers
from .fingerprints import K, WINDOW, Gram, Span, kgrams, names_of, winnowed

MIN_FINGERPRINTS = 12  # a smaller set counts as this many: a few lines are no evidence
MIN_COMMON = 5  # code that this many students share may still be copied
SHOWN_PASSAGES = 12  # cell pairs shown for one pair of students


@dataclass
class Fingerprinted:
    """One student's k-grams and token spans (for the passages) and the fingerprints
    kept as evidence."""

    grams: list[Gram]
    token_spans: list[list[Span]]  # per cell, the (start, end) characters of each token
    evidence: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Pair:
    """Two students compared: how similar their evidence is, and how much they share."""

    student_a: str
    student_b: str
    similarity: float
    shared: int  # fingerprints both have
    above_threshold: bool


@dataclass
class Comparison:
    """The outcome for one assignment: the pairs, most similar first, and what was left out."""

    answers: ClassAnswers
    pairs: list[Pair]
    fingerprints: dict[str, Fingerprinted]  # by student
    discounted: set[int]  # hashes that are no evidence
    threshold: float
    common_limit: int  # a fingerprint in more students than this is an idiom
    k: int = K  # tokens in a k-gram


def common_limit(students: int, fraction: float) -> int:
    """The most students a fingerprint may be in and still count: `fraction` of the class,
    and never fewer than MIN_COMMON (in a small class, a few students alike is evidence)."""
    return max(MIN_COMMON, int(fraction * students))


def fingerprint_class(answers: ClassAnswers, common_fraction: float, k: int = K,
                      window: int = WINDOW
                      ) -> tuple[dict[str, Fingerprinted], set[int], int]:
    """({student: Fingerprinted}, discounted hashes, common limit)."""
    shared_names = names_of(answers.shared)
    shared_names.required = set(shared_names.bound)  # the instructor's code is never dead
    discounted = {g.hash for g in kgrams(answers.shared, shared_names, k)[0]}
    found = {}
    for student, cells in answers.students.items():
        sources = [c.source for c in cells]
        names = names_of(sources, answers.required)
        # what the instructor's set-up binds (torch, GPTModel, my_model, ...) is bound in the
        # student's notebook too: generalised alike on both sides, the taught code matches
        names.bound |= shared_names.bound
        grams, spans = kgrams(sources, names, k)
        found[student] = Fingerprinted(grams, spans, winnowed(grams, window))
    limit = common_limit(len(found), common_fraction)
    counts = {}
    for record in found.values():
        for value in {g.hash for g in record.grams}:
            counts[value] = counts.get(value, 0) + 1
    discounted |= {value for value, count in counts.items() if count > limit}
    for record in found.values():
        record.evidence -= discounted
    return found, discounted, limit


def similarity(a: set[int], b: set[int], shared: int | None = None) -> float:
    """The share of the two students' fingerprints that both have, 2|A & B| / (|A| + |B|)
    (Dice's coefficient), each set counted as at least MIN_FINGERPRINTS; `shared` is
    |A & B| when it is known."""
    if not a or not b:
        return 0.0
    shared = len(a & b) if shared is None else shared
    return 2 * shared / (max(len(a), MIN_FINGERPRINTS) + max(len(b), MIN_FINGERPRINTS))


def compare_class(answers: ClassAnswers, threshold: float, common_fraction: float,
                  k: int = K, window: int = WINDOW) -> Comparison:
    """Every pair of `answers`' students, most similar first (then by name)."""
    found, discounted, limit = fingerprint_class(answers, common_fraction, k, window)
    pairs = []
    for a, b in combinations(sorted(found), 2):
        shared = len(found[a].evidence & found[b].evidence)
        score = round(similarity(found[a].evidence, found[b].evidence, shared), 4)
        pairs.append(Pair(a, b, score, shared, score >= threshold))
    pairs.sort(key=lambda p: (-p.similarity, p.student_a, p.student_b))
    return Comparison(answers, pairs, found, discounted, threshold, limit, k)


def merged(spans: list[Span], source: str) -> list[Span]:
    """(start, end) character spans of `source` joined where they overlap or only spaces
    on one line part them, in order."""
    result = []
    for start, end in sorted(spans):
        if result and (start <= result[-1][1] or not source[result[-1][1]:start].strip(" \t")):
            result[-1] = (result[-1][0], max(result[-1][1], end))
        else:
            result.append((start, end))
    return result


def token_spans(record: Fingerprinted, gram: Gram, k: int) -> list[Span]:
    """The character spans of the k tokens of `gram` (none of the comments between them)."""
    return [span for span in record.token_spans[gram.cell][gram.first:gram.first + k]
            if span[1] > span[0]]


def passages(comparison: Comparison, pair: Pair
             ) -> list[tuple[int, list[Span], int, list[Span], int]]:
    """[(cell index of a, spans in a, cell index of b, spans in b, k-grams shared)]: the cell
    pairs that share evidence, most shared first, at most SHOWN_PASSAGES."""
    record_a = comparison.fingerprints[pair.student_a]
    record_b = comparison.fingerprints[pair.student_b]
    in_b = {}
    for gram in record_b.grams:
        if gram.hash not in comparison.discounted:
            in_b.setdefault(gram.hash, []).append(gram)
    cells = {}  # (cell a, cell b) -> (spans a, spans b, hashes)
    for gram in record_a.grams:
        for other in in_b.get(gram.hash, ()):
            spans_a, spans_b, hashes = cells.setdefault((gram.cell, other.cell), ([], [], set()))
            spans_a += token_spans(record_a, gram, comparison.k)
            spans_b += token_spans(record_b, other, comparison.k)
            hashes.add(gram.hash)
    ranked = sorted(cells.items(), key=lambda item: (-len(item[1][2]), item[0]))
    sources_a = [c.source for c in comparison.answers.students[pair.student_a]]
    sources_b = [c.source for c in comparison.answers.students[pair.student_b]]
    return [(cell_a, merged(spans_a, sources_a[cell_a]), cell_b,
             merged(spans_b, sources_b[cell_b]), len(hashes))
            for (cell_a, cell_b), (spans_a, spans_b, hashes) in ranked[:SHOWN_PASSAGES]]
