"""The site's search finds every word of every chapter, offline, from every page.

`make book` indexes the built chapters with Pagefind into _build/html/pagefind/; the
search page (book/_templates/search.html) searches that index in the browser. These
tests use the site as a reader does, served from 127.0.0.1 in Chromium, and record
every request: none may leave the site.
"""

import json
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from testsupport.accessibility import WAIT_MS
from testsupport.course import ROOT as COURSE_ROOT

TOC = yaml.safe_load((Path(COURSE_ROOT) / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [chapter["file"] for chapter in TOC["chapters"]]


def _open(browser, url):
    page = browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url, wait_until="networkidle")
    return page, requests, errors


def _press_until_visible(page, keys, target):
    """Press ``keys`` as a reader would, again if nothing opened: the theme attaches its
    keyboard listener from a deferred script, which a busy machine may not have run yet."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        page.keyboard.press(keys)
        try:
            target.wait_for(state="visible", timeout=2_000)
            return
        except PlaywrightTimeout:
            if target.is_visible():     # opened just after the wait: pressing would close it
                return
            if time.monotonic() > deadline:
                raise


def _foreign(requests):
    return [u for u in requests if urlparse(u).scheme not in ("data", "blob")
            and urlparse(u).hostname != "127.0.0.1"]


def _results(page):
    page.wait_for_function(
        "() => document.getElementById('full-text-status').textContent.match(/contain/)",
        timeout=WAIT_MS)
    return page.eval_on_selector_all("#full-text-results > li > a",
                                     "els => els.map(e => new URL(e.href).pathname)")


def test_the_index_holds_every_chapter_and_no_other_page(site):
    """Pagefind indexed exactly the pages of _toc.yml: not the search page, not the index."""
    entry = json.loads((site / "pagefind" / "pagefind-entry.json").read_text())
    counts = [language["page_count"] for language in entry["languages"].values()]
    assert sum(counts) == len(PAGES)


@pytest.mark.parametrize("words,page", [
    ("weight tying", "book/tying.html"),
    ("drop_shortcut", "book/counting.html"),       # only in a code cell's output
    ("nucleus sampling", "book/sampling.html"),
    ("Wharton", "book/sampling.html"),             # the section on the trained model
])
def test_the_search_page_finds_the_words_of_a_chapter_offline(browser, server, words, page):
    """search.html?q=... lists the chapter that holds the words, with them marked, and
    asks nothing of another host."""
    tab, requests, errors = _open(browser, f"{server}/search.html?q={words}")
    try:
        found = _results(tab)
        marked = tab.locator("#full-text-results mark").count()
    finally:
        tab.close()
    assert f"/{page}" in found, found
    assert marked > 0
    assert _foreign(requests) == [], _foreign(requests)
    assert any("/pagefind/" in u for u in requests), "the index was not read from the site"
    assert errors == [], errors


def test_every_pages_search_dialog_leads_to_the_full_text_results(browser, server):
    """On a chapter, Ctrl+K opens the theme's search dialog; Enter goes to the search page
    with the words, which lists the chapters that hold them."""
    tab, requests, errors = _open(browser, f"{server}/book/counting.html")
    try:
        field = tab.locator("#pst-search-dialog input[name=q]")
        _press_until_visible(tab, "Control+k", field)
        assert field.evaluate("e => e === document.activeElement")
        field.fill("top-p")
        with tab.expect_navigation():
            field.press("Enter")
        assert urlparse(tab.url).path.endswith("/search.html")
        assert parse_qs(urlparse(tab.url).query)["q"] == ["top-p"]
        found = _results(tab)
    finally:
        tab.close()
    assert "/book/sampling.html" in found, found
    assert _foreign(requests) == []
    assert errors == [], errors


def test_words_no_page_holds_are_answered_and_a_new_search_needs_no_reload(browser, server):
    """'No page contains ...'; then words typed in the page's own field and Enter search
    again, and the address keeps them."""
    tab, requests, errors = _open(browser, f"{server}/search.html?q=xylophone")
    try:
        tab.wait_for_function(
            "() => document.getElementById('full-text-status').textContent.includes('No page')",
            timeout=WAIT_MS)
        status = tab.locator("#full-text-status")
        assert status.get_attribute("role") == "status"
        field = tab.locator("#full-text-query")
        assert tab.locator("label[for=full-text-query]").inner_text().strip()
        field.fill("mebibyte")
        field.press("Enter")
        found = _results(tab)
        address = tab.url
    finally:
        tab.close()
    assert "/book/counting.html" in found, found
    assert parse_qs(urlparse(address).query)["q"] == ["mebibyte"]
    assert _foreign(requests) == []
    assert errors == [], errors
