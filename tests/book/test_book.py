"""The course site as a reader gets it: built strictly, complete, free of solutions, offline.

The fixtures that build the site, serve it on 127.0.0.1 and open it in headless
Chromium through Playwright are in conftest.py (the accessibility test shares them);
the browser tests here record each network request. Screenshots of every chapter
land in ``_build/screenshots/`` for a person to look at.
"""

import html
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from PIL import Image

from testsupport.accessibility import WAIT_MS
from testsupport.assignments import ASSIGNMENTS
from testsupport.course import ROOT as COURSE_ROOT

ROOT = Path(COURSE_ROOT).resolve()
SITE = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"
BUILD_TIMEOUT_S = 1800  # guards a hung build; the tests run side by side

# Every page of the table of contents, in reading order.
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
PAGES = [TOC["root"]] + [chapter["file"] for chapter in TOC["chapters"]]

# Figures drawn at build time: (page, figure id).
FIGURES = [
    ("book/output", "scores-chart"),
    ("book/counting", "breakdown-chart"),
    ("book/tying", "tying-diagram"),
    ("book/tying", "tying-logits-chart"),
    ("book/logits_to_text", "next-token-chart"),
    ("book/counting", "model-diagram"),
    ("book/sampling", "temperature-chart"),
]
# The smallest text of a figure, in CSS pixels, as a phone 390 px wide shows it.
PHONE_WIDTH = 390
SMALLEST_TEXT_PX = 9

