"""The calculator, the explorer and the search page meet WCAG 2.1 AA in every state.

test_accessibility.py checks every page as it loads. These put the interactive parts in
the states a reader brings them to (tokens cut by top-k, a configuration that cannot be
built, a list of search results) and check each with axe-core at a desktop's and a
phone's width, in the light and the dark theme.
"""

import pytest

from testsupport.accessibility import (DESKTOP, PHONE, axe_violations, missing_tools,
                                       violations_report)

THEMES = ["light", "dark"]
SIZES = {"desktop": DESKTOP, "phone": PHONE}


def _load(browser, server, url, theme, size):
    if missing_tools():
        pytest.fail(missing_tools())
    page = browser.new_page()
    page.set_viewport_size(SIZES[size])
    page.goto(f"{server}/{url}", wait_until="networkidle")
    page.evaluate("""t => { document.documentElement.dataset.mode = t;
                           document.documentElement.dataset.theme = t; }""", theme)
    page.wait_for_timeout(300)
    return page


def _explorer_cut(page):
    page.wait_for_selector("#logits-explorer[data-ready=true]")
    page.select_option("#logits-explorer-model", index=0)
    page.select_option("#logits-explorer-top-k", index=2)  # top-k 2: the rest struck through
    page.select_option("#logits-explorer-top-p", index=1)
    assert page.locator("#logits-explorer tr[data-kept=false]").count() > 0


def _calculator_error(page):
    page.wait_for_selector("#parameter-calculator[data-ready=true]")
    page.locator("#parameter-calculator input[name=n_heads]").fill("5")
    page.wait_for_selector("#parameter-calculator[data-state=error]")
    page.wait_for_function("() => document.querySelector('#parameter-calculator [role=status]')"
                           ".textContent.includes('does not divide')")


def _search_results(page):
    page.wait_for_selector("#full-text-results li a", timeout=20000)


STATES = {
    "the explorer with tokens cut": ("book/sampling.html", _explorer_cut),
    "the calculator refusing a configuration": ("book/counting.html", _calculator_error),
    "the search page with results": ("search.html?q=temperature", _search_results),
}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("state", list(STATES))
def test_no_wcag_violation_in_the_state_a_reader_leaves_it(browser, server, state, theme,
                                                          size):
    url, bring = STATES[state]
    page = _load(browser, server, url, theme, size)
    try:
        bring(page)
        violations = axe_violations(page)
        fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        page.close()
    assert violations == [], f"{state}, {theme}, {size}:\n{violations_report(violations)}"
    assert fits, f"{state} at the {size}'s width makes the page scroll sideways"
