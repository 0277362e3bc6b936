"""Printing a page of the site prints what the reader would have to open on screen.

book/_static/print.css (for print) opens every <details> in CSS; book/_static/print.js,
on `beforeprint`, opens them in the page as well, shows what is marked `print-reveal`
and takes the light theme, and puts all of it back on `afterprint`. Checked in Chromium
with the print media emulated, on the pages as built.
"""

PRINT_REVEAL = """() => {
  const answer = document.createElement("div");
  answer.className = "print-reveal";
  answer.id = "an-answer-kept-for-print";
  answer.hidden = true;
  answer.textContent = "the answer, kept in the page";
  document.querySelector("article").append(answer);
}"""


def _page(browser, server, name):
    page = browser.new_page()
    page.goto(f"{server}/{name}.html", wait_until="networkidle")
    return page


def test_print_shows_every_answer_and_hidden_output_without_a_click(browser, server):
    """With print media, a check's worked answer (which waits for a first attempt on
    screen) and a hidden output are visible; on screen not. Their prompts to click are not
    printed."""
    page = _page(browser, server, "book/output")
    try:
        answer = page.locator(".course-check-answer .course-check-body").first
        output = page.locator("details.hide .cell_output").first
        assert page.locator("details[open]").count() == 0
        assert not answer.is_visible() and not output.is_visible()
        page.emulate_media(media="print")
        assert answer.is_visible() and output.is_visible()
        assert "[2, 4, 50257]" in answer.inner_text()
        assert "torch.Size([2, 4, 50257])" in output.inner_text()
        # neither "Show code cell output" nor "Show the answer" is printed
        assert not page.locator("details.hide > summary").first.is_visible()
        assert not page.locator(".course-check-answer > summary").first.is_visible()
        page.emulate_media(media="screen")
        assert not answer.is_visible()
    finally:
        page.close()


def test_print_shows_a_dropdowns_content_under_its_heading(browser, server):
    """A closed dropdown (a hint) prints open, its summary ("Hint") as its heading."""
    page = _page(browser, server, "book/mistakes")
    try:
        hint = page.locator("details.sd-dropdown .sd-summary-content").first
        assert not hint.is_visible()
        page.emulate_media(media="print")
        assert hint.is_visible() and hint.inner_text().strip()
        assert page.locator("details.sd-dropdown > summary").first.is_visible()
        page.emulate_media(media="screen")
        assert not hint.is_visible()
    finally:
        page.close()


def test_beforeprint_opens_everything_in_the_light_theme_and_afterprint_puts_it_back(
        browser, server):
    """A reader in the dark theme prints: every <details> opens (the checks' worked
    answers too) and the theme is light; after printing, exactly the <details> that were
    open before are open again and the theme is dark."""
    page = _page(browser, server, "book/counting")
    opened = "() => [...document.querySelectorAll('details')].map(d => d.open)"
    try:
        page.evaluate("document.documentElement.dataset.theme = 'dark'")
        page.locator("details").first.evaluate("d => d.open = true")  # one the reader opened
        total = page.locator("details").count()
        assert total > 5 and page.locator(".course-check-answer").count() > 0
        before = page.evaluate(opened)
        assert before.count(True) == 1 and before[0]
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        assert page.evaluate(opened) == [True] * total
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        assert page.evaluate(opened) == before
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    finally:
        page.close()


def test_an_answer_kept_hidden_in_the_page_prints_when_marked_print_reveal(browser, server):
    """An element `hidden` on screen and marked `print-reveal` (as a check that asks before
    it tells keeps its answer) is printed, and hidden again after printing."""
    page = _page(browser, server, "book/tying")
    try:
        page.evaluate(PRINT_REVEAL)
        answer = page.locator("#an-answer-kept-for-print")
        assert not answer.is_visible()
        page.emulate_media(media="print")
        assert answer.is_visible()
        page.emulate_media(media="screen")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        assert answer.is_visible() and answer.get_attribute("hidden") is None
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        assert not answer.is_visible()
    finally:
        page.close()
