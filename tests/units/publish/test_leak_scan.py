"""The leak scan (grader.publish.leak_scan): a hidden test is found in every form a published
file can hold it in, page markup, escapes, notebooks, archives, and named by its file; text
that only looks like it is not."""

import gzip
import html
import io
import json
import random
import tarfile
import zipfile

import nbformat
import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from grader.publish import Fragment, SecretKind, scan_bytes, scan_folder, squeeze
from grader.publish.leak_scan import GRAM, INDEXED, FragmentIndex

HIDDEN = '''for unseen_cfg, unseen_count in unseen:
    assert count_tied_parameters(GPTModel(unseen_cfg)) == unseen_count, (
        "count_tied_parameters is wrong for an unseen untied model"
    )'''
FRAGMENT = Fragment(squeeze(HIDDEN), SecretKind.HIDDEN_TEST, "parameters", "parameters.ipynb",
                    "count_tied_parameters_unseen_configs", True)
INDEX = FragmentIndex([FRAGMENT])


def zipped(files):
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return data.getvalue()


def tarred(files):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return data.getvalue()


def notebook(source, outputs=()):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = list(outputs)
    nb.cells = [nbformat.v4.new_markdown_cell("# A page"), cell]
    return nbformat.writes(nb).encode()


PAGE = highlight(HIDDEN, PythonLexer(), HtmlFormatter())  # one <span> per token, escaped quotes
HTML_OUTPUT = nbformat.v4.new_output("display_data",
                                     data={"text/html": f"<pre>{html.escape(HIDDEN)}</pre>"})

# (what it is, the file's name, its bytes, where the scan must say the block is)
PLACES = [
    ("a page's source, indented and reflowed", "book/counting.md",
     ("```python\n" + "\n".join("        " + line for line in HIDDEN.split())).encode(),
     "book/counting.md"),
    ("a built page, the code split into Pygments spans", "book/counting.html",
     f"<html><body>{PAGE}</body></html>".encode(), "book/counting.html"),
    ("a built page that shows the code escaped twice", "book/mistakes.html",
     html.escape(PAGE).encode(), "book/mistakes.html"),
    ("a notebook, the block over the lines of a cell", "homework/parameters/parameters.ipynb",
     notebook("x = 1\n" + HIDDEN), "homework/parameters/parameters.ipynb"),
    ("a notebook's HTML output", "_sources/book/counting.ipynb",
     notebook("show()", [HTML_OUTPUT]), "_sources/book/counting.ipynb"),
    ("the search index, the text as a JavaScript string", "searchindex.js",
     f"Search.setIndex({json.dumps({'docs': [HIDDEN]})})".encode(), "searchindex.js"),
    ("a module of the wheel", "packages/gptcourse-1.0.0-py3-none-any.whl",
     zipped({"gptcourse/__init__.py": b"", "gptcourse/checks.py": HIDDEN.encode()}),
     "packages/gptcourse-1.0.0-py3-none-any.whl!gptcourse/checks.py"),
    ("a notebook in a zip in a tar.gz, however it is named", "_downloads/notes.dat",
     tarred({"course/notebooks.zip": zipped({"a.ipynb": notebook(HIDDEN)})}),
     "_downloads/notes.dat!course/notebooks.zip!a.ipynb"),
    ("gzip-compressed text", "_static/data.js.gz", gzip.compress(HIDDEN.encode()),
     "_static/data.js.gz"),
]


@pytest.mark.parametrize("what, name, data, where", PLACES, ids=[p[0] for p in PLACES])
def test_the_hidden_test_is_found_and_its_file_named(what, name, data, where):
    leaks = scan_bytes(name, data, INDEX)
    assert [(leak.path, leak.fragment) for leak in leaks] == [(where, FRAGMENT)]
    assert leaks[0].line() == (f"{where}: a hidden test block of solutions/parameters/"
                               "parameters.ipynb, cell count_tied_parameters_unseen_configs")


NEAR_MISSES = [
    ("another number", HIDDEN.replace("unseen_count", "unseen_total")),
    ("half of it", HIDDEN[:len(HIDDEN) // 2]),
    ("the words, not the code", " ".join(w for w in HIDDEN.split() if w.isalpha())),
]


@pytest.mark.parametrize("what, text", NEAR_MISSES, ids=[n[0] for n in NEAR_MISSES])
def test_text_that_only_resembles_it_is_no_leak(what, text):
    for data in (text.encode(), highlight(text, PythonLexer(), HtmlFormatter()).encode(),
                 notebook(text), zipped({"m.py": text.encode()})):
        assert scan_bytes("page.html", data, INDEX) == []


def test_the_report_never_shows_the_hidden_text():
    [leak] = scan_bytes("book/counting.html", f"<p>{PAGE}</p>".encode(), INDEX)
    assert "GPTModel(unseen_cfg)" not in leak.line() and "assert" not in leak.line()


def test_every_file_of_a_folder_is_searched_and_named_by_its_path(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.html").write_text("<p>nothing secret</p>")
    (tmp_path / "book" / "counting.html").write_text(PAGE)
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "a.ipynb").write_bytes(notebook(HIDDEN))
    (tmp_path / "linked.html").symlink_to(tmp_path / "book" / "counting.html")
    leaks = scan_folder(str(tmp_path), [FRAGMENT])
    assert sorted(leak.path for leak in leaks) == ["book/counting.html", "linked.html",
                                                   "notebooks/a.ipynb"]


def test_the_index_finds_exactly_what_searching_for_each_fragment_finds():
    """FragmentIndex looks up only every step-th piece of a text: checked against `in`."""
    chance = random.Random(7)
    alphabet = "abcdefgh()=_:,.0123456789"
    fragments = [Fragment("".join(chance.choice(alphabet) for _ in range(length)),
                          SecretKind.SOLUTION,
                          "a", "a.ipynb", f"cell_{n}", True)
                 for n, length in enumerate([INDEXED, INDEXED + 1, INDEXED + GRAM, 60, 19, 5])]
    index = FragmentIndex(fragments)
    for _ in range(300):
        text = "".join(chance.choice(alphabet) for _ in range(chance.randrange(0, 400)))
        for fragment in chance.sample(fragments, chance.randrange(0, 3)):
            at = chance.randrange(0, len(text) + 1)
            text = text[:at] + fragment.squeezed + text[at:]
        assert index.found_in(text) == [f for f in fragments if f.squeezed in text]
