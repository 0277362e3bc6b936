"""Comparing a class: the released code, the solutions and what many students wrote alike
are no evidence; every pair is in the CSV; the page escapes student text; a synthetic
class's planted copies are found."""

import ast
import csv
import os
import textwrap

import pytest

from grader.similarity import (AnswerCell, ClassAnswers, compare_class, read_class,
                               write_similarity)
from grader.similarity.fingerprints import kgrams, names_of, winnowed
from grader.similarity.answers import read_names
from grader.similarity.report import CSV_FIELDS, highlighted, render_similarity, similarity_rows
from grader.cli import main
from grader.settings import load
from testsupport.course import copy_course
from testsupport.similar_students import HONEST, hand_in_each, synthetic_class


def code(text):
    return textwrap.dedent(text).strip("\n") + "\n"


REQUIRED = {"count_parameters", "model_size_mib", "model"}


def fingerprints(cells, required=REQUIRED):
    return winnowed(kgrams(cells, names_of(cells, required))[0])


def answers_of(students, shared=(), required=None):
    """ClassAnswers of {student: [source]}; the checks read the OWN helpers' names."""
    required = REQUIRED | HELPERS if required is None else required
    return ClassAnswers("homework", {
        student: [AnswerCell("homework", at, "answer", source) for at, source in enumerate(cells, 1)]
        for student, cells in students.items()}, list(shared), set(required))


OWN = [code(source) for source in (  # twelve helpers, each written its own way
    """
    def largest_layer(model):
        best, best_name = 0, None
        for name, p in model.named_parameters():
            if p.numel() > best:
                best, best_name = p.numel(), name
        return best_name
    """,
    """
    def shapes_table(model):
        rows = []
        for name, p in model.named_parameters():
            rows.append(f"{name:40s} {tuple(p.shape)}")
        print("\\n".join(rows))
    """,
    """
    def fraction_in_embeddings(model):
        emb = model.tok_emb.weight.numel() + model.pos_emb.weight.numel()
        return emb / count_parameters(model)
    """,
    """
    class Counter:
        def __init__(self):
            self.seen = {}

        def add(self, tensor):
            self.seen.setdefault(id(tensor), tensor.numel())
            return self

        def total(self):
            return sum(self.seen.values())
    """,
    """
    def check_counts(model):
        try:
            assert count_parameters(model) > 0, "empty model"
        except AssertionError as error:
            print("problem:", error)
            raise
    """,
    """
    import time
    def timed(fn, *args):
        start = time.perf_counter()
        value = fn(*args)
        print(f"{fn.__name__} took {time.perf_counter() - start:.3f} s")
        return value
    """,
    """
    def by_block(model):
        return {i: sum(p.numel() for p in block.parameters())
                for i, block in enumerate(model.trf_blocks)}
    """,
    """
    def human(n):
        for unit in ["", "K", "M", "G"]:
            if abs(n) < 1000:
                return f"{n:.1f}{unit}"
            n /= 1000
        return f"{n:.1f}T"
    """,
    """
    def same_storage(a, b):
        if a.is_meta or b.is_meta:
            return a is b
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    """,
    """
    def trainable_only(model):
        return sum(w.numel() for w in filter(lambda w: w.requires_grad, model.parameters()))
    """,
    """
    def layer_sizes(config):
        d = config["emb_dim"]
        attention = 4 * d * d + (3 * d if config["qkv_bias"] else 0) + d
        mlp = 8 * d * d + 5 * d
        return attention, mlp
    """,
    """
    def report(values):
        width = max(len(k) for k in values)
        while values:
            key, value = values.popitem()
            print(key.rjust(width), value)
    """,
)]


