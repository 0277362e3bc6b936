"""The site's checks ask before they tell, in Chromium: an answer, then *Check*, then feedback.

Every check on every page is answered with each of its typical wrong answers, whose
feedback must be that mistake's own, and then with the right one, which opens the worked
answer. A few checks are answered as a reader types (commas, spaces, units, a shape
written in brackets) against the course's golden numbers; one page is worked through
with the keyboard alone; and a page whose script is blocked still offers every answer.
The keys are read from the page itself (``data-check``), where the build wrote them from
``gptcourse``.
"""

import html
import json
import re

import pytest
import yaml

from testsupport.accessibility import WAIT_MS
from testsupport.course import ROOT as COURSE_ROOT

from pathlib import Path

ROOT = Path(COURSE_ROOT).resolve()
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [chapter["file"] for chapter in TOC["chapters"]]
CHAPTERS = ["book/output", "book/counting", "book/tying", "book/tying_in_practice",
            "book/logits_to_text", "book/sampling", "book/loss", "book/mistakes"]


def _open(browser, server, page_name):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{server}/{page_name}.html", wait_until="networkidle")
    return page, errors


def _text(markup):
    """The text a reader sees of a bit of the feedback's HTML."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", markup)).strip()


def typed(value):
    """A value written as a reader would type it: thousands with commas, a shape in brackets."""
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.6g}"


def answer(page, box, spec, value):
    """Give ``value`` to the check in ``box`` with the mouse, press Check, return the feedback."""
    feedback = box.locator(".course-check-feedback")
    page.evaluate("el => { el.innerHTML = ''; }", feedback.element_handle())
    if spec["kind"] == "choice":
        box.locator("input[type=radio]").nth(value).check()
    else:
        box.locator("input[type=text]").fill(value if isinstance(value, str) else typed(value))
    box.locator("button.course-check-button").click()
    page.wait_for_function("el => el.textContent.trim() !== ''", arg=feedback.element_handle(),
                           timeout=WAIT_MS)
    return " ".join(feedback.inner_text().split())


def _boxes(page):
    return [(box, json.loads(box.get_attribute("data-check")))
            for box in page.locator(".course-check").all()]


@pytest.mark.parametrize("page_name", CHAPTERS)
def test_every_predict_and_check_yourself_asks_before_it_tells(browser, server, page_name):
    """No answer is one click away: no dropdown answer is left, every "Predict, then check"
    box holds a check, and the last section, the questions to check yourself, three or more."""
    page, _ = _open(browser, server, page_name)
    try:
        dropdowns = page.eval_on_selector_all(
            "article details.sd-dropdown summary", "els => els.map(e => e.innerText.trim())")
        predict = page.eval_on_selector_all(
            "article .admonition", """els => els
              .filter(e => e.querySelector('.admonition-title').innerText.trim()
                           === 'Predict, then check')
              .map(e => e.querySelectorAll('.course-check').length)""")
        last = page.eval_on_selector_all(
            "article section", "els => els[els.length - 1].querySelectorAll('.course-check')"
            ".length")
    finally:
        page.close()
    assert not [d for d in dropdowns if d.startswith(("Check your prediction", "Answer"))], \
        dropdowns
    assert all(n >= 1 for n in predict), (page_name, predict)
    assert predict or page_name == "book/mistakes", f"{page_name} asks no prediction"
    assert last >= 3, (page_name, last)


@pytest.mark.parametrize("page_name", PAGES)
def test_each_wrong_answer_gets_its_own_feedback_and_the_right_one_opens_the_answer(
        browser, server, page_name):
    """Each typical wrong answer is named, the worked answer waits for an attempt, and the
    right answer says so and opens it."""
    page, errors = _open(browser, server, page_name)
    try:
        boxes = _boxes(page)
        if page_name in CHAPTERS:
            assert len(boxes) >= 4, f"{page_name} has {len(boxes)} checks"
        for box, spec in boxes:
            where = f"{page_name} #{box.get_attribute('id')}"
            details = box.locator("details.course-check-answer")
            assert not details.is_visible(), f"{where}: the answer shows before an attempt"
            assert spec["mistakes"], f"{where} has no feedback for a typical wrong answer"
            for mistake in spec["mistakes"]:
                said = answer(page, box, spec, mistake["value"])
                assert said.startswith("Not quite:"), (where, mistake, said)
                assert _text(mistake["feedback"]) in said, (where, mistake, said)
                assert details.is_visible() and not details.evaluate("d => d.open"), where
            said = answer(page, box, spec, spec["answer"])
            assert said.startswith("Right:") and _text(spec["right"]) in said, (where, said)
            assert details.evaluate("d => d.open"), f"{where}: the right answer left it closed"
            assert details.locator(".course-check-body").inner_text().strip(), where
    finally:
        page.close()
    assert errors == [], errors


# (page, check, what a reader types, what the feedback must say): the golden numbers
TYPED = [
    ("book/tying", "check-tied-count-check", "124,412,160", "Right:"),
    ("book/tying", "check-tied-count-check", "124 412 160", "Right:"),
    ("book/tying", "check-tied-count-check", "124412160 parameters", "Right:"),
    ("book/tying", "check-tied-count-check", "163,009,536", "that is the untied count"),
    ("book/tying", "check-tied-count-check", "124,439,808",
     "that is Hugging Face's GPT-2: tied, and with biases on the query, key and value"),
    ("book/tying", "check-tied-count-check", "123,625,728",
     "also removes the position embedding"),
    ("book/tying", "check-tied-count-check", "130,000,000", "too high"),
    ("book/tying", "check-tied-count-check", "many", "That is not a number"),
    ("book/output", "check-shape-check", "[2, 4, 50257]", "Right:"),
    ("book/output", "check-shape-check", "torch.Size([2, 4, 50257])", "Right:"),
    ("book/output", "check-shape-check", "2, 4, 50,257", "Right:"),
    ("book/output", "check-shape-check", "2 x 4 x 50257", "Right:"),
    ("book/output", "check-shape-check", "[2, 4]", "that is the input's shape"),
    ("book/output", "check-shape-check", "[2, 4, 768]", "768 is emb_dim"),
    ("book/output", "check-numbers-check", "1,608,224", "Right:"),
    ("book/counting", "check-attention-check", "2,360,064", "Right:"),
    ("book/counting", "check-attention-check", "2,359,296",
     "leaves out the output projection's 768 biases"),
    ("book/counting", "check-ff-check", "4,722,432", "Right:"),
    ("book/counting", "check-depth-check", "85,026,816", "Right:"),
    ("book/counting", "check-context-check", "786,432", "Right:"),
    ("book/counting", "check-adamw-check", "2,487 MiB", "Right:"),
    ("book/counting", "check-adamw-check", "2487.3", "Right:"),
    ("book/counting", "check-adamw-check", "621.83", "that is the weights alone"),
    ("book/logits_to_text", "check-no-cache-check", "5,350", "Right:"),
    ("book/logits_to_text", "check-cache-check", "103", "Right:"),
    ("book/logits_to_text", "check-cache-check", "104", "the last new token is never fed back"),
    ("book/mistakes", "check-q4-check", "1,598.78", "Right:"),
    ("book/mistakes", "check-q4-check", "1599", "Right:"),      # MiB to 0.1 %
    ("book/mistakes", "check-q4-check", "1676", "in MB"),
    ("book/tying", "check-medium-mib-check", "196.3 MiB", "Right:"),
    ("book/tying", "check-tied-count-check", "124M", "Nearly: that is the answer rounded"),
    ("book/tying", "check-tied-count-check", "124.41 million", "Nearly"),
    ("book/tying", "check-tied-count-check", "163 million", "untied count"),
    ("book/counting", "check-ff-check", "1,181,184", "widens"),  # forgot to widen: 2d² + 2d
    ("book/mistakes", "check-q6-check", "4", "Right:"),
    ("book/sampling", "check-stretch-check", "0.25", "Right:"),
    ("book/sampling", "check-stretch-check", "4", "divides the scores"),
]


@pytest.mark.parametrize("page_name", sorted({row[0] for row in TYPED}))
def test_answers_typed_as_readers_type_them(browser, server, page_name):
    """Commas, spaces, units and a shape in brackets are read as the reader means them."""
    page, errors = _open(browser, server, page_name)
    try:
        for _, anchor, text, expected in [row for row in TYPED if row[0] == page_name]:
            box = page.locator(f"#{anchor}")
            spec = json.loads(box.get_attribute("data-check"))
            said = answer(page, box, spec, text)
            assert expected in said, (anchor, text, said)
    finally:
        page.close()
    assert errors == [], errors


def _focused(page):
    return page.evaluate("""() => { const e = document.activeElement;
        return {tag: e.tagName.toLowerCase(), type: e.type || '', text: e.innerText || '',
                check: e.closest('.course-check') ? e.closest('.course-check').id : ''}; }""")


def _tab_to(page, wanted, limit=12):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if wanted(_focused(page)):
            return _focused(page)
    pytest.fail(f"not reached in {limit} presses of Tab; at {_focused(page)}")


def test_a_page_of_checks_works_from_the_keyboard_alone(browser, server):
    """On the weight-tying page: Tab to a check's field, type, Enter; Tab to a choice, pick
    it with the arrow keys, Space on Check; Tab to "Show the answer" and open it with Enter.
    Every verdict is in the live region that screen readers announce."""
    page, errors = _open(browser, server, "book/tying")
    try:
        count = page.locator("#check-tied-count-check")
        region = count.locator(".course-check-feedback")
        assert region.get_attribute("role") == "status"
        assert region.get_attribute("aria-live") == "polite"
        # start where a reader who scrolled to the question and clicked its text would
        page.locator("#check-tied-count-check").locator("xpath=..").locator("p").first.click()
        _tab_to(page, lambda f: f["check"] == "check-tied-count-check" and f["tag"] == "input")
        page.keyboard.type("163,009,536")
        page.keyboard.press("Enter")
        page.wait_for_function("el => el.textContent.includes('untied count')",
                               arg=region.element_handle(), timeout=WAIT_MS)
        page.keyboard.press("Control+A")
        page.keyboard.type("124412160")
        page.keyboard.press("Enter")
        page.wait_for_function("el => el.textContent.startsWith('Right')",
                               arg=region.element_handle(), timeout=WAIT_MS)
        assert count.locator("details").evaluate("d => d.open")

        parrot = page.locator("#check-parrot-check")
        spec = json.loads(parrot.get_attribute("data-check"))
        parrot.locator("xpath=preceding-sibling::p[1]").click()
        _tab_to(page, lambda f: f["check"] == "check-parrot-check" and f["type"] == "radio")
        wrong = next(m for m in spec["mistakes"] if m["value"] > 0)  # the options are shuffled
        for _ in range(wrong["value"]):  # arrow keys move the choice
            page.keyboard.press("ArrowDown")
        _tab_to(page, lambda f: f["check"] == "check-parrot-check" and f["tag"] == "button")
        page.keyboard.press(" ")
        said = parrot.locator(".course-check-feedback")
        page.wait_for_function("el => el.textContent.startsWith('Not quite')",
                               arg=said.element_handle(), timeout=WAIT_MS)
        assert _text(wrong["feedback"]) in " ".join(said.inner_text().split())
        summary = _tab_to(page, lambda f: f["check"] == "check-parrot-check"
                          and f["tag"] == "summary")
        assert summary["text"].strip() == "Show the answer"
        page.keyboard.press("Enter")
        assert parrot.locator("details").evaluate("d => d.open")
        assert "parrots" in parrot.locator(".course-check-body").inner_text()
    finally:
        page.close()
    assert errors == [], errors


def test_every_field_is_labelled_and_every_choice_is_a_named_group(browser, server):
    """A field's label names it, a choice is a fieldset with a legend, Check is a button."""
    page, _ = _open(browser, server, "book/output")
    try:
        names = page.eval_on_selector_all(".course-check", """boxes => boxes.map(b => {
            const field = b.querySelector('input[type=text]');
            const label = field ? document.querySelector(`label[for="${field.id}"]`) : null;
            const legend = b.querySelector('fieldset > legend');
            return {field: !!field, label: label ? label.textContent.trim() : '',
                    legend: legend ? legend.textContent.trim() : '',
                    button: b.querySelector('button[type=submit]').textContent.trim()};
        })""")
    finally:
        page.close()
    assert len(names) >= 5
    for name in names:
        assert name["button"] == "Check"
        assert (name["label"] if name["field"] else name["legend"]), name