# Golden values from the course's specification, as a reader must see them.
REQUIRED_TEXT = [
    ("book/output", "[2, 4, 50257]"),
    ("book/counting", "163,009,536"),
    ("book/counting", "2,360,064"),
    ("book/counting", "4,722,432"),
    ("book/counting", "621.83"),
    ("book/counting", "406,212,608"),
    ("book/counting", "838,220,800"),
    ("book/counting", "1,637,792,000"),
    ("book/tying", "163,009,536"),
    ("book/tying", "38,597,376"),
    ("book/tying", "124,412,160"),
    ("book/tying", "124,439,808"),
    ("book/tying", "27,648"),
    ("book/logits_to_text", "Hello, I am Featureiman Byeswickattribute argue"),
    # the model's tensors, counted: 161 of them, and the state_dict's buffers
    ("book/counting", "them in 161 tensors"),
    ("book/counting", "175,592,448"),
    ("book/counting", "12 × 1,024 × 1,024 = 12,582,912"),
    # the module tree, generated from the model, with a buffer marked as one
    ("book/counting", "W_query: Linear weight [768, 768]"),
    ("book/counting", "mask [1024, 1024] (buffer)"),
    ("book/counting", "11 more blocks like the one above"),
    # the published checkpoints: tied and with query/key/value biases
    ("book/counting", "354,823,168"),
    ("book/counting", "774,030,080"),
    ("book/counting", "1,557,611,200"),
    # the head's share of the model, small to xl, and what tying does not save
    ("book/tying", "Tying removes 23.7% of gpt2-small but only 4.9% of gpt2-xl"),
    ("book/tying", "38,597,376 multiply-adds"),
    ("book/tying", "Gemma"),
    ("book/tying", "When to tie"),
    # generation for a batch of two texts
    ("book/logits_to_text", "[2, 10]"),
    ("book/mistakes", "Taking the argmax over the wrong dimension"),
    # the reference book, named, and its chapters as prerequisites
    ("book/intro", "Build a Large Language Model (From Scratch)"),
    ("book/intro", "Chapter 2, working with text data"),
    ("book/intro", "Chapter 4, the GPT model"),
    ("book/intro", "[batch, num_tokens, vocab_size]"),
    ("book/homework", "earns nothing"),
    ("book/homework", "count_on_meta(config)"),
    ("book/homework", "generate_until(model, idx, max_new_tokens, context_size, stop_id)"),
    # the reference book, described as it is: it copies wte into the head when it loads
    # GPT-2's weights, claims less compute, and prints its first logits in train mode
    ("book/tying", "its loader copies the token-embedding matrix wte into the output head"),
    ("book/tying", "computational complexity of the model"),
    ("book/mistakes", "copies the token-embedding matrix into the output head"),
    ("book/intro", "with dropout still on, before model.eval()"),
    ("book/output", "without model.eval()"),
    # a tied model's state_dict: the matrix twice and the masks
    ("book/tying", "sums to 175,592,448"),
    # PyTorch stores a linear layer's weight as [out_features, in_features]
    ("book/counting", "shows [3072, 768] in the tree above"),
    # the default of tie_word_embeddings is the configuration class's
    ("book/tying", "false for Llama, Mistral and Qwen2"),
    # beyond greedy: temperature, top-k, top-p, seeded draws; the tied model's stretch
    # as a temperature; greedy's loop; the loop's cost with and without a KV cache
    ("book/sampling", "top-p 0.9 keeps 38,201 tokens"),
    ("book/sampling", "head weights 48.0 times larger"),
    ("book/sampling", "stretching scores by 48 is sampling at a temperature of 0.0208"),
    ("book/sampling", "'Hello, I am am am am am'"),
    ("book/logits_to_text", "it is 503,500 against 1,003"),
    # tying in training: the summed gradient, the optimiser built too early, the saved file
    ("book/tying_in_practice", "rows with a gradient: lookup 5 head 50,257 shared 50,257"),
    ("book/tying_in_practice", "optimiser holds the old head: True"),
    ("book/tying_in_practice", "the whole 147.24 MiB that tying was meant to save"),
    ("book/tying_in_practice", "loaded into a fresh model, tied: False equal values: True"),
    ("book/tying_in_practice", "torch.save(model), loaded, tied: True"),
    # the slips every learner makes: no eval(), tying late, softmax twice, UTF-8 split
    ("book/mistakes", "two calls in training mode differ by up to"),
    ("book/mistakes", "Tie before building the optimiser"),
    ("book/mistakes", "probabilities: 10.8249"),
    ("book/mistakes", "'Tokyo is \ufffd\ufffd\ufffd\ufffd\ufffd'"),
    ("book/mistakes", "'Tokyo is 東京'"),
    # the fourth edition's: the optimiser and new Parameters, an untied file into a tied
    # model, greedy's loop as the model's, top-k's ties, the crop's error, handing in
    # the book's loader replaces every Parameter: the optimiser holds none the model
    # uses, and a step moves none of the model's tensors
    ("book/tying_in_practice", "Parameters the optimiser holds that the model uses: 0 of 31"),
    ("book/tying_in_practice", "tensors of the model that a step changed: 0 of 31"),
    ("book/tying_in_practice", "Not one of the model's 31 tensors moved"),
    # a KV cache the reader writes: the same tokens, faster
    ("book/logits_to_text", "the same tokens: True"),
    ("book/logits_to_text", "Both loops wrote the same 40 tokens"),
    ("book/logits_to_text", "[1, 12, 4, 64]"),
    # from logits to loss: by hand and with cross_entropy, near ln 50,257 untrained
    ("book/loss", "loss by hand: 10.8308"),
    ("book/loss", "cross_entropy: 10.8308"),
    ("book/loss", "The loss of the untrained model is 10.8308"),
    ("book/loss", "= 10.8249"),
    ("book/loss", "loss before the step 2.4102, after 1.7235"),
    # every assignment counted, its explain question too, from exercises/
    ("book/homework", "sampling.ipynb (12 points: 10 automatic, 2 graded by hand)"),
    ("book/homework", "The explain question"),
    ("book/homework", "a temperature of 0 or below raises"),
    ("book/homework", "its source is not yours to copy"),
    ("book/instructors", "The release holds 3 assignments"),
    ("book/instructors", "sampling 10 + 2 points"),
    ("book/instructors", "Release logits-to-text and sampling"),
    ("book/instructors", "Grading the explain questions"),
    ("book/intro", "3 assignments (logits-to-text, parameters and sampling)"),
    ("book/intro", "The checks are for practice: nothing records or grades them"),
    ("book/tying_in_practice", "the embedding now holds the file's head: True"),
    ("book/tying_in_practice", "safetensors"),
    ("book/sampling", "sampling repeats as well"),
    ("book/sampling", "The Curious Case of Neural Text Degeneration"),
    ("book/sampling", "draws ids [0, 1, 2]"),
    ("book/logits_to_text", "the cache must be rebuilt"),
    ("book/mistakes", "ValueError: input has 1030 tokens but context_length is 1024"),
    ("book/mistakes", "124,439,808"),
    ("book/homework", "Nbgrader → Assignment List, then Submit"),
    ("book/homework", "nbgrader validate parameters.ipynb"),
    ("book/homework", "pip install nbgrader"),
    ("book/homework", "capitals included"),
    ("book/homework", "total_params and tied_params come from your count_parameters"),
    # the fifth edition's: a second Parameter is no tie (H-2), transformers' default per
    # class (M-3), a stretch as a temperature (M-4), the learner's set-up first (M-1), the
    # reference book's error (L-2), the draws and the cache counted (L-3, L-4), a copy
    # tied (L-5), a slice (L-6), positions from 0 (L-7), the reference's bonus folders (L-12)
    ("book/tying_in_practice", "is not a tie at all"),
    ("book/tying_in_practice", "is_tied: False same memory: True"),
    ("book/tying_in_practice", "count_parameters: 6,533,632 (untied 6,533,632, tied 3,317,184)"),
    ("book/tying", "which transformers declares per class: true for GPT-2, false for Llama"),
    ("book/sampling", "Multiplying scores by s is a temperature of 1/s; naive tying "
                       "widens the scores about 48 times, which makes the softmax as "
                       "peaked as temperature 0.0208 would"),
    ("book/intro", "python -m venv .venv"),
    ("book/intro", "pip install -e . matplotlib jupyterlab jupytext"),
    ("book/mistakes", "IndexError: index out of range in self"),
    ("book/sampling", "5 seeded draws with top-k = 1 give 1 distinct id"),
    ("book/logits_to_text", "then one position for each new token after the first"),
    ("book/sampling", "tie_weights(copy.deepcopy(model))"),
    ("book/output", "which slice of logits holds the scores"),
    ("book/intro", "counting from 0"),
    ("book/logits_to_text", "ch04/03_kv-cache"),
    ("book/tying", "ch04/02_performance-analysis"),
    ("book/homework", "from the course site where your instructor set it up"),
    # for instructors: the late policy read from nbgrader_config.py, the licences
    ("book/instructors", "a notebook handed in after its due date scores 0"),
    ("book/instructors", "CC BY 4.0"),
    ("book/instructors", "Apache License 2.0"),
    ("book/instructors", "124,439,808 against 124,412,160"),
]