HELPERS = {node.name for source in OWN for node in ast.parse(source).body
           if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def test_the_released_code_and_its_solutions_are_no_evidence():
    """Two students whose answers are the instructor's own code, each with a different
    helper of their own, are not alike: the taught idiom is discounted."""
    taught = code("""
        def count_parameters(model):
            return sum(p.numel() for p in model.parameters())
        """)
    answers = answers_of({"ann": [taught, OWN[0]], "bob": [taught, OWN[5]]},
                         shared=["def count_parameters(model):\n    raise NotImplementedError()\n",
                                 taught])
    comparison = compare_class(answers, 0.5, 0.2)
    assert [(p.student_a, p.student_b, p.similarity) for p in comparison.pairs] == [
        ("ann", "bob", 0.0)]
    without_discount = compare_class(answers_of({"ann": [taught, OWN[0]],
                                                 "bob": [taught, OWN[5]]}), 0.5, 0.2)
    assert without_discount.pairs[0].similarity > 0.2  # the idiom itself is shared


def test_two_students_writing_the_taught_solution_with_the_set_ups_names_are_not_alike():
    """The real notebook's set-up binds torch, GPTModel, my_model, ...; the answers use
    them as the solutions do. Generalised alike in the instructor's code and in the
    students', the taught code is discounted: two honest students are below the
    threshold, and a real copy of one of them is still above it."""
    from grader.similarity.answers import RELEASED_STUB
    from testsupport.course import read_notebook, solution_answers

    shared = [RELEASED_STUB] + ["".join(c["source"]) for c in
                                read_notebook("solutions", "parameters")["cells"]
                                if c["cell_type"] == "code"]
    taught = list(solution_answers("parameters").values())
    assert any("my_model" in t for t in taught) and any("torch" in t for t in taught)
    students = {"ann": taught + [OWN[1]], "bob": taught + [OWN[9]],
                "copy": [OWN[1]] + taught}  # ann's answers, her helper moved first
    comparison = compare_class(answers_of(students, shared, read_names(shared) | HELPERS),
                               0.6, 0.2)
    scores = {(p.student_a, p.student_b): p.similarity for p in comparison.pairs}
    assert scores[("ann", "bob")] < 0.6 and scores[("bob", "copy")] < 0.6
    assert scores[("ann", "copy")] >= 0.6
    assert comparison.pairs[0].student_a == "ann" and comparison.pairs[0].student_b == "copy"


def test_code_that_many_students_wrote_alike_is_no_evidence():
    """A helper that 8 of 12 students wrote alike (more than 20% of the class and more
    than the floor of 5) is discounted; two students with the same unusual helper are not."""
    common = OWN[11]
    students = {f"s{n:02d}": [OWN[n]] + ([common] if n < 8 else []) for n in range(11)}
    students["s11"] = [OWN[3]]  # s03's own helper, written again
    comparison = compare_class(answers_of(students), 0.5, 0.2)
    assert comparison.common_limit == 5
    scores = {(p.student_a, p.student_b): p.similarity for p in comparison.pairs}
    helper = fingerprints([common], HELPERS)
    assert helper and helper <= comparison.discounted
    assert not any(helper & record.evidence for record in comparison.fingerprints.values())
    counted = compare_class(answers_of(students), 0.5, 1.0)  # nothing is too common
    assert {(p.student_a, p.student_b): p.similarity for p in counted.pairs}[("s02", "s04")] > 0.5
    assert scores[("s02", "s04")] == 0.0
    assert scores[("s03", "s11")] == 1.0
    assert [p for p in comparison.pairs if p.above_threshold] == [comparison.pairs[0]]


def test_the_csv_has_every_pair_most_similar_first_with_its_columns():
    students = {f"s{n}": [OWN[n]] for n in range(5)}
    students["s5"] = [OWN[2]]
    comparison = compare_class(answers_of(students), 0.5, 0.2)
    rows = similarity_rows(comparison)
    assert list(rows[0]) == CSV_FIELDS == ["student_a", "student_b", "similarity",
                                           "above_threshold"]
    assert len(rows) == 6 * 5 // 2
    assert rows[0] == {"student_a": "s2", "student_b": "s5", "similarity": "1.0000",
                       "above_threshold": "true"}
    scores = [float(r["similarity"]) for r in rows]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    assert {r["above_threshold"] for r in rows[1:]} == {"false"}
    assert all(r["student_a"] < r["student_b"] for r in rows)


def test_student_text_on_the_page_is_escaped_and_the_matches_are_marked():
    assert highlighted("a < b # </pre><script>", [(0, 5)]) == (
        "<mark>a &lt; b</mark> # &lt;/pre&gt;&lt;script&gt;")
    hostile = OWN[4] + "print('</code></pre><script>alert(1)</script>')\n"
    students = {"<img src=x onerror=alert(1)>": [hostile], "bob": [OWN[4]], "cy": [OWN[6]]}
    page = render_similarity(compare_class(answers_of(students), 0.5, 0.2))
    assert "<script>" not in page and "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt; and bob" in page
    assert "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;" in page
    assert page.count("<mark>") >= 2 and 'lang="en"' in page and "http" not in page


# --- a synthetic class: 40 honest students and 6 planted copies -------------------------

@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """The synthetic class handed in to a course copy, with three broken submissions."""
    course = copy_course(str(tmp_path_factory.mktemp("similarity") / "course"))
    students, planted = synthetic_class()
    hand_in_each(course, students)
    submitted = os.path.join(course, "course-data", "submitted")
    for name, text in (("broken-json", "{not json"), ("web-page", "<!DOCTYPE html><html>")):
        folder = os.path.join(submitted, name, "parameters")
        os.makedirs(folder)
        with open(os.path.join(folder, "parameters.ipynb"), "w") as handle:
            handle.write(text)
    os.makedirs(os.path.join(submitted, "no-notebook", "parameters"))
    os.symlink(os.path.join(submitted, "student-00"), os.path.join(submitted, "linked"))
    settings = load(course)
    answers = read_class(settings, "parameters")
    comparison = compare_class(answers, settings.similarity_threshold,
                               settings.similarity_common_fraction)
    return settings, answers, planted, comparison


def test_unreadable_submissions_are_listed_with_their_reason_and_the_rest_compared(synthetic):
    settings, answers, planted, _ = synthetic
    assert len(answers.students) == HONEST + len(planted)
    assert answers.not_compared == {
        "broken-json": "parameters.ipynb: notebook could not be read: not JSON "
                       "(Expecting property name enclosed in double quotes at line 1)",
        "web-page": "parameters.ipynb: notebook could not be read: HTML, not a notebook "
                    "(it was saved or downloaded as a web page)",
        "no-notebook": "no notebook handed in (parameters.ipynb)",
        "linked": "submission folder is a symbolic link; not graded"}


def test_answer_cells_and_added_cells_are_compared_never_the_instructors_cells(synthetic):
    settings, answers, planted, _ = synthetic
    labels = [c.label for c in answers.students["student-00"]]
    assert labels == ["added cell", "output_shape_answer", "count_parameters_answer",
                      "values_answer", "count_tied_parameters_answer", "model_size_mib_answer",
                      "count_on_meta_answer", "gpt2_totals_answer"]
    sources = "".join(c.source for cells in answers.students.values() for c in cells)
    assert "Check that" not in sources  # no test cell
    assert "torch.manual_seed(123)" not in sources  # no set-up cell


def test_every_planted_copy_ranks_above_every_honest_pair_and_only_copies_cross(synthetic):
    settings, answers, planted, comparison = synthetic
    copies = {tuple(sorted(pair)) for pair in planted}
    ranked = [(p.student_a, p.student_b) for p in comparison.pairs]
    assert len(ranked) == 46 * 45 // 2
    assert set(ranked[:len(copies)]) == copies
    flagged = {(p.student_a, p.student_b) for p in comparison.pairs if p.above_threshold}
    found = len(flagged & copies)
    precision, recall = found / len(flagged), found / len(copies)
    print(f"precision {precision:.2f}, recall {recall:.2f}; lowest copy "
          f"{comparison.pairs[len(copies) - 1].similarity:.2f}, highest honest pair "
          f"{comparison.pairs[len(copies)].similarity:.2f}, threshold {comparison.threshold}")
    assert (precision, recall) == (1.0, 1.0)
    assert comparison.pairs[len(copies) - 1].similarity >= 0.9
    assert comparison.pairs[len(copies)].similarity < 0.4


def test_the_page_shows_each_flagged_pair_side_by_side(synthetic):
    settings, answers, planted, comparison = synthetic
    page = render_similarity(comparison)
    for rank, pair in enumerate(comparison.pairs[:len(planted)], 1):
        assert f'<h2 id="pair-{rank}">{rank}. {pair.student_a} and {pair.student_b}' in page
    assert page.count('<div class=sides>') >= len(planted)
    assert "broken-json" in page and "symbolic link" in page
    assert f"Pairs at or above the threshold ({len(planted)})" in page


def test_the_csv_written_reads_back(synthetic):
    settings, answers, planted, _ = synthetic
    csv_path, page_path = write_similarity(settings, "parameters")
    assert csv_path == os.path.join(settings.reports, "similarity-parameters.csv")
    assert page_path == os.path.join(settings.reports, "similarity-parameters.html")
    with open(csv_path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 46 * 45 // 2
    assert sum(r["above_threshold"] == "true" for r in rows) == len(planted)
    assert {tuple(sorted((r["student_a"], r["student_b"]))) for r in rows[:len(planted)]} == {
        tuple(sorted(p)) for p in planted}


@pytest.mark.parametrize("threshold", ["1.5", "-0.1"])
def test_a_threshold_outside_0_to_1_is_refused_before_anything_is_read(threshold, capsys,
                                                                        tmp_path):
    assert main(["similarity", "--threshold", threshold, "--course", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: --threshold takes a similarity from 0 to 1\n"
    assert os.listdir(tmp_path) == []


def test_a_notebook_past_the_budget_costs_the_report_a_bounded_share_and_says_what_was_left_out(
        tmp_path):
    """300 cells of about 1,000 characters, more than MAX_STUDENT_CHARS in all: the report
    compares at most MAX_STUDENT_CHARS of it, so its tokens and k-grams are bounded by
    that too, whatever the notebook's size under the caps, and the page says so
    (benchmarks/similarity_caps.py times one of 300 cells of 88,000 characters)."""
    from grader.similarity.answers import MAX_STUDENT_CHARS
    from testsupport.hand_in import hand_in
    from testsupport.similar_students import notebook_at_the_caps

    course = copy_course(str(tmp_path / "course"))
    big = notebook_at_the_caps(300, 1_000)
    written = sum(len(cell["source"]) for cell in big["cells"])
    assert written > MAX_STUDENT_CHARS
    hand_in(course, "big", "parameters", {"parameters.ipynb": big})
    hand_in(course, "small", "parameters", {"parameters.ipynb": notebook_at_the_caps(2, 500)})
    answers = read_class(load(course), "parameters")
    compared = sum(len(cell.source) for cell in answers.students["big"])
    assert MAX_STUDENT_CHARS - 1_100 < compared <= MAX_STUDENT_CHARS
    comparison = compare_class(answers, 0.6, 0.2)
    fingerprinted = comparison.fingerprints["big"]
    assert len(fingerprinted.grams) <= sum(len(s) for s in fingerprinted.token_spans)
    assert sum(len(s) for s in fingerprinted.token_spans) <= MAX_STUDENT_CHARS
    cut_cells = 300 - len(answers.students["big"])
    assert answers.compared_in_part == {"big": (
        f"{written - compared:,} characters left out ({cut_cells} cells not compared at all): "
        "a student's first 300 cells are compared, the first 100,000 characters of each and "
        "200,000 in all")}
    page = render_similarity(comparison)
    assert "<h2>Compared in part (1)</h2>" in page
    assert f"({cut_cells} cells not compared at all)" in page


def test_code_that_would_act_on_a_browser_or_terminal_shows_as_its_escapes(tmp_path):
    """A class of twelve where a student and their copier hand in a cell holding ESC
    sequences (clear, OSC 52 clipboard, hidden text), CSI as U+009B, DEL and a bidi
    override that would show the code reordered: the page holds none of those
    characters, each shows as its escape, and the command's own lines hold none either."""
    import unicodedata

    from testsupport.similar_students import hand_in_each, synthetic_class

    course = copy_course(str(tmp_path / "course"))
    students, planted = synthetic_class(honest=12)
    hostile = ("# \x1b[2J\x1b]52;c;cm0gLXJmIH4vCg==\x07\x1b[8mhidden\x1b[0m\x9b2J\x7f\n"
               "is_admin = False  # \u202e } \u2066if is_admin\u2069 \u2066 begin admins only\n")
    copier, original = next((c, o) for c, o in planted if o in students)
    class_of = {name: students[name] for name in students if name.startswith("student-")}
    class_of[copier] = students[copier]
    for name in (copier, original):
        cell = next(c for c in class_of[name]["cells"] if c["cell_type"] == "code"
                    and c["metadata"].get("nbgrader", {}).get("solution"))
        cell["source"] = "".join(cell["source"]) + hostile
    hand_in_each(course, class_of)
    assert main(["similarity", "parameters", "--course", course]) == 0
    with open(os.path.join(course, "course-data", "reports", "similarity-parameters.html"),
              encoding="utf-8") as handle:
        page = handle.read()
    acting = {c for c in page if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f
              or unicodedata.category(c) in ("Cf", "Zl", "Zp")}
    assert acting == set()
    assert "Pairs at or above the threshold (1)" in page
    assert page.count("# \\x1b[2J\\x1b]52;c;cm0gLXJmIH4vCg==\\x07\\x1b[8mhidden\\x1b[0m"
                      "\\x9b2J\\x7f") == 2
    assert page.count("# \\u202e } \\u2066if is_admin\\u2069 \\u2066 begin admins only") == 2