def test_without_its_script_a_check_still_offers_its_answer(browser, server):
    """With checks.js blocked (no JavaScript for it), no form shows, and every worked
    answer is there behind "Show the answer"."""
    page = browser.new_page()
    page.route("**/checks.js*", lambda route: route.abort())
    try:
        page.goto(f"{server}/book/counting.html", wait_until="networkidle")
        boxes = page.locator(".course-check")
        assert boxes.count() >= 5
        assert page.locator(".course-check-form:visible").count() == 0
        first = boxes.first.locator("details.course-check-answer")
        assert first.is_visible()
        assert first.locator("summary").inner_text().strip() == "Show the answer"
        first.locator("summary").click()
        assert "163,009,536" in first.inner_text()
    finally:
        page.unroute("**/checks.js*")
        page.close()


def test_the_answers_of_choice_checks_sit_in_different_places(site):
    """Each choice check shows its options in an order of its own (shuffled from its key),
    so across the site the right option is not always first: it sits in at least two
    places, and no place holds more than half of the answers."""
    places = {}
    for page_name in PAGES:
        markup = (site / f"{page_name}.html").read_text(encoding="utf-8")
        for data in re.findall(r'data-check="([^"]*)"', markup):
            spec = json.loads(html.unescape(data))
            if spec["kind"] == "choice":
                assert 0 <= spec["answer"] < len(spec["choices"])
                places[f"{page_name}: {spec['right']}"] = spec["answer"]
    assert len(places) >= 10, places
    counts = [list(places.values()).count(place) for place in set(places.values())]
    assert len(counts) >= 2 and max(counts) <= len(places) / 2, places
