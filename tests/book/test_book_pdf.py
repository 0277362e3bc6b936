"""The whole book as one PDF: built by `make book`, linked from every page, every answer in.

book/_ext/book_pdf.py prints each page of _toc.yml with Chromium and merges them behind a
cover; the download menu of every page links it (book/_ext/print_site.py).
"""

import html
import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from pypdf import PdfReader

from testsupport.accessibility import WAIT_MS
from testsupport.course import ROOT as COURSE_ROOT

ROOT = Path(COURSE_ROOT).resolve()
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from print_site import BOOK_PDF  # noqa: E402

sys.path.remove(str(ROOT / "book" / "_ext"))

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [chapter["file"] for chapter in TOC["chapters"]]
TITLE = yaml.safe_load((ROOT / "_config.yml").read_text())["title"]


@pytest.fixture(scope="module")
def pdf(site):
    path = site / BOOK_PDF
    assert path.exists(), f"{BOOK_PDF} was not built: `make book` prints it"
    return PdfReader(path)


@pytest.fixture(scope="module")
def page_texts(pdf):
    """The text of each page of the PDF, read once for every test of this file (reading
    it is slow), ligatures (the fi of "configuration") made letters again."""
    return [unicodedata.normalize("NFKC", page.extract_text()) for page in pdf.pages]


@pytest.fixture(scope="module")
def book_text(page_texts):
    """The text of the whole book."""
    return "\n".join(page_texts)


@pytest.fixture(scope="module")
def chapter_titles(site):
    titles = []
    for page in PAGES:
        markup = (site / f"{page}.html").read_text(encoding="utf-8")
        # the article's heading: the h1 with a permalink (the print header's has none)
        heading = next(h for h in re.findall(r"<h1>(.*?)</h1>", markup, re.S)
                       if 'class="headerlink"' in h)
        heading = re.sub(r'<a class="headerlink".*?</a>', "", heading, flags=re.S)
        titles.append(html.unescape(re.sub(r"<[^>]+>", "", heading)).strip())
    return titles


@pytest.mark.parametrize("page", PAGES)
def test_every_page_links_the_whole_book_pdf(site, page):
    """Each page's download menu has a link to the book's PDF, which resolves in the site."""
    markup = (site / f"{page}.html").read_text(encoding="utf-8")
    links = re.findall(rf'href="([^"]*{re.escape(BOOK_PDF)})"', markup)
    assert links, f"{page} does not link {BOOK_PDF}"
    assert ((site / page).parent / html.unescape(links[0])).resolve() == (site / BOOK_PDF)


def test_the_pdf_downloads_from_the_menu_of_a_page(browser, server):
    """From the download menu of a chapter, the link serves a PDF from the site itself."""
    page = browser.new_page()
    try:
        page.goto(f"{server}/book/counting.html", wait_until="networkidle")
        page.locator(".dropdown-download-buttons button").first.click()
        link = page.locator(f".dropdown-download-buttons a[href$='{BOOK_PDF}']")
        link.wait_for(state="visible", timeout=WAIT_MS)
        assert "whole book .pdf" in link.inner_text()
        response = page.request.get(link.evaluate("a => a.href"))
    finally:
        page.close()
    assert urlparse(response.url).hostname == "127.0.0.1"
    assert response.status == 200
    assert response.body()[:5] == b"%PDF-"


def test_a_cover_then_every_chapter_in_order_each_with_a_bookmark(pdf, page_texts,
                                                                  chapter_titles):
    """The cover lists the chapters with the page each starts on; every bookmark is a
    chapter, in the order of _toc.yml, pointing at that page."""
    cover = page_texts[0]
    assert TITLE in cover
    outline = [(item.title, pdf.get_destination_page_number(item)) for item in pdf.outline]
    assert [title for title, _ in outline] == chapter_titles
    starts = [number for _, number in outline]
    assert starts[0] == 1 and starts == sorted(starts) and len(set(starts)) == len(starts)
    for title, number in outline:
        assert re.search(rf"{re.escape(title)}\s*{number + 1}\b", cover), (title, number)
        assert title.split()[0] in page_texts[number], title
    assert len(pdf.pages) > starts[-1]


@pytest.mark.parametrize("text", [
    "402,056",                      # output: a check's worked answer
    "torch.Size([2, 4, 50257])",    # output: a hidden code cell output
    "163,009,536",
    "124,412,160",                  # tying: the tied count, in an answer
    "Parameters of this configuration, by component",   # the calculator, as it stands
    "4-token runs",                 # the trained model's samples
])
def test_the_pdf_prints_answers_outputs_and_widgets(book_text, text):
    """What the site hides behind a click is printed (the PDF's text read with its line
    breaks and runs of spaces as one space: where a line wraps depends on the layout)."""
    flat = re.sub(r"\s+", " ", book_text)
    start = text[:8]
    near = [flat[max(0, m.start() - 60):m.start() + 60]
            for m in re.finditer(re.escape(start), flat)]
    assert text in flat, f"not printed; where {start!r} is: {near}"


# A hidden code cell output as the site holds it: the first line of its text
HIDDEN_OUTPUT = re.compile(r'<details class="[^"]*\bhide below-input">.*?'
                           r'<div class="cell_output[^"]*">.*?<pre><span></span>(.*?)</pre>',
                           re.S)


def test_every_hidden_output_of_every_page_is_printed(site, book_text):
    """Each page's hidden code cell outputs, opened just before the page is printed, are
    on paper whole: none printed while its fade-in had it still transparent (the first
    30 characters of its text, which no line wrap splits)."""
    flat = re.sub(r"\s+", " ", book_text)
    missing, found = [], 0
    for page in PAGES:
        markup = (site / f"{page}.html").read_text(encoding="utf-8")
        for output in HIDDEN_OUTPUT.findall(markup):
            text = html.unescape(re.sub(r"<[^>]+>", "", output)).strip().splitlines()[0]
            start = re.sub(r"\s+", " ", text)[:30].strip()
            if start in flat:
                found += 1
            else:
                missing.append((page, start))
    assert missing == [] and found >= 20, (found, missing)


def test_the_pdf_prints_no_prompt_to_click(book_text):
    """No "Show code cell output" or "Hide code cell source" prompt is left on paper."""
    for prompt in ("Show code cell", "Hide code cell"):
        assert prompt not in book_text, prompt


def test_the_pdf_is_newer_than_every_page_it_prints(site):
    """A build that changed a page printed the book again."""
    built = (site / BOOK_PDF).stat().st_mtime
    for page in PAGES:
        assert (site / f"{page}.html").stat().st_mtime <= built, page
