"""What the leak scan searches for (grader.publish.fragments): every solution and hidden-test
block of the instructor's notebooks, whole and by distinctive line, and every text of the
rubrics; nothing short, and no line the course publishes on purpose."""

import html
import json
import os

import nbformat
import pytest

from grader.publish import (CANARIES, MIN_CHARS, SecretKind, scan_bytes, scan_folder,
                            secret_fragments, squeeze)
from grader.publish.bundle import bundle_fragments, package_sources
from grader.publish.fragments import (PublicText, cell_text, course_public_text,
                                      rubric_fragments, secret_blocks)
from grader.publish.leak_scan import FragmentIndex
from grader.publish.release_check import released_notebooks_folder
from grader.publish.solutions_policy import solution_notebooks
from grader.rubric import filled, load_rubric, rubric_path
from grader.settings import load
from testsupport.course import ROOT
from testsupport.tiny_course import HIDDEN_MARK

SOLUTION_CELL = {"cell_type": "code", "metadata": {"nbgrader": {
    "grade_id": "answer", "solution": True}}, "source": [
    "def count(model):\n", "    ### BEGIN SOLUTION\n", "    return len(list(model))\n",
    "    ### END SOLUTION\n"]}
CHECK_CELL = {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "check", "grade": True}},
              "source": '"""Check count"""\nassert count([]) == 0\n### BEGIN HIDDEN TESTS\n'
                        'assert count([1]) == 1\n### END HIDDEN TESTS\n'}


def test_regions_are_blocks_of_their_kind_and_a_solution_cell_without_markers_is_one_whole():
    assert secret_blocks(SOLUTION_CELL) == [(SecretKind.SOLUTION, "    return len(list(model))")]
    assert secret_blocks(CHECK_CELL) == [(SecretKind.HIDDEN_TEST, "assert count([1]) == 1")]
    whole = {"cell_type": "markdown", "source": "It has 12 layers.",
             "metadata": {"nbgrader": {"solution": True, "grade_id": "why"}}}
    assert secret_blocks(whole) == [(SecretKind.SOLUTION, "It has 12 layers.")]


def test_the_tiny_courses_hidden_test_gives_its_block_and_its_long_lines_only(tiny_course):
    fragments = secret_fragments(load(tiny_course), PublicText("", ""))
    hidden = {f.squeezed: f.whole for f in fragments if f.kind is SecretKind.HIDDEN_TEST}
    assert hidden == {
        squeeze(f"# {HIDDEN_MARK}\nfor value in (21, -7, 0):\n    expected = 2 * value\n"
                "    result = double(value)\n"
                '    assert type(result) is int, "double should return an int"\n'
                '    assert result == expected, "double gave a wrong value"'): True,
        squeeze(f"# {HIDDEN_MARK}"): False,
        squeeze('assert type(result) is int, "double should return an int"'): False,
        squeeze('assert result == expected, "double gave a wrong value"'): False,
    }  # `for value in (21, -7, 0):` and `result = double(value)` are too short to tell
    # the solutions, `return 2 * x`, `return torch.ones(n)`, `answer = 42`, are all too short
    assert [f for f in fragments if f.kind is SecretKind.SOLUTION] == []
    assert sorted(f.squeezed for f in fragments if f.kind is SecretKind.CANARY) == sorted(
        squeeze(c) for c in CANARIES)
    assert min(len(f.squeezed) for f in fragments if f.kind is not SecretKind.CANARY) >= MIN_CHARS


def write_course(root, released_text, shown_on_page):
    """A course whose one solution block has two long lines; the released notebook shows
    `released_text` and the book's page `shown_on_page`."""
    config = "c = get_config()\nc.CourseDirectory.source_directory = 'solutions'\n" \
             "c.CourseDirectory.release_directory = 'exercises'\n"
    (root / "nbgrader_config.py").write_text(config)
    for folder, text in (("solutions", None), ("exercises", released_text)):
        (root / folder / "a").mkdir(parents=True)
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell(
            "def f(model):\n    ### BEGIN SOLUTION\n    counted = sum(p.numel() for p in "
            "model.parameters())\n    return counted - model.out_head.weight.numel()\n"
            "    ### END SOLUTION" if text is None else text)
        cell.metadata["nbgrader"] = {"grade_id": "f_answer", "solution": True}
        nb.cells = [cell]
        nbformat.write(nb, str(root / folder / "a" / "a.ipynb"))
    (root / "book").mkdir()
    (root / "book" / "page.md").write_text(shown_on_page)
    return load(str(root))


