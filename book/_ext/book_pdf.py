"""Print the built site into one PDF: a cover, then every page of ``_toc.yml`` in order.

Usage: ``python book/_ext/book_pdf.py SITE_DIR`` (``make book`` runs it after the build).

Each page is served from SITE_DIR on 127.0.0.1 and printed by Chromium (headless,
through Playwright) with the site's print stylesheet, after the page's own
``beforeprint`` handler has opened every answer and hidden output
(``book/_static/print.js``) and every fade-in has finished. The pages are merged with
pypdf behind a cover that lists them with the page each starts on, one bookmark per
chapter. Nothing is fetched from another host: a request that is not to the local server
stops the run. When the PDF is
newer than every page it prints, the course's own styles and scripts and this script,
nothing is done.
"""

import functools
import http.server
import shutil
import sys
import tempfile
import threading
import time
from html import escape
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlparse

import yaml
from pypdf import PdfReader, PdfWriter

from print_site import BOOK_PDF

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
PAPER = {"format": "A4", "margin": {"top": "16mm", "bottom": "18mm", "left": "16mm",
                                    "right": "16mm"}}
PAGE_TIMEOUT_MS = 120_000


def pages():
    """The pages of the table of contents, in reading order, as paths under the site."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [f"{name}.html" for name in [toc["root"]] + [c["file"] for c in toc["chapters"]]]


def book_title():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config["title"], config.get("author", "")


def up_to_date(site, target):
    """True when the PDF is newer than every page, the course's own styles and scripts
    (book/_static: the print stylesheet among them) and this script."""
    if not target.exists():
        return False
    sources = [site / page for page in pages()] + [Path(__file__)]
    sources += [p for p in (ROOT / "book" / "_static").rglob("*") if p.is_file()]
    built = target.stat().st_mtime
    return all(p.exists() and p.stat().st_mtime < built for p in sources)


def find_chromium():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("Chromium is needed to print the book and none was found "
                     f"(looked for {', '.join(BROWSERS)}): `make book` installs Debian's "
                     "chromium when it is missing.")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


FOOTER = ('<div style="font-size:8px;width:100%;padding:0 16mm;color:#444;'
          'display:flex;justify-content:space-between;font-family:sans-serif">'
          '<span>{book} · {chapter}</span><span><span class="pageNumber"></span> / '
          '<span class="totalPages"></span></span></div>')

PREPARE = """async () => {
  document.documentElement.dataset.mode = "light";
  document.documentElement.dataset.theme = "light";
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  window.printReveal();
  document.getAnimations().forEach((animation) => animation.finish());  // fades included
  await document.fonts.ready;
  const closed = document.querySelectorAll("details:not([open]), .print-reveal[hidden]");
  const heading = document.querySelector("article h1");
  return {closed: closed.length,
          title: heading ? heading.textContent.replace(/[#¶]/g, "").trim() : document.title};
}"""


def print_page(browser, url, book, out):
    """Print one page of the site to ``out``; return its title."""
    page = browser.new_page()
    foreign = []

    def check(request):
        if urlparse(request.url).scheme not in ("data", "blob") and \
                urlparse(request.url).hostname != "127.0.0.1":
            foreign.append(request.url)

    page.on("request", check)
    try:
        page.goto(url, wait_until="networkidle", timeout=PAGE_TIMEOUT_MS)
        # print.js opens what is hidden on screen; it is loaded with `defer`, so wait
        # for it rather than print a page whose answers are still closed
        page.wait_for_function("() => typeof window.printReveal === 'function'",
                               timeout=PAGE_TIMEOUT_MS)
        prepared = page.evaluate(PREPARE)
        if prepared["closed"]:
            raise SystemExit(f"{url}: {prepared['closed']} answers or outputs stayed closed "
                             "after print.js opened them; the PDF would leave them out")
        title = prepared["title"]
        page.emulate_media(media="print")
        page.pdf(path=str(out), print_background=True, display_header_footer=True,
                 header_template="<span></span>",
                 footer_template=FOOTER.format(book=escape(book), chapter=escape(title)),
                 **PAPER)
    finally:
        page.close()
    if foreign:
        raise SystemExit(f"{url} asked for pages of another host: {foreign}")
    return title


def cover_html(book, author, chapters):
    """The cover: title, author, and the chapters with the page each starts on."""
    rows = "".join(f"<li><span>{escape(title)}</span><span>{start}</span></li>"
                   for title, start in chapters)
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>{escape(book)}</title><style>
body {{ font-family: sans-serif; color: #111; margin: 0; }}
h1 {{ font-size: 30pt; margin: 60mm 0 4mm; }}
.author {{ font-size: 13pt; color: #333; margin: 0 0 20mm; }}
ol {{ list-style: none; padding: 0; font-size: 12pt; }}
li {{ display: flex; justify-content: space-between; border-bottom: 1px dotted #999;
      padding: 2mm 0; }}
.note {{ margin-top: 20mm; font-size: 10pt; color: #333; }}
</style></head><body>
<h1>{escape(book)}</h1><p class="author">{escape(author)}</p>
<h2>Contents</h2><ol>{rows}</ol>
<p class="note">The course's site, printed page by page with every answer and every hidden
code cell and output open. Built with gptcourse {escape(version("gptcourse"))}.</p>
</body></html>"""


def main(site):
    from playwright.sync_api import sync_playwright  # imports slowly: only when printing

    site = Path(site).resolve()
    target = site / BOOK_PDF
    if up_to_date(site, target):
        print(f"{BOOK_PDF} is up to date")
        return 0
    book, author = book_title()
    start = time.perf_counter()
    httpd, base = serve(site)
    try:
        with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=find_chromium(), headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run"])
            try:
                printed = []
                for number, name in enumerate(pages()):
                    out = Path(tmp) / f"{number:02d}.pdf"
                    printed.append((print_page(browser, f"{base}/{name}", book, out), out))
                first_page, chapters = 2, []
                for title, out in printed:
                    chapters.append((title, first_page))
                    first_page += len(PdfReader(out).pages)
                cover = browser.new_page()
                try:
                    cover.set_content(cover_html(book, author, chapters))
                    cover.pdf(path=str(Path(tmp) / "cover.pdf"), **PAPER)
                finally:
                    cover.close()
            finally:
                browser.close()
            if len(PdfReader(Path(tmp) / "cover.pdf").pages) != 1:
                raise SystemExit("the cover did not fit on one page; shorten it")
            writer = PdfWriter()
            writer.append(str(Path(tmp) / "cover.pdf"))
            for title, out in printed:
                writer.append(str(out), outline_item=title)
            writer.add_metadata({"/Title": book, "/Author": author})
            partial = target.with_suffix(".pdf.part")
            with open(partial, "wb") as handle:
                writer.write(handle)
            partial.replace(target)
    finally:
        httpd.shutdown()
        httpd.server_close()
    total = len(PdfReader(target).pages)
    print(f"{BOOK_PDF}: {len(printed)} pages of the site, {total} printed pages, "
          f"in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
