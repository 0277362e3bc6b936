"""The logits explorer shows what sample_next_token does with the logits it holds.

The page (sampling) stores, for each distribution, last-position logits rounded to
float16, the text of the tokens it may show, and the ids that the page's ``draw`` drew for
every setting of its controls when the page was built. This test reads that data back
from the built page and, for a fixed sample of the grid's settings and every
distribution, works out with gptcourse's own ``sample_next_token`` what the explorer must
show: the input of its
last softmax (wrapped, not replaced) gives the ids it keeps and the probabilities it draws
from, and the draws are made again from a generator seeded as ``draw`` seeds it. Then the
explorer's controls are set in Chromium and every number it shows is compared.

The sample (``_sampled_settings``) holds every corner of the grid, each value of each
control with the others at their defaults (T = 1, top-k and top-p off), and a few
settings drawn at random from a fixed seed: every control's extremes, every value each
control can take, and some mixtures, without the hundreds of settings of the whole grid.

One thing cannot be compared exactly: torch's descending sort does not keep equal scores
in id order, so where top-p's boundary falls among tokens of equal (float16) score,
which of them it keeps is torch's accident; the explorer keeps the lower ids. There the
test checks the count of kept tokens, which is the same, and not which of the equal
tokens they are.
"""

import base64
import itertools
import json
import random
import re
from unittest import mock

import numpy as np
import pytest
import torch

from gptcourse import get_tokenizer, sample_next_token
from testsupport.accessibility import WAIT_MS

ABS, REL = 1e-6, 1e-4  # probabilities: float32 in torch, float64 in the browser
RANDOM_SETTINGS, SAMPLE_SEED = 8, 2024   # the sample's settings drawn at random

_DATA = "() => JSON.parse(document.querySelector('#logits-explorer script.explorer-data').textContent)"
_SHOWN = """root => ({
  setting: JSON.parse(root.dataset.setting),
  keptCount: Number(root.dataset.keptCount), keptMass: Number(root.dataset.keptMass),
  rows: [...root.querySelectorAll("tbody tr")].map(r => ({
    id: Number(r.dataset.id), kept: r.dataset.kept === "true",
    tempered: Number(r.dataset.pTempered), final: Number(r.dataset.pFinal),
    token: r.querySelector(".explorer-token").textContent,
    cells: [...r.querySelectorAll("td")].map(c => c.textContent)})),
  draws: JSON.parse(root.querySelector(".explorer-draws").dataset.ids),
  drawTexts: [...root.querySelectorAll(".explorer-draws li")].map(li => li.textContent),
  kept: root.querySelector(".explorer-kept").textContent,
})"""


@pytest.fixture(scope="module")
def explorer(browser, server):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{server}/book/sampling.html", wait_until="networkidle")
    page.wait_for_selector("#logits-explorer[data-ready=true]", timeout=WAIT_MS)
    yield page
    page.close()
    assert errors == [], errors


