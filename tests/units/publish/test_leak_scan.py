"""The leak scan (grader.publish.leak_scan, decoding.py): a hidden test is found in every form
a published file can hold it in, page markup, escapes, notebooks, archives, PDFs, base64,
percent-escapes, UTF-16 and UTF-32, and named by its file and the layers it was under; text
that only looks like it is not; a zip bomb is refused, not unpacked."""

import base64
import functools
import gzip
import html
import io
import json
import random
import tarfile
import zipfile
import zlib
from urllib.parse import quote, quote_plus

import nbformat
import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from grader.publish import Fragment, SecretKind, scan_bytes, scan_folder, squeeze
from grader.publish.bundle import leak_report
from grader.publish.decoding import MAX_EXPANDED, MAX_LAYERS
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


def flate_pdf(text):
    """A PDF written by hand whose object 4 is a FlateDecode stream of `text`."""
    stream = zlib.compress(text.encode())
    return (b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
            b"4 0 obj\n<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\n"
            b"stream\n" + stream + b"\nendstream\nendobj\n%%EOF\n")


def printed_pdf(text):
    """A PDF of one page that shows `text` line by line, as PDF strings (parentheses escaped),
    its content stream compressed (pypdf)."""
    writer = PdfWriter()
    page = writer.add_blank_page(400, 300)
    font = writer._add_object(DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Courier")}))
    page[NameObject("/Resources")] = DictionaryObject({
        NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    shown = " ".join("(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                     + ") '" for line in text.splitlines())
    content = DecodedStreamObject()
    content.set_data(f"BT /F1 8 Tf 10 280 Td 10 TL {shown} ET".encode())
    page[NameObject("/Contents")] = writer._add_object(content)
    page.compress_content_streams()
    data = io.BytesIO()
    writer.write(data)
    return data.getvalue()


def encrypted_pdf(text, user_password):
    """printed_pdf(text) encrypted (AES-256): opened with `user_password`, which may be
    empty, as a reader opens a PDF that only restricts printing or copying."""
    writer = PdfWriter(clone_from=io.BytesIO(printed_pdf(text)))
    writer.encrypt(user_password=user_password, owner_password="the owner's",
                   algorithm="AES-256")
    data = io.BytesIO()
    writer.write(data)
    return data.getvalue()


BASE64 = base64.b64encode(HIDDEN.encode()).decode()
SCRIPT = f'const notes = "{BASE64}";'
OUTPUT = nbformat.v4.new_output("display_data", data={
    "application/zip": base64.b64encode(zipped({"notes/check.py": HIDDEN.encode()})).decode()})
NOTEBOOK = notebook("show()", [OUTPUT]).decode()
# UTF-16 text at an odd byte of a binary file, whose bytes are mostly not NUL
ODD = bytes(range(1, 256)) * 8 + b"\x89" + HIDDEN.encode("utf-16-be") + bytes(range(1, 256)) * 8

# (what it is, the file's name, its bytes, where the scan must say the block is)
ENCODED = [
    ("a PDF's FlateDecode stream", "handout.pdf", flate_pdf(HIDDEN),
     "handout.pdf > stream of object 4 (zlib)"),
    ("a PDF page's text, its parentheses escaped", "book.pdf", printed_pdf(HIDDEN),
     "book.pdf > page 1's text"),
    ("a PDF encrypted with an empty password, which any reader opens", "book.pdf",
     encrypted_pdf(HIDDEN, ""), "book.pdf > page 1's text"),
    ("a data: URI of a link", "book/counting.html",
     f'<p><a href="data:text/x-python;base64,{BASE64}">notes</a></p>'.encode(),
     "book/counting.html > a data: URI (base64)"),
    ("a long base64 run in a script", "_static/notes.js", SCRIPT.encode(),
     f"_static/notes.js > base64 at character {SCRIPT.index(BASE64)}"),
    ("base64 in lines of 76 characters", "notes.b64", base64.encodebytes(HIDDEN.encode()),
     "notes.b64 > base64 at character 0"),
    ("a link's percent-encoded query", "book/links.html",
     f'<a href="https://colab.research.google.com/?code={quote_plus(HIDDEN)}">run</a>'.encode(),
     "book/links.html > percent-encoded"),
    ("a query percent-encoded twice", "book/links.html",
     f'<a href="/go?to=%2Frun%3Fcode%3D{quote(quote(HIDDEN, safe=""), safe="")}">'.encode(),
     "book/links.html > percent-encoded"),
    ("UTF-16 little-endian, no byte-order mark", "notes.txt", HIDDEN.encode("utf-16-le"),
     "notes.txt > UTF-16 LE"),
    ("UTF-16 big-endian, no byte-order mark", "notes.txt", HIDDEN.encode("utf-16-be"),
     "notes.txt > UTF-16 BE"),
    ("UTF-16 with its byte-order mark", "notes.txt",
     b"\xfe\xff" + HIDDEN.encode("utf-16-be"), "notes.txt > UTF-16 BE"),
    ("UTF-32 little-endian", "notes.txt", HIDDEN.encode("utf-32-le"), "notes.txt > UTF-32 LE"),
    ("UTF-32 big-endian with its mark", "notes.txt",
     b"\x00\x00\xfe\xff" + HIDDEN.encode("utf-32-be"), "notes.txt > UTF-32 BE"),
    ("UTF-16 at an odd byte of a binary file", "_static/font.bin", ODD,
     "_static/font.bin > UTF-16 or UTF-32 (NUL bytes out)"),
    ("a zip in base64 in a notebook's output", "book/counting.ipynb", NOTEBOOK.encode(),
     f"book/counting.ipynb > base64 at character {NOTEBOOK.index(OUTPUT.data['application/zip'][:40])}"
     "!notes/check.py"),
]


@pytest.mark.parametrize("what, name, data, where", ENCODED, ids=[e[0] for e in ENCODED])
def test_the_hidden_test_is_found_under_every_encoding_and_the_layers_named(what, name, data,
                                                                           where):
    leaks = scan_bytes(name, data, INDEX)
    assert [leak.line() for leak in leaks] == [
        f"{where}: a hidden test block of solutions/parameters/parameters.ipynb, cell "
        "count_tied_parameters_unseen_configs"]


NEAR_MISSES = [
    ("another number", HIDDEN.replace("unseen_count", "unseen_total")),
    ("half of it", HIDDEN[:len(HIDDEN) // 2]),
    ("the words, not the code", " ".join(w for w in HIDDEN.split() if w.isalpha())),
]


@pytest.mark.parametrize("what, text", NEAR_MISSES, ids=[n[0] for n in NEAR_MISSES])
def test_text_that_only_resembles_it_is_no_leak(what, text):
    for data in (text.encode(), highlight(text, PythonLexer(), HtmlFormatter()).encode(),
                 notebook(text), zipped({"m.py": text.encode()}), flate_pdf(text),
                 base64.b64encode(text.encode()), quote_plus(text).encode(),
                 text.encode("utf-16"), text.encode("utf-32-be")):
        assert scan_bytes("page.html", data, INDEX) == []


def test_what_only_looks_encoded_is_searched_as_it_is():
    """A hash, a PNG, zlib-like bytes in a binary file and a broken archive are read, and
    hold nothing."""
    chance = random.Random(3)
    noise = bytes(chance.randrange(256) for _ in range(20000))
    for data in (("sha384-" + base64.b64encode(noise[:48]).decode()).encode(),
                 b"\x89PNG\r\n\x1a\n" + noise, b"\x78\x9c" + noise, b"PK\x03\x04" + noise,
                 b"\x1f\x8b" + noise, noise.replace(b"\x00", b"")[:999] + b"%41%zz%"):
        assert scan_bytes("_static/blob", data, INDEX) == []


def nested_zip_bomb(layers=3, copies=16):
    """A zip of `copies` zips of ... of a MiB of NUL bytes: a few kB that unpack to
    copies ** layers MiB (4 GiB here)."""
    bomb = zipped({"zeros.bin": b"\0" * 2 ** 20})
    for layer in range(layers):
        bomb = zipped({f"{layer}-{n}.zip": bomb for n in range(copies)})
    return bomb


def test_a_zip_bomb_is_refused_with_a_sentence_before_it_is_unpacked():
    bomb = nested_zip_bomb()
    assert len(bomb) < 20000 and 16 ** 3 * 2 ** 20 > 60 * MAX_EXPANDED
    [leak] = scan_bytes("_downloads/data.zip", bomb, INDEX)
    assert leak.fragment is None
    assert leak.line() == ("_downloads/data.zip!2-0.zip!1-3.zip!0-15.zip: the archive's "
                           "member zeros.bin unpacks to more than 64 MiB (a zip bomb?): it "
                           "cannot be searched, so it is not published")


def damaged_zip(content):
    """A zip of a.py whose CRC-32 (in the local header and the central directory) is wrong."""
    data = bytearray(zipped({"a.py": content}))
    data[14] ^= 0xFF
    data[data.index(b"PK\x01\x02") + 16] ^= 0xFF
    return bytes(data)


@pytest.mark.parametrize("what, made, said", [
    ("gzip data that inflates without end", lambda: gzip.compress(b"\0" * (MAX_EXPANDED + 1)),
     "notes.gz: gzip data unpacks to more than 64 MiB"),
    ("a PDF stream that inflates without end", lambda: flate_pdf("\0" * (MAX_EXPANDED + 1)),
     "notes.gz: the stream of object 4 (zlib) unpacks to more than 64 MiB"),
    ("zips inside one another, deeper than the layers searched",
     lambda: base64.b64encode(functools.reduce(lambda inner, n: zipped({f"{n}.zip": inner}),
                                               range(MAX_LAYERS), zipped({"a.py": b"pass"}))),
     "notes.gz > base64 at character 0!5.zip!4.zip!3.zip!2.zip!1.zip: an archive inside 6 "
     "other layers: it cannot be searched"),
    ("a zip whose member's checksum is wrong", lambda: damaged_zip(HIDDEN.encode()),
     "notes.gz: the archive's member a.py cannot be read (Bad CRC-32 for file 'a.py')"),
    ("a PDF encrypted with a password", lambda: encrypted_pdf(HIDDEN, "a secret"),
     "notes.gz: a PDF encrypted with a password: it cannot be searched, so it is not "
     "published"),
], ids=["gzip", "pdf stream", "nested", "damaged", "encrypted pdf"])
def test_a_file_that_cannot_be_searched_is_refused(what, made, said):
    [leak] = scan_bytes("notes.gz", made(), INDEX)
    assert leak.fragment is None and leak.line().startswith(said)


def test_the_report_names_the_files_that_leak_and_those_that_cannot_be_searched(tmp_path):
    (tmp_path / "data.zip").write_bytes(nested_zip_bomb(layers=2, copies=80))
    (tmp_path / "notes.txt").write_bytes(HIDDEN.encode("utf-16"))
    report = leak_report(scan_folder(str(tmp_path), [FRAGMENT]), "the bundle")
    assert report.splitlines() == [
        "1 secret fragment(s) found in 1 file(s) of the bundle; 1 file(s) of the bundle cannot "
        "be searched; it was not published:",
        "data.zip!1-0.zip!0-62.zip: the archive's member zeros.bin unpacks to more than 64 MiB "
        "(a zip bomb?): it cannot be searched, so it is not published",
        "notes.txt > UTF-16 LE: a hidden test block of solutions/parameters/parameters.ipynb, "
        "cell count_tied_parameters_unseen_configs"]


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