LINE_1 = "counted = sum(p.numel() for p in model.parameters())"
LINE_2 = "return counted - model.out_head.weight.numel()"
BLOCK = squeeze(LINE_1 + LINE_2)


@pytest.mark.parametrize("released, page, expected", [
    ("raise NotImplementedError()", "# a page", {BLOCK, squeeze(LINE_1), squeeze(LINE_2)}),
    (f"# the count so far\n{LINE_1}", "# a page", {BLOCK, squeeze(LINE_2)}),
    ("raise NotImplementedError()", f"```\n{LINE_2}\n```", {BLOCK, squeeze(LINE_1)}),
    (f"{LINE_1}\n{LINE_2}", "# a page", set()),  # the released notebook shows it all
    ("raise NotImplementedError()", f"{LINE_1}\n{LINE_2}", {BLOCK}),  # a page never hides it
], ids=["nothing published", "a line in the released notebook", "a line on a page",
        "the whole block released", "the whole block on a page"])
def test_what_the_course_publishes_on_purpose_is_no_fragment(tmp_path, released, page, expected):
    settings = write_course(tmp_path, released, page)
    public = course_public_text(settings, released_notebooks_folder(settings), [])
    found = {f.squeezed for f in secret_fragments(settings, public)
             if f.kind is SecretKind.SOLUTION}
    assert found == expected


@pytest.fixture(scope="module")
def course():
    settings = load(ROOT)
    public = course_public_text(settings, released_notebooks_folder(settings),
                                package_sources(settings))
    return settings, public, bundle_fragments(settings, [])


def test_every_hidden_test_of_the_course_can_be_found_and_every_solution_unless_released(course):
    """A block without a fragment could leak unseen: a hidden test never may; a solution only
    where the course shows it on purpose (in a released notebook or the package, whole)."""
    settings, public, fragments = course
    unfindable = []
    for assignment in settings.assignments:
        for path in settings.instructor_notebooks(assignment).values():
            with open(path, encoding="utf-8") as handle:
                cells = json.load(handle)["cells"]
            for cell in cells:
                grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
                for kind, text in secret_blocks(cell):
                    mine = [f for f in fragments if (f.grade_id, f.kind) == (grade_id, kind)]
                    if not mine and (kind is SecretKind.HIDDEN_TEST or not public.holds_block(
                            squeeze(text))):
                        unfindable.append(f"{os.path.basename(path)} {grade_id} ({kind})")
    assert unfindable == []
    assert sum(f.kind is SecretKind.HIDDEN_TEST for f in fragments) > sum(
        f.kind is SecretKind.SOLUTION for f in fragments) > 0


RUBRIC = '''cell: f_explain
values: |
  from gptcourse import GPT_CONFIG_124M
  emb_dim = GPT_CONFIG_124M["emb_dim"]
items:
  - key: width
    points: 1
    description: "names the width of the embedding, {emb_dim}"
    explanation: "Each token's row of the embedding holds {emb_dim} numbers: its width."
    note: "Half a point off for quoting the width of another model."
defense:
  - question: "How wide is each row?"
    answer: "{emb_dim} numbers: the width."
'''


