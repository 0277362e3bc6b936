"""Does the README open three doors, and does every link of the documents lead somewhere?

The README is the front page: at most 8 KB, a door each for students, instructors and
contributors, the set-up exactly the two commands, and no list that a new assignment
would leave stale. Every relative link in README.md, CONTRIBUTING.md, CHANGELOG.md and
docs/*.md names a file or folder that exists and, where it gives an anchor, a heading
of that file (as GitHub makes anchors: the heading in lower case, punctuation dropped,
spaces as hyphens, a repeated heading numbered). The lists the documents keep of the
package are checked against the package itself.
"""

import ast
import collections
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = [README, ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md",
             *sorted((ROOT / "docs").glob("*.md"))]
MOST_README_BYTES = 8 * 1024
DOORS = ["Students", "Instructors", "Contributors"]

FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


def prose_lines(path):
    """[(line number, line)] of a Markdown file outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def headings(path):
    """[(level, text)] of a Markdown file's headings, in order."""
    found = []
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file."""
    seen = collections.Counter()
    made = set()
    for _, text in headings(path):
        slug = re.sub(r"[^\w\- ]", "", text.replace("`", "").strip().lower()).replace(" ", "-")
        made.add(slug if not seen[slug] else f"{slug}-{seen[slug]}")
        seen[slug] += 1
    return made


def links(path):
    """[(line number, target)] of the relative links of a Markdown file, code left out."""
    found = []
    for number, line in prose_lines(path):
        for target in LINK.findall(CODE_SPAN.sub("code", line)):
            if not EXTERNAL.match(target):
                found.append((number, target))
    return found


def broken_links(path, root=ROOT):
    """Each relative link of `path` that names no file, or no heading of the file; the
    files named relative to `root`."""
    broken = []
    for number, target in links(path):
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}, line {number}: {target}"
        if not linked.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{where} (no heading #{anchor} in {linked.relative_to(root)})")
    return broken


def test_the_readme_is_at_most_8_kb():
    size = len(README.read_bytes())
    assert size <= MOST_README_BYTES, (
        f"README.md is {size:,} bytes, more than {MOST_README_BYTES:,}: move the detail into docs/")


def test_the_readme_has_a_door_for_students_instructors_and_contributors():
    doors = [text for level, text in headings(README) if level == 2]
    assert doors == DOORS


def test_the_readme_set_up_is_exactly_make_book_and_make_test():
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```bash\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    set_up = [block for block in blocks if "make book" in block]
    assert len(set_up) == 1, "one block of README.md gives the set-up"
    commands = [line.split("#")[0].strip() for line in set_up[0].splitlines()]
    assert commands == ["make book", "make test"]


def test_the_readme_names_no_assignment_so_a_new_one_leaves_it_true():
    """The assignments are pointed at (solutions/, the homework page), never listed."""
    text = README.read_text(encoding="utf-8")
    names = sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
    assert names, "solutions/ holds the assignments"
    assert "](solutions)" in text and "](book/homework.md)" in text
    listed = [name for name in names if f"`{name}`" in text or f"={name}" in text]
    assert listed == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(document):
    assert document.exists()
    assert broken_links(document) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    """The check above can fail: a page with one good link and two broken ones (and a
    link in a code block, which is not one)."""
    root = tmp_path.resolve()
    (root / "other.md").write_text("# A page\n\n## Its part, `two`\n", encoding="utf-8")
    page = root / "page.md"
    page.write_text("[good](other.md#its-part-two) [gone](missing.md) "
                    "[no part](other.md#elsewhere)\n\n```\n[in code](missing.md)\n```\n",
                    encoding="utf-8")
    broken = broken_links(page, root)
    assert broken == ["page.md, line 1: missing.md (no such file)",
                      "page.md, line 1: other.md#elsewhere (no heading #elsewhere in other.md)"]


def test_every_document_under_docs_is_reached_from_the_readme():
    reached, waiting = set(), [README]
    while waiting:
        page = waiting.pop()
        if page in reached or not page.exists():
            continue
        reached.add(page)
        for _, target in links(page):
            file_part = target.partition("#")[0]
            if file_part.endswith(".md"):
                waiting.append((page.parent / file_part).resolve())
    orphans = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")
                     if p.resolve() not in reached)
    assert orphans == []


def first_column(path, header):
    """The backquoted names in the first column of the table under `header` in `path`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(header) + 2
    names = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        names += re.findall(r"`([^`]+)`", line.split("|")[1])
    return names


def test_the_package_page_names_every_name_the_package_offers_and_no_other():
    tree = ast.parse((ROOT / "src" / "gptcourse" / "__init__.py").read_text(encoding="utf-8"))
    offered = next(ast.literal_eval(node.value) for node in tree.body
                   if isinstance(node, ast.Assign) and node.targets[0].id == "__all__")
    named = first_column(ROOT / "docs" / "package.md", "| name | what it is |")
    assert sorted(named) == sorted(offered)


def test_the_package_page_names_every_module_of_the_package():
    modules = sorted(p.name for p in (ROOT / "src" / "gptcourse").glob("*.py")
                     if p.name != "__init__.py")
    named = first_column(ROOT / "docs" / "package.md", "| module | what it holds |")
    assert sorted(named) == modules


def test_every_test_the_security_page_names_exists():
    """docs/security.md holds each boundary by a test: every test file and test it names is
    there (a renamed or removed test leaves no boundary without its test)."""
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[\w/]+\.py)((?:::\w+)?)`", text)
    named += [(file, f"::{test}") for file, tests in re.findall(
        r"`(tests/[\w/]+\.py)::\w+`((?:,\s*`::\w+`)+)", text) for test in
        re.findall(r"`::(\w+)`", tests)]
    assert len(named) >= 20
    for file, test in named:
        path = ROOT / file
        assert path.is_file(), f"docs/security.md names {file}, which does not exist"
        if test:
            assert f"def {test[2:]}(" in path.read_text(encoding="utf-8"), (
                f"docs/security.md names {file}{test}, which does not exist")
