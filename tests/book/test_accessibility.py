"""The course site meets WCAG 2.1 AA as far as a machine can tell, and works from the keyboard.

Every page of the table of contents, and the search page, is loaded from the local
server in Chromium; axe-core (from npm into .book-deps/ by `make test`, injected
from that file, so nothing is fetched) checks it against the WCAG 2.0 and 2.1 A
and AA rules, in the light and the dark theme, and at a phone's width for one page.
The keyboard tests Tab through a page as a reader without a mouse would.
"""

import re

import pytest
import yaml

from testsupport.accessibility import (AXE, PHONE, ROOT, WAIT_MS, WCAG_TAGS,
                                       axe_violations, installed_axe_version, missing_tools,
                                       pinned_axe_version, violations_report as _report)

# Rules switched off, each with the reason; only per rule, never the whole check. None is:
# label-content-name-mismatch (new in axe-core 4.14's WCAG set) is met at the source,
# book/_ext/accessible_names.py and book/_templates.
DISABLED_RULES = {}

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [chapter["file"] for chapter in TOC["chapters"]]
# the search page with a query, so that its results (Pagefind's, words marked) are checked too
SEARCH = "search.html?q=weight+tying"
URLS = [f"{page}.html" for page in PAGES] + ["genindex.html", SEARCH]
THEMES = ["light", "dark"]


def _set_theme(page, theme):
    """The theme's own switch: data-mode and data-theme on <html> (what its button sets)."""
    page.evaluate("""theme => {
      document.documentElement.dataset.mode = theme;
      document.documentElement.dataset.theme = theme;
    }""", theme)
    page.wait_for_timeout(300)  # let the theme's colour transitions finish
    assert page.evaluate("document.documentElement.dataset.theme") == theme


def _load(browser, server, url, theme, viewport=None):
    if missing_tools():
        pytest.fail(missing_tools())
    page = browser.new_page()
    if viewport:
        page.set_viewport_size(viewport)
    page.goto(f"{server}/{url}", wait_until="networkidle")
    if url.startswith("search.html"):
        page.wait_for_selector("#full-text-results li a", timeout=WAIT_MS)
        assert page.locator("#full-text-results mark").count()
    if page.locator("article .math").count():  # (some formulas are inside closed answers)
        page.wait_for_selector("mjx-container", state="attached", timeout=WAIT_MS)
    # every check answered once, wrongly, so that its feedback is checked too, and every
    # answer and hidden output open, so that what they reveal is checked as well
    page.evaluate("""() => {
      document.querySelectorAll('.course-check-form').forEach(form => {
        const field = form.querySelector('input[type=text]');
        if (field) field.value = '0';
        const option = form.querySelector('input[type=radio]:last-of-type');
        if (option) option.checked = true;
        form.requestSubmit();
      });
    }""")
    page.wait_for_timeout(200)  # the feedback is written a moment after the answer
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
    _set_theme(page, theme)
    return page


def _violations(page):
    return axe_violations(page, DISABLED_RULES)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("url", URLS)
def test_page_has_no_wcag_violation(browser, server, url, theme):
    """axe-core finds no WCAG 2.1 A or AA violation on the page, in either theme."""
    page = _load(browser, server, url, theme)
    try:
        violations = _violations(page)
    finally:
        page.close()
    assert violations == [], f"{url}, {theme} theme:\n{_report(violations)}"


@pytest.mark.parametrize("theme", THEMES)
def test_a_page_on_a_phone_has_no_wcag_violation(browser, server, theme):
    """At 390 px (the sizes table as cards, the top bar shown) axe-core finds nothing."""
    page = _load(browser, server, "book/counting.html", theme, viewport=PHONE)
    try:
        violations = _violations(page)
    finally:
        page.close()
    assert violations == [], f"counting at 390 px, {theme} theme:\n{_report(violations)}"


def test_every_page_of_the_site_states_its_language_and_title(site):
    """Every HTML page, the redirect index.html included, has <html lang> and a <title>."""
    pages = [p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts]
    assert len(pages) >= len(PAGES) + 3
    for path in pages:
        markup = path.read_text(encoding="utf-8")
        where = path.relative_to(site)
        assert re.search(r'<html\b[^>]*\blang="[a-z]{2}', markup), f"{where} has no <html lang>"
        assert re.search(r"<title>[^<]+</title>", markup), f"{where} has no <title>"


# --------------------------------------------------------------------------- keyboard

_ACTIVE = """() => {
  const e = document.activeElement;
  return {tag: e.tagName.toLowerCase(), href: e.getAttribute("href") || "",
          text: (e.innerText || e.getAttribute("aria-label") || "").trim().slice(0, 60),
          toc: !!e.closest("nav.bd-links"),
          download: !!e.closest(".dropdown-download-buttons"),
          menuItem: !!e.closest(".dropdown-download-buttons .dropdown-menu"),
          expanded: e.getAttribute("aria-expanded")};
}"""