@pytest.fixture(scope="module")
def data(explorer):
    return explorer.evaluate(_DATA)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """One torch thread for the reference: with the machine's cores shared, two threads
    waiting for each other make every sort of 50,257 scores many times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _sampled_settings(grid):
    """(temperature, top-k, top-p) indices: the grid's 8 corners; each value of each
    control, the others at T = 1 and off; RANDOM_SETTINGS more from a fixed seed."""
    sizes = [len(grid["temperatures"]), len(grid["top_ks"]), len(grid["top_ps"])]
    default = [grid["temperatures"].index(1.0), grid["top_ks"].index(None),
               grid["top_ps"].index(None)]
    chosen = set(itertools.product(*[(0, n - 1) for n in sizes]))
    for control, n in enumerate(sizes):
        for value in range(n):
            setting = list(default)
            setting[control] = value
            chosen.add(tuple(setting))
    rng = random.Random(SAMPLE_SEED)
    everything = sorted(itertools.product(*[range(n) for n in sizes]))
    chosen.update(rng.sample([s for s in everything if s not in chosen], RANDOM_SETTINGS))
    return sorted(chosen)


def _logits(distribution):
    """The stored logits as sample_next_token receives them: float32, [1, vocab_size]."""
    raw = base64.b64decode(distribution["logits"])
    return torch.from_numpy(np.frombuffer(raw, dtype="<f2").astype(np.float32)).reshape(1, -1)


def _reference(logits, temperature, top_k, top_p, seed, n_draws):
    """What sample_next_token keeps and draws from, and the draws of draw()."""
    with mock.patch.object(torch, "softmax", wraps=torch.softmax) as softmax:
        sample_next_token(logits, temperature=temperature, top_k=top_k, top_p=top_p)
    masked = softmax.call_args_list[-1].args[0][0]  # the last softmax: what it draws from
    kept = torch.isfinite(masked)
    generator = torch.Generator().manual_seed(seed)
    draws = [sample_next_token(logits, temperature=temperature, top_k=top_k, top_p=top_p,
                               generator=generator).item() for _ in range(n_draws)]
    tempered = torch.softmax(logits / temperature, dim=-1)[0]
    return {"kept": kept, "final": torch.softmax(masked, dim=-1), "tempered": tempered,
            "scaled": (logits / temperature)[0], "draws": draws}


def _set(page, index, ti, ki, pi):
    page.select_option("#logits-explorer-model", index=index)
    page.evaluate("""i => { const t = document.querySelector('#logits-explorer-temperature');
                          t.value = String(i); t.dispatchEvent(new Event('input')); }""", ti)
    page.select_option("#logits-explorer-top-k", index=ki)
    page.select_option("#logits-explorer-top-p", index=pi)


def _close(a, b):
    return abs(a - b) <= ABS + REL * abs(b)


def _percent_back(text):
    """'29.5%' -> 0.295; 'cut' -> 0."""
    return 0.0 if text == "cut" else float(text.rstrip("%")) / 100


DISTRIBUTIONS = ["story", "toy", "untrained", "tied"]


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_every_setting_shows_what_sample_next_token_keeps_draws_from_and_draws(
        explorer, data, name):
    """For each setting of the sample: the tokens shown, kept or cut, their probability
    after the temperature and after the cuts, the count and mass kept, and the draws."""
    grid = data["grid"]
    sample = _sampled_settings(grid)
    for control, values in enumerate((grid["temperatures"], grid["top_ks"], grid["top_ps"])):
        assert {s[control] for s in sample} == set(range(len(values)))  # every value once
    index = [d["name"] for d in data["distributions"]].index(name)
    distribution = data["distributions"][index]
    logits = _logits(distribution)
    values = logits[0].tolist()
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    problems = []
    for ti, ki, pi in sample:
        temperature = grid["temperatures"][ti]
        top_k, top_p = grid["top_ks"][ki], grid["top_ps"][pi]
        where = f"T={temperature} top_k={top_k} top_p={top_p}"
        _set(explorer, index, ti, ki, pi)
        shown = explorer.locator("#logits-explorer").evaluate(_SHOWN)
        ref = _reference(logits, temperature, top_k, top_p, grid["seed"], grid["draws"])
        assert shown["setting"] == {"model": name, "temperature": temperature,
                                    "top_k": top_k, "top_p": top_p}
        kept_count = int(ref["kept"].sum())
        if shown["keptCount"] != kept_count:
            problems.append(f"{where}: kept {shown['keptCount']}, torch {kept_count}")
        mass = ref["tempered"][ref["kept"]].sum().item()
        if not _close(shown["keptMass"], mass):
            problems.append(f"{where}: kept mass {shown['keptMass']}, torch {mass}")
        rows = shown["rows"]
        if [r["id"] for r in rows] != order[:grid["shown"]]:
            problems.append(f"{where}: rows {[r['id'] for r in rows]}")
        boundary = ref["scaled"][ref["kept"]].min().item()
        for row in rows:
            i = row["id"]
            tied_at_boundary = ref["scaled"][i].item() == boundary
            if row["kept"] != bool(ref["kept"][i]) and not tied_at_boundary:
                problems.append(f"{where}: id {i} kept={row['kept']} in the page")
            if not _close(row["tempered"], ref["tempered"][i].item()):
                problems.append(f"{where}: id {i} at T {row['tempered']} "
                                f"vs {ref['tempered'][i].item()}")
            if not tied_at_boundary and not _close(row["final"], ref["final"][i].item()):
                problems.append(f"{where}: id {i} drawn with {row['final']} "
                                f"vs {ref['final'][i].item()}")
            before, after = _percent_back(row["cells"][2]), _percent_back(row["cells"][3])
            if abs(before - row["tempered"]) > 0.0051 * max(row["tempered"], 1e-12) + 1e-14:
                problems.append(f"{where}: id {i} shows {row['cells'][2]}")
            if abs(after - row["final"]) > 0.0051 * max(row["final"], 1e-12) + 1e-14:
                problems.append(f"{where}: id {i} shows {row['cells'][3]}")
        if shown["draws"] != ref["draws"]:
            problems.append(f"{where}: draws {shown['draws']}, torch {ref['draws']}")
        if not all(ref["kept"][i] for i in shown["draws"]):
            problems.append(f"{where}: a draw outside the kept tokens")
        texts = [distribution["tokens"][str(i)] for i in ref["draws"]]
        if shown["drawTexts"] != texts:
            problems.append(f"{where}: draw texts {shown['drawTexts']}")
    assert problems == [], f"{len(problems)} differences:\n" + "\n".join(problems[:30])


def test_the_distributions_are_the_pages_models(data):
    """The untrained model's favourite is ' Feature', the tied one's ' am' (the prompt's last
    token), as the page found; the story model's logits are its own, rounded to float16;
    token texts are the tokenizer's."""
    import sys
    from pathlib import Path

    from testsupport.course import ROOT as COURSE_ROOT

    ROOT = Path(COURSE_ROOT).resolve()
    by_name = {d["name"]: d for d in data["distributions"]}
    tokenizer = get_tokenizer()
    for name, top_text in (("untrained", "' Feature'"), ("tied", "' am'")):
        distribution = by_name[name]
        logits = _logits(distribution)
        assert logits.shape == (1, 50257)
        top = logits[0].argmax().item()
        assert distribution["tokens"][str(top)] == top_text == repr(tokenizer.decode([top]))
        for i, text in distribution["tokens"].items():
            assert text == repr(tokenizer.decode([int(i)])), i
    from gptcourse.story import load_small_gpt, to_model_ids, to_text

    model, vocab = load_small_gpt()
    with torch.no_grad():
        expected = model(to_model_ids("He laughed", vocab, tokenizer))[:, -1, :]
    stored = _logits(by_name["story"])
    assert torch.equal(stored, expected.to(torch.float16).float())
    for i, text in by_name["story"]["tokens"].items():
        assert text == repr(to_text(torch.tensor([int(i)]), vocab, tokenizer))
    toy = _logits(by_name["toy"])
    top4 = expected[0].topk(4).values
    assert torch.allclose(toy[0], torch.round((top4 - top4[0]) * 10) / 10, atol=1e-3)