# Statements an earlier edition made that were imprecise or wrong; none may come back.
WITHDRAWN_TEXT = [
    ("book/counting", "two separate copies"),
    ("book/counting", "a few dozen"),
    ("book/counting", "as the published GPT-2 models do"),
    ("book/tying", "about 768 here"),
    ("book/mistakes", "Reading the last dimension as words"),
    ("book/homework", "not available in the notebook"),
    ("book/output", "(batch, position, vocabulary)"),
    # the second edition's, corrected after the learner's review
    ("book/intro", "total conviction"),
    ("book/intro", "picks up where chapter 4"),
    ("book/intro", "Nothing is typed in by hand"),
    ("book/intro", "decode, repeat"),
    ("book/output", "which is why the model produces them all"),
    ("book/output", "too big to build"),
    ("book/counting", "PyTorch can print the same map"),
    ("book/counting", "holds an m × n weight matrix"),
    ("book/counting", "four times and narrows"),
    ("book/counting", "counted in"),
    ("book/counting", "no memory at all"),
    ("book/tying", "keeps it that way"),
    ("book/tying", "exactly like the untied one"),
    ("book/tying", "large, noisy gradients"),
    ("book/tying", "redraw only the token matrix and the position rows"),
    ("book/logits_to_text", "append and repeat"),
    ("book/logits_to_text", "what sampling and training use"),
    ("book/logits_to_text", "by a hair"),
    ("book/mistakes", "Subtracting the wrong block"),
    ("book/mistakes", "and this course's, does not"),
    ("book/homework", "One mistake, one question"),
    # the third edition's, corrected after the fourth review
    ("book/intro", "ties the weights, and"),
    ("book/intro", "always run the model in eval mode"),
    ("book/output", "changes none of them"),
    ("book/tying", "defaults to true when the file leaves it out"),
    ("book/tying", "so each step updates it once"),
    ("book/tying", "So the highest score goes"),
    ("book/tying", "where the idea comes from"),
    ("book/tying", "which runs arbitrary code"),
    ("book/logits_to_text", "Greedy decoding has a known failure: once"),
    ("book/logits_to_text", "the work grows with the square"),
    ("book/mistakes", "The slip trains nothing"),
    ("book/homework", "The one exception is"),
    ("book/homework", " 0 minutes"),
    # the fourth edition's, corrected after the fifth review
    ("book/tying", "and so does tying written as"),
    ("book/tying", "whose GPT2Config inherits the base class's"),
    ("book/logits_to_text", "draws above gave"),
    ("book/logits_to_text", "then one position per new token"),
    ("book/logits_to_text", "no copy: the untied model is not needed below"),
    ("book/logits_to_text", "as naive tying does, is a temperature of"),
    ("book/mistakes", "refusal is undefined"),
    ("book/output", "which entry of logits scores"),
    ("book/intro", "is the t-th token"),
    ("book/intro", "make test    # the same set-up, then every test"),
    ("book/homework", "when the course has released the notebooks with one"),
    ("book/homework", "from the course's repository"),
]

NOTEBOOKS = {name: row.file_name for name, row in ASSIGNMENTS.items()}


def _page_html(site, page):
    path = site / f"{page}.html"
    assert path.exists(), f"{page}.html was not built"
    return path.read_text(encoding="utf-8")


class _TextExtractor(HTMLParser):
    """The text a reader sees in the article, without scripts or styles."""

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _visible_text(markup):
    extractor = _TextExtractor()
    extractor.feed(markup)
    return re.sub(r"\s+", " ", "".join(extractor.parts))


# --------------------------------------------------------------------------- content

# A figure typed into prose: a number with a thousands comma or a decimal point, or
# one of 100 or more. Small whole numbers (positions, "step 2") are not figures.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?![\w])")
_CODE_FENCE = re.compile(r"^(`{3,})(\{code-cell\}|[a-z]*$)")
# A paper's year, as a citation writes it: "(ICLR, 2020)" or "(2017)". Not a figure.
_CITATION_YEAR = re.compile(r"(?<=[(\s])(?:19[5-9]\d|20[0-3]\d)\)")
# A licence's version is part of its name ("CC BY 4.0", "Apache License 2.0"). Not a figure.
_LICENCE_NAME = re.compile(r"\b(?:CC BY|Attribution|Apache License,?(?: Version)?) \d\.\d\b")


def _prose(path):
    """(line number, text) of the prose of a page: no code, no glue role, no math."""
    lines = path.read_text().splitlines()
    fence = None
    in_front_matter = lines[:1] == ["---"]
    for number, line in enumerate(lines, start=1):
        if in_front_matter:
            in_front_matter = number == 1 or line != "---"
            continue
        if fence:
            if line.startswith(fence) and line.strip() == fence:
                fence = None
            continue
        opening = _CODE_FENCE.match(line)
        if opening and not line.startswith("```{glue") and line.strip() != "```":
            fence = opening.group(1)
            continue
        if line.startswith(":") and not line.startswith(":::"):
            continue  # a directive option (:tags:, :name:, :alt:, ...)
        text = re.sub(r"\{[\w:]+\}`[^`]*`", " ", line)  # roles, glue values included
        text = re.sub(r"`[^`]*`", " ", text)
        text = re.sub(r"\$[^$]*\$", " ", text)
        text = _CITATION_YEAR.sub(")", text)
        text = _LICENCE_NAME.sub("", text)
        yield number, text