MAX_TABS = 80


def _tab_until(page, wanted, limit=MAX_TABS):
    """Press Tab until the focused element matches ``wanted``; every stop on the way."""
    stops = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        active = page.evaluate(_ACTIVE)
        stops.append(active)
        if wanted(active):
            return active, stops
    seen = "\n".join(f"  {s['tag']} {s['href']} {s['text']!r}" for s in stops)
    pytest.fail(f"not reached in {limit} presses of Tab; the focus went to:\n{seen}")


def _fresh(browser, server, name):
    page = browser.new_page()
    page.goto(f"{server}/{name}.html", wait_until="networkidle")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    return page


def test_tab_reaches_the_table_of_contents_and_enter_follows_a_link(browser, server):
    """From the top of a page Tab reaches the sidebar's chapter links; Enter opens one."""
    page = _fresh(browser, server, "book/output")
    try:
        first, _ = _tab_until(page, lambda a: a["toc"])
        assert first["tag"] == "a" and first["href"]
        active, _ = _tab_until(page, lambda a: a["toc"] and "tying.html" in a["href"])
        with page.expect_navigation():
            page.keyboard.press("Enter")
        url = page.url
    finally:
        page.close()
    assert url.endswith("/book/tying.html"), url


@pytest.mark.parametrize("key", ["Enter", " "])
def test_the_download_dropdown_opens_from_the_keyboard(browser, server, key):
    """Tab reaches the download button; Enter or Space opens it; Tab reaches its items."""
    page = _fresh(browser, server, "book/counting")
    try:
        button, _ = _tab_until(page, lambda a: a["download"] and a["tag"] == "button")
        assert button["expanded"] == "false"
        page.keyboard.press(key)
        menu = page.locator(".dropdown-download-buttons .dropdown-menu")
        menu.wait_for(state="visible", timeout=WAIT_MS)
        assert page.evaluate(_ACTIVE)["expanded"] == "true"
        item, _ = _tab_until(page, lambda a: a["menuItem"], limit=5)
        items = [item]
        while True:
            page.keyboard.press("Tab")
            active = page.evaluate(_ACTIVE)
            if not active["menuItem"]:
                break
            items.append(active)
    finally:
        page.close()
    hrefs = [i["href"] for i in items]
    assert any(h.endswith("counting.ipynb") for h in hrefs), items
    assert any(h.endswith("counting.md") for h in hrefs), items


@pytest.mark.parametrize("key", ["Enter", " "])
def test_a_check_yourself_answer_opens_from_the_keyboard(browser, server, key):
    """Tab reaches the first "Check yourself" question's field; an answer typed and Enter
    give the feedback; Tab reaches "Show the answer"; Enter or Space opens it."""
    page = _fresh(browser, server, "book/logits_to_text")
    try:
        # a click on the section's first paragraph starts the Tab sequence there,
        # as a reader who scrolled to it and clicked its text would
        page.locator("#check-yourself > p").first.click()
        field, _ = _tab_until(page, lambda a: a["tag"] == "input", limit=10)
        page.keyboard.type("0.5")
        page.keyboard.press("Enter")
        feedback = page.locator("#check-yourself .course-check-feedback").first
        feedback.wait_for(state="visible", timeout=WAIT_MS)
        said = feedback.inner_text()
        summary, _ = _tab_until(page, lambda a: a["tag"] == "summary", limit=4)
        assert summary["text"] == "Show the answer", summary
        details = page.locator("#check-yourself details").first
        assert details.get_attribute("open") is None
        page.keyboard.press(key)
        details.locator(".course-check-body").wait_for(state="visible", timeout=WAIT_MS)
        opened = details.get_attribute("open") is not None
    finally:
        page.close()
    assert "too low" in said
    assert opened


def test_the_checks_run_the_pinned_axe_core_with_the_label_in_name_rule(browser, server):
    """The axe-core in the page is the Makefile's AXE_VERSION, and among the WCAG rules it
    runs is label-content-name-mismatch (2.5.3, Label in Name), not experimental there."""
    page = _load(browser, server, "book/intro.html", "light")
    try:
        page.add_script_tag(path=str(AXE))
        version = page.evaluate("axe.version")
        rules = page.evaluate("tags => axe.getRules(tags).map(r => r.ruleId)", WCAG_TAGS)
    finally:
        page.close()
    assert version == pinned_axe_version() == installed_axe_version()
    assert "label-content-name-mismatch" in rules