def test_the_explorer_works_from_the_keyboard_and_announces_what_changed(explorer, data):
    """Tab goes model, temperature, top-k, top-p; the arrow keys move the temperature one
    step; the summary, a polite live region, says the new setting."""
    explorer.select_option("#logits-explorer-model", index=0)
    explorer.select_option("#logits-explorer-top-k", index=0)
    explorer.select_option("#logits-explorer-top-p", index=0)
    _set(explorer, 0, data["grid"]["temperatures"].index(1.0), 0, 0)
    explorer.locator("#logits-explorer-model").focus()
    order = []
    for _ in range(3):
        explorer.keyboard.press("Tab")
        order.append(explorer.evaluate("document.activeElement.id"))
    assert order == ["logits-explorer-temperature", "logits-explorer-top-k",
                     "logits-explorer-top-p"]
    slider = explorer.locator("#logits-explorer-temperature")
    slider.focus()
    start = slider.get_attribute("aria-valuetext")
    assert start == "T = 1"
    explorer.keyboard.press("ArrowLeft")
    assert slider.get_attribute("aria-valuetext") == "T = 0.75"
    status = explorer.locator("#logits-explorer [role=status]")
    assert status.get_attribute("aria-live") == "polite"
    explorer.wait_for_function(
        "() => document.querySelector('#logits-explorer [role=status]').textContent"
        ".includes('T = 0.75')", timeout=WAIT_MS)
    assert re.search(r"of 1,416 tokens kept", status.text_content())
    explorer.locator("#logits-explorer-top-k").focus()
    explorer.keyboard.press("ArrowDown")  # off -> 1: greedy
    explorer.wait_for_function(
        "() => document.querySelector('#logits-explorer [role=status]').textContent"
        ".includes('top-k 1, top-p off')", timeout=WAIT_MS)
    shown = explorer.locator("#logits-explorer").evaluate(_SHOWN)
    assert shown["keptCount"] == 1 and len(set(shown["draws"])) == 1
    labels = explorer.evaluate("""() => [...document.querySelectorAll(
        '#logits-explorer input, #logits-explorer select')].map(
        e => e.labels.length ? e.labels[0].textContent.trim() : '')""")
    assert all(labels), labels
    assert json.loads(explorer.locator("#logits-explorer").get_attribute("data-setting"))