@pytest.mark.parametrize("page", PAGES)
def test_prose_types_no_figures(page):
    """Counts, sizes and shapes in a page's prose are glued from code, never typed."""
    typed = []
    for number, text in _prose(ROOT / f"{page}.md"):
        for figure in _NUMBER.findall(text):
            if "," in figure or "." in figure or int(figure) >= 100:
                typed.append(f"line {number}: {figure!r} in {text.strip()!r}")
    assert typed == [], "typed figures (glue them instead):\n" + "\n".join(typed)


@pytest.mark.parametrize("page,text", REQUIRED_TEXT)
def test_page_shows_the_computed_value(site, page, text):
    """Each golden value appears in the text of its page, as computed at build time."""
    assert text in _visible_text(_page_html(site, page)), f"{text!r} missing from {page}"


@pytest.mark.parametrize("page,text", WITHDRAWN_TEXT)
def test_a_withdrawn_statement_is_gone(site, page, text):
    """An imprecise statement of an earlier edition no longer appears on its page."""
    assert text not in _visible_text(_page_html(site, page)), f"{text!r} is back on {page}"


def _number_after(site, page, words):
    """The number that follows ``words`` on a page (commas dropped)."""
    text = _visible_text(_page_html(site, page))
    match = re.search(re.escape(words) + r"\s*([\d,]+(?:\.\d+)?)", text)
    assert match, f"{words!r} followed by a number is missing from {page}"
    return float(match.group(1).replace(",", ""))


# how a student notebook states its time limits, in words
_NOTEBOOK_TIME = re.compile(r"each cell at most (\w+) minutes? and the whole notebook (\w+) minutes")
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}


def _stated_time_limits(path):
    """(seconds per cell, seconds per notebook) as a student notebook's text states them."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = " ".join(" ".join("".join(c["source"]).split())
                    for c in cells if c["cell_type"] == "markdown")
    match = _NOTEBOOK_TIME.search(text)
    assert match, (f"{path.name} no longer says 'each cell at most N minute(s) and the whole "
                   "notebook N minutes'")
    return tuple(60 * _WORD_NUMBERS[word] for word in match.groups())


def test_the_homework_page_states_the_time_limits_the_grader_applies(site):
    """The page's per-cell and per-notebook limits are the grader's, and the notebooks'."""
    from grader.settings import check_config, limits_from_config

    config, _ = check_config(str(ROOT))
    limits = limits_from_config(config)
    per_cell = _number_after(site, "book/homework", "with a limit of")
    notebook_minutes = _number_after(site, "book/homework", "seconds for each cell and of")
    assert limits.notebook_seconds > 0
    assert (per_cell, notebook_minutes * 60) == (limits.timeout, limits.notebook_seconds)
    for name, file_name in NOTEBOOKS.items():
        stated = _stated_time_limits(ROOT / "exercises" / name / file_name)
        assert stated == (limits.timeout, limits.notebook_seconds), (name, stated)


CHAPTERS = ["book/output", "book/counting", "book/tying", "book/tying_in_practice",
            "book/logits_to_text", "book/sampling", "book/loss"]


@pytest.mark.parametrize("page", CHAPTERS)
def test_a_chapter_ends_with_three_to_five_questions_to_check_yourself(site, page):
    """The last section, "Check yourself", holds 3 to 5 numbered questions, each answered in
    a check of its own (tests/book/test_checks.py answers them in the browser)."""
    markup = _page_html(site, page)
    start = markup.find('<section id="check-yourself">')
    assert start > 0, f"{page} has no section Check yourself"
    section = markup[start:]
    assert "<section id=" not in section[1:], f"Check yourself is not the last section of {page}"
    questions = re.findall(r"<p><strong>(\d+)\.</strong>", section)
    assert 3 <= len(questions) <= 5, questions
    assert questions == [str(i) for i in range(1, len(questions) + 1)]
    checks = re.findall(r'<div class="course-check" id="([^"]+)"', section)
    assert len(questions) <= len(checks) <= len(questions) + 1, (questions, checks)
    # every question and answer glued or written out: no raw glue role left
    assert "{glue" not in _visible_text(section)


_PLAN = re.compile(r"About (\d+) minutes: ([\d,]+) words(?:, (\d+) code cells?)?"
                   r"(?: and (\d+) checks?)?\.")