def test_a_rubrics_texts_are_fragments_whole_and_between_their_placeholders(tmp_path):
    """Every text of a rubric whole (the values too), and the pieces of a worded text between
    its placeholders; nothing short, nothing a page shows; a file that is not a rubric's
    YAML gives its lines."""
    settings = write_course(tmp_path, "raise NotImplementedError()",
                            "Each token's row of the embedding holds")
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "a.yaml").write_text(RUBRIC)
    (tmp_path / "rubrics" / "b.yaml").write_text("items: [\n  - the graders' note: half off\n")
    public = course_public_text(settings, released_notebooks_folder(settings), [])
    found = {(f.squeezed, f.whole, f.where()) for f in rubric_fragments(settings, public)}
    assert found == {
        (squeeze("names the width of the embedding, {emb_dim}"), True,
         "a text of rubrics/a.yaml, item width, its description"),
        (squeeze("names the width of the embedding, "), False,
         "a piece of a text of rubrics/a.yaml, item width, its description"),
        (squeeze("Each token's row of the embedding holds {emb_dim} numbers: its width."), True,
         "a text of rubrics/a.yaml, item width, its explanation"),
        # its first piece is on a page; ` numbers: its width.` is too short
        (squeeze("Half a point off for quoting the width of another model."), True,
         "a text of rubrics/a.yaml, item width, its note"),
        (squeeze("{emb_dim} numbers: the width."), True,
         "a text of rubrics/a.yaml, defense question 1, its answer"),
        (squeeze('from gptcourse import GPT_CONFIG_124M\nemb_dim = GPT_CONFIG_124M["emb_dim"]'),
         True, "a text of rubrics/a.yaml, its values"),
        (squeeze("  - the graders' note: half off"), True, "a text of rubrics/b.yaml, line 2"),
    }  # `How wide is each row?` is too short to tell


def test_a_rubrics_words_are_found_where_they_leak_and_the_rubric_named(course):
    """An item's explanation with a student's numbers written in, on a page, and the rubric
    file itself, in a folder of the site."""
    settings, _, fragments = course
    rubric = load_rubric(rubric_path(settings.root, "parameters"))
    explanation = filled(rubric.item("head").explanation, {
        "head": 38597376, "vocab_size": 50257, "emb_dim": 768})
    index = FragmentIndex(fragments)
    leaks = scan_bytes("book/feedback.html", f"<p>{html.escape(explanation)}</p>".encode(),
                       index)
    assert {leak.line() for leak in leaks if leak.fragment.kind is SecretKind.RUBRIC} == {
        "book/feedback.html: a piece of a text of rubrics/parameters.yaml, item head, its "
        "explanation"}  # (the model answer of solutions/ says much the same: found too)
    with open(rubric.path, "rb") as handle:
        leaks = scan_bytes("_static/parameters.yaml", handle.read(), index)
    assert {leak.fragment.part for leak in leaks if leak.fragment.whole} >= {
        "item counts, its note", "item head, its explanation", "defense question 1, its answer",
        "its values"}


def test_the_courses_own_pages_released_notebooks_and_package_hold_no_fragment(course):
    """What the course publishes on purpose makes no false alarm, the rubrics' words included
    (tests/publish scans the built bundle)."""
    settings, _, fragments = course
    for folder in ("book", "exercises", os.path.join("src", settings.package)):
        assert scan_folder(os.path.join(settings.root, folder), fragments) == [], folder
    assert sum(f.kind is SecretKind.RUBRIC for f in fragments) > 3 * len(settings.assignments)


@pytest.mark.parametrize("assignment", ["logits-to-text", "parameters", "sampling"])
def test_a_rubric_text_that_the_released_solutions_show_is_no_fragment(course, assignment):
    """Once an assignment's solutions are released (make release-solutions), its model
    answer is public, in words an item's explanation may share: the bundle stays
    publishable."""
    settings, _, before = course
    shown = "\0".join(squeeze(cell_text(cell))
                      for text in solution_notebooks(settings, assignment).values()
                      for cell in json.loads(text)["cells"])
    after = bundle_fragments(settings, [assignment])
    assert [f.where() for f in after if f.kind is SecretKind.RUBRIC and f.squeezed in shown] == []
    assert {f for f in before if f.kind is SecretKind.RUBRIC and f.squeezed not in shown} == {
        f for f in after if f.kind is SecretKind.RUBRIC}