def _plan_of(site, page):
    """(minutes, words, code cells, checks) the page's plan states, and the page's markup."""
    markup = _page_html(site, page)
    box = re.search(r'<div class="course-plan">(.*?)</div>', markup, re.S)
    assert box, f"{page} has no plan at its top"
    stated = _PLAN.search(_visible_text(box.group(1)))
    assert stated, f"{page}: no reading time in {box.group(1)[:200]!r}"
    assert "After this page you can" in box.group(1) and "<li>" in box.group(1), page
    minutes, words, cells, checks = stated.groups()
    return (int(minutes), int(words.replace(",", "")), int(cells or 0), int(checks or 0)), markup


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_with_its_objectives_and_a_reading_time_it_computed(site, page):
    """The plan counts the page as it is: its checks and code cells, and a time that follows
    from them and its words, rounded up to five minutes."""
    (minutes, words, cells, checks), markup = _plan_of(site, page)
    body = markup[markup.find("<article"):]
    assert 0 < body.find('<div class="course-plan">') < body.find("<h2"), "not at the top"
    article = body[body.find('<div class="course-plan">'):]
    assert checks == len(re.findall(r'<div class="course-check" ', article))
    assert cells == len(re.findall(r'<div class="cell[ "][^>]*docutils container"', article))
    assert words > 300
    exact = words / 180 + cells + checks
    assert minutes == max(5, 5 * -(-exact // 5)), (minutes, exact)


def test_the_instructors_table_lists_every_page_with_its_own_time(site):
    """The instructors' page quotes each page's minutes as that page states them."""
    markup = _page_html(site, "book/instructors")
    table = re.search(r'<table[^>]*course-page-times.*?</table>', markup, re.S)
    assert table, "no table of reading times"
    rows = re.findall(r'<tr[^>]*>\s*<td[^>]*><p><a[^>]*href="([^"#]+)"[^>]*>.*?</a></p></td>'
                      r'\s*<td[^>]*><p>(\d+)</p></td>', table.group(0), re.S)
    listed = {"book/" + href.removesuffix(".html"): int(minutes) for href, minutes in rows}
    assert set(listed) == set(PAGES) - {"book/instructors"}, listed
    for page, minutes in listed.items():
        assert _plan_of(site, page)[0][0] == minutes, page


def test_tied_models_score_for_the_token_just_read_is_d_over_root_two_not_d(site):
    """The parroting score is measured: about 768 / sqrt(2), because the position row shares the stream."""
    score = _number_after(site, "book/tying", "The score of the token just read is about")
    predicted = _number_after(site, "book/tying", "768 / \u221a2 =")
    assert abs(predicted - 768 / 2**0.5) < 1
    assert 0.85 * predicted < score < 1.15 * predicted, (score, predicted)


def test_the_blocks_variance_closes_the_rest_of_the_gap(site):
    """Dividing by the measured scale of the residual stream predicts the score within 10%."""
    score = _number_after(site, "book/tying", "The score of the token just read is about")
    refined = _number_after(site, "book/tying", "becomes about")
    assert abs(refined - score) < 0.1 * score, (refined, score)


def test_the_fix_says_how_much_larger_the_position_rows_would_be(site):
    """Redrawing only the token matrix at 0.02 leaves N(0, 1) position rows about 50 times larger."""
    ratio = _number_after(site, "book/tying", "would leave the position rows")
    assert 45 <= ratio <= 55, ratio


def test_every_page_writes_shapes_in_one_style(site):
    """Shapes are [batch, num_tokens, vocab_size]: no (1, n) or (batch, T) style left in the text."""
    for page in PAGES:
        text = _visible_text(_page_html(site, page))
        for old in ("(1, n)", "(batch, n)", "(batch, T", "(b, T", "(1, n, vocab_size)"):
            assert old not in text, f"{page} still writes {old}"


def test_every_toc_page_is_built_and_nothing_else(site):
    """Only the pages of _toc.yml become pages: no README, package, tests or homework."""
    built = sorted(
        str(p.relative_to(site).with_suffix("")) for p in site.rglob("*.html")
        if not p.relative_to(site).parts[0].startswith("_")
    )
    assert built == sorted(PAGES + ["genindex", "index", "search"])
    for folder in ("solutions", "exercises", "tests", "src", "course-data", ".venv"):
        assert not (site / folder).exists(), f"{folder}/ was copied into the site"


def _figure_svg(site, page, figure_id):
    """The SVG file of a figure, after checking the figure's alt text."""
    markup = _page_html(site, page)
    match = re.search(rf'<figure[^>]*id="{figure_id}".*?</figure>', markup, re.S)
    assert match, f"no figure with id {figure_id!r} on {page}"
    img = re.search(r'<img[^>]*src="([^"]+)"[^>]*>', match.group(0))
    assert img, f"figure {figure_id!r} has no image"
    assert re.search(r'alt="[^"]{20,}"', img.group(0)), f"{figure_id!r} has no alt text"
    path = (site / page).parent / html.unescape(img.group(1))
    assert path.exists(), f"{figure_id!r} points to missing {img.group(1)}"
    return path


# matplotlib draws each run of text as glyphs scaled by the font size / 100
_TEXT_SCALE = re.compile(r'<g transform="translate\([^)]*\) ?scale\(([\d.]+) -[\d.]+\)"')


@pytest.mark.parametrize("page,figure_id", FIGURES)
def test_figure_is_an_svg_drawn_at_build_time_on_a_white_ground(site, page, figure_id):
    """Each chart is a vector figure with alt text, on an opaque white ground that holds in
    the dark theme, its text large enough for a phone (the browser test measures it)."""
    path = _figure_svg(site, page, figure_id)
    svg = path.read_text(encoding="utf-8")
    assert path.suffix == ".svg" and "<svg" in svg[:500]
    width = float(re.search(r'<svg[^>]*width="([\d.]+)pt"', svg).group(1))
    assert 250 <= width <= 6.5 * 72, f"{figure_id!r} is {width} pt wide"
    ground = re.search(r'<g id="patch_1">\s*<path d="[^"]*"\s*style="fill: ?(#[0-9a-f]+)', svg)
    assert ground and ground.group(1) == "#ffffff", f"{figure_id!r} has no white ground"
    sizes = [100 * float(s) for s in _TEXT_SCALE.findall(svg)]
    assert sizes and min(sizes) >= 11, (figure_id, sorted(set(sizes)))


def test_every_figure_reads_on_a_phone(browser, server, site):
    """At 390 px the smallest text of every figure is at least SMALLEST_TEXT_PX CSS pixels."""
    page = browser.new_page()
    too_small = []
    try:
        page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
        for name, figure_id in FIGURES:
            page.goto(f"{server}/{name}.html", wait_until="networkidle")
            shown = page.locator(f"#{figure_id} img").evaluate("i => i.getBoundingClientRect().width")
            svg = _figure_svg(site, name, figure_id).read_text(encoding="utf-8")
            width_pt = float(re.search(r'<svg[^>]*width="([\d.]+)pt"', svg).group(1))
            smallest_pt = min(100 * float(s) for s in _TEXT_SCALE.findall(svg))
            px = smallest_pt * shown / width_pt  # 1 pt of the drawing is shown / width_pt px
            if px < SMALLEST_TEXT_PX:
                too_small.append((figure_id, round(px, 1)))
    finally:
        page.close()
    assert too_small == [], too_small


def _site_texts(site):
    """(path, text) of every text file in the site; notebooks as their cell sources."""
    for path in site.rglob("*"):
        if not path.is_file() or path.suffix in (".png", ".woff", ".woff2", ".ico", ".svg"):
            continue
        raw = path.read_bytes().decode("utf-8", errors="replace")
        if path.suffix == ".html":
            yield path, _visible_text(raw) + " " + html.unescape(raw)
        elif path.suffix == ".ipynb":
            cells = json.loads(raw)["cells"]
            yield path, "\n".join("".join(c["source"]) for c in cells)
        else:
            yield path, raw


def _solution_snippets():
    """Lines that exist only in solutions/: solution code and hidden tests.

    Lines that the course publishes anyway (the pages, the package's own source,
    the student notebooks) are left out: finding them on the site proves nothing.
    """
    public = [p.read_text() for p in (ROOT / "book").glob("*.md")]
    public += [p.read_text() for p in (ROOT / "src" / "gptcourse").glob("*.py")]
    for path in (ROOT / "exercises").rglob("*.ipynb"):
        public += ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    published = "\n".join(public)
    snippets = set()
    for path in (ROOT / "solutions").rglob("*.ipynb"):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            blocks = re.findall(r"### BEGIN (?:SOLUTION|HIDDEN TESTS)(.*?)### END", source, re.S)
            for block in blocks:
                for line in block.splitlines():
                    line = line.strip()
                    if len(line) >= 30 and line not in published:
                        snippets.add(line)
    return snippets


def test_no_solution_or_hidden_test_reaches_the_site(site):
    """No nbgrader marker, solution line or hidden-test line is in any file of the site."""
    snippets = _solution_snippets()
    assert len(snippets) >= 10, "found too few solution lines in solutions/ to check against"
    markers = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
    for path, text in _site_texts(site):
        where = path.relative_to(site)
        for marker in markers:
            assert marker not in text, f"{where} contains the nbgrader marker {marker!r}"
        for snippet in snippets:
            assert snippet not in text, f"{where} contains solution code: {snippet!r}"
        assert "solutions/" not in text, f"{where} refers to solutions/"


def test_no_page_references_a_script_style_or_font_elsewhere(site):
    """Every script, stylesheet, font and image a page loads has a local address."""
    pattern = re.compile(r'<(?:script|link|img|iframe|source)\b[^>]*?(?:src|href)="([^"]+)"')
    for path in site.rglob("*.html"):
        for address in pattern.findall(path.read_text(encoding="utf-8")):
            parsed = urlparse(html.unescape(address))
            assert not parsed.scheme and not parsed.netloc, (
                f"{path.relative_to(site)} loads {address} from another host")
    for path in site.rglob("*.css"):
        for address in re.findall(r"url\(\s*['\"]?([^'\")]+)", path.read_text()):
            assert not urlparse(address).netloc, f"{path.relative_to(site)} loads {address}"


@pytest.mark.parametrize("assignment,notebook", NOTEBOOKS.items())
def test_homework_links_the_student_notebook(site, assignment, notebook):
    """The homework page offers each student notebook from exercises/, byte for byte."""
    markup = _page_html(site, "book/homework")
    links = re.findall(rf'href="([^"]*/{re.escape(notebook)})"', markup)
    assert links, f"no download link to {notebook}"
    served = (site / "book" / html.unescape(links[0])).resolve()
    assert served.read_bytes() == (ROOT / "exercises" / assignment / notebook).read_bytes()
    assert served.read_bytes() != (ROOT / "solutions" / assignment / notebook).read_bytes()


# --------------------------------------------------------------------------- browser

class _Recorder:
    """Every request, failed request, bad response and console error of one page."""

    def __init__(self, page):
        self.requests, self.failed, self.bad, self.errors = [], [], [], []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        page.on("response", lambda r: r.status >= 400 and self.bad.append(f"{r.status} {r.url}"))
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def foreign(self):
        return [u for u in self.requests
                if urlparse(u).scheme not in ("data", "blob")
                and urlparse(u).hostname != "127.0.0.1"]


def _open(browser, url):
    page = browser.new_page()
    recorder = _Recorder(page)
    page.goto(url, wait_until="networkidle")
    return page, recorder


@pytest.mark.parametrize("name", PAGES)
def test_page_loads_offline_without_errors(browser, server, name):
    """A page loads only from 127.0.0.1, logs no error, and every image has loaded."""
    page, recorder = _open(browser, f"{server}/{name}.html")
    try:
        images = page.eval_on_selector_all(
            "img", "els => els.map(e => [e.getAttribute('src'), e.complete, e.naturalWidth])")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{Path(name).name}.png"), full_page=True)
    finally:
        page.close()
    assert recorder.requests, "the page made no request at all"
    assert recorder.foreign() == [], f"requests to other hosts: {recorder.foreign()}"
    assert recorder.failed == [], f"failed requests: {recorder.failed}"
    assert recorder.bad == [], f"error responses: {recorder.bad}"
    assert recorder.errors == [], f"console errors: {recorder.errors}"
    not_loaded = [src for src, complete, width in images if not (complete and width > 0)]
    assert not_loaded == [], f"images that did not load: {not_loaded}"


def test_math_is_typeset_by_the_local_mathjax(browser, server):
    """Formulas are typeset, by the MathJax copy the site serves itself, which holds the one
    combined component the pages load and what it loads on demand: the other renderer of
    its menu, a TeX extension, the speech of its accessibility menu."""
    page, recorder = _open(browser, f"{server}/book/tying.html")
    try:
        page.wait_for_selector("mjx-container", timeout=WAIT_MS)
        count = page.eval_on_selector_all("mjx-container", "els => els.length")
        on_demand = page.evaluate(
            "() => MathJax.loader.load('output/svg', '[tex]/physics', 'a11y/sre')"
            ".then(() => 'loaded', error => String(error))")
    finally:
        page.close()
    assert count >= 5
    assert on_demand == "loaded"
    mathjax = [u for u in recorder.requests if "mathjax" in u]
    assert mathjax and all(urlparse(u).hostname == "127.0.0.1" for u in mathjax)
    for component in ("output/svg.js", "input/tex/extensions/physics.js", "a11y/sre.js"):
        assert any(u.endswith(f"/_static/mathjax/{component}") for u in mathjax), component
    assert recorder.failed == [] and recorder.bad == []
    served = SITE / "_static" / "mathjax"
    assert sorted(p.name for p in served.glob("*.js")) == ["tex-chtml.js"]


def test_search_finds_the_weight_tying_chapter(browser, server):
    """The site's own search, for "weight tying", lists the weight-tying chapter."""
    page, recorder = _open(browser, f"{server}/search.html?q=weight+tying")
    try:
        page.wait_for_selector("#full-text-results li a", timeout=WAIT_MS)
        hits = page.eval_on_selector_all(
            "#full-text-results li a", "els => els.map(e => e.getAttribute('href'))")
    finally:
        page.close()
    assert any("book/tying.html" in hit for hit in hits), hits
    assert recorder.foreign() == []


def test_download_button_offers_the_notebook_and_no_button_points_at_a_placeholder(
        browser, server):
    """The .ipynb download is a plain link; with repository.url empty, no launch button."""
    page, recorder = _open(browser, f"{server}/book/counting.html")
    try:
        hrefs = page.eval_on_selector_all("a", "els => els.map(e => e.href)")
        ipynb = [h for h in hrefs if h.endswith("counting.ipynb")]
        assert ipynb, "no .ipynb download link"
        response = page.request.get(ipynb[0])
        notebook = json.loads(response.body())
    finally:
        page.close()
    assert yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"] == ""
    hosts = {urlparse(h).hostname for h in hrefs}
    assert not hosts & {"mybinder.org", "colab.research.google.com"}, "a launch button is on"
    assert not any("example-org" in h for h in hrefs), "a link to the placeholder repository"
    assert recorder.foreign() == []
    assert notebook["nbformat"] == 4
    assert any("parameter_breakdown" in "".join(c["source"]) for c in notebook["cells"])
    # executed as the site shows it (L-10): outputs under the code, values in the prose
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert sum(1 for c in code if c.get("outputs")) >= len(code) // 2
    prose = "\n".join("".join(c["source"]) for c in notebook["cells"]
                      if c["cell_type"] == "markdown")
    assert "{glue" not in prose and "163,009,536" in prose
    assert ":::{check}" not in prose and "<summary>Show the answer</summary>" in prose
    figures = [c for c in notebook["cells"] if c.get("attachments")]
    assert len(figures) == 2, "the two figures of the page, as cell attachments"


# A one-page book with the site's configuration, extensions and styles, built to see
# what repository.url does to the buttons without building the whole site again.
SCRATCH_PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A page

```{code-cell} ipython3
1 + 1
```
"""


def _build_scratch_book(tmp_path, repository_url):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"]["url"] = repository_url
    config["execute"]["execute_notebooks"] = "force"  # one cell: 1 + 1
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/page\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "page.md").write_text(SCRATCH_PAGE)
    (tmp_path / "book" / "page.ipynb").write_text("{}")  # the paired notebook
    for name in ("_ext", "_static", "favicon.svg"):
        (tmp_path / "book" / name).symlink_to(ROOT / "book" / name)
    (tmp_path / ".book-deps" / "static").mkdir(parents=True)
    return subprocess.run(
        [str(ROOT / ".venv" / "bin" / "jupyter-book"), "build", str(tmp_path),
         "--warningiserror", "--nitpick", "--keep-going"],
        cwd=tmp_path, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)


def test_a_repository_url_turns_on_launch_buttons_that_open_the_paired_notebook(tmp_path):
    """With repository.url set, Binder and Colab open book/<page>.ipynb in that repository."""
    result = _build_scratch_book(tmp_path, "https://github.com/rasbt/LLMs-from-scratch")
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    markup = (tmp_path / "_build" / "html" / "book" / "page.html").read_text()
    hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]+)"', markup)]
    colab = [h for h in hrefs if urlparse(h).hostname == "colab.research.google.com"]
    binder = [h for h in hrefs if urlparse(h).hostname == "mybinder.org"]
    assert colab == ["https://colab.research.google.com/github/rasbt/LLMs-from-scratch"
                     "/blob/main/book/page.ipynb"], colab
    assert binder and all(h.endswith("book/page.ipynb") for h in binder), binder
    assert "https://github.com/rasbt/LLMs-from-scratch" in hrefs, "no repository button"


def test_a_placeholder_repository_url_stops_the_build_with_a_message(tmp_path):
    """The build fails, saying what to set, while repository.url is a placeholder."""
    result = _build_scratch_book(tmp_path, "https://github.com/example-org/gptcourse")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    assert "repository.url is 'https://github.com/example-org/gptcourse'" in output, output[-4000:]
    assert "leave it empty" in output


@pytest.mark.parametrize("page,token", [("book/output", "' Ae'"),
                                        ("book/logits_to_text", "' Feature'")])
def test_a_token_keeps_its_straight_quotes_and_leading_space(site, page, token):
    """Sphinx's smart quotes would turn ' Ae' into curly quotes that hide its space."""
    text = _visible_text(_page_html(site, page))
    curly = "\u2018" + token[1:-1] + "\u2019", "\u2019" + token[1:-1] + "\u2019"
    assert token in text, f"{token!r} missing from {page}"
    assert not any(c in text for c in curly), f"{page} shows {token!r} with curly quotes"


def test_glued_numbers_have_the_weight_of_their_sentence(browser, server):
    """A computed number reads as part of its sentence: bold only inside bold text."""
    page, _ = _open(browser, f"{server}/book/counting.html")
    try:
        pairs = page.eval_on_selector_all(
            "article .pasted-text", "els => els.map(e => [getComputedStyle(e).fontWeight, "
            "getComputedStyle(e.parentElement).fontWeight])")
    finally:
        page.close()
    assert len(pairs) > 20
    assert all(own == parent for own, parent in pairs), pairs


@pytest.mark.parametrize("width", [1280, 390])
def test_the_sizes_table_fits_the_page_and_reflows_on_a_phone(browser, server, width):
    """At 1280 px every column of the counting page's sizes table is in view; at a phone's
    width each row is a card whose values carry their column's heading."""
    page = browser.new_page()
    try:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{server}/book/counting.html", wait_until="networkidle")
        table = page.locator("table.reflow", has=page.locator("th", has_text="published")).first
        fits = table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth + 1")
        last = table.locator("tbody tr").first.locator("td").last
        display = last.evaluate("td => getComputedStyle(td).display")
        label = last.get_attribute("data-label")
        page_fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        page.close()
    assert fits, "the sizes table is wider than the text column"
    assert page_fits, "the page scrolls sideways"
    assert label == "published (tied, q/k/v biases)"
    assert display == ("table-cell" if width == 1280 else "flex")


def test_screenshots_were_saved_for_every_chapter(browser, server):
    """Each chapter left a screenshot a person can check, tall enough to be the page."""
    for name in PAGES:
        path = SCREENSHOTS / f"{Path(name).name}.png"
        if not path.exists():  # when run alone, take it here
            page, _ = _open(browser, f"{server}/{name}.html")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(path), full_page=True)
            page.close()
        with Image.open(path) as shot:
            assert shot.size[0] == 1280 and shot.size[1] > 900, (name, shot.size)



LONGEST_READ_MIN = 35


@pytest.mark.parametrize("page", PAGES)
def test_no_page_takes_longer_than_35_minutes_by_the_sites_own_estimate(site, page):
    """The reading time at the top of each page (book/_ext/page_plan.py: words, code cells
    and checks) is at most LONGEST_READ_MIN: a page that grows past it is split."""
    stated = re.findall(r"About (\d+) minutes:", _visible_text(_page_html(site, page)))
    assert stated, f"{page} states no reading time"
    assert int(stated[0]) <= LONGEST_READ_MIN, f"{page}: about {stated[0]} minutes"
