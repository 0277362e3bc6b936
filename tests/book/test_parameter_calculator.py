"""The counting page's parameter calculator gives gptcourse's counts, for any configuration.

The calculator (book/_static/widgets/parameter-calculator.js) is set, through its form in
headless Chromium, to each configuration of a table: the four GPT-2 sizes as the course
builds them and as they were published (tied, with query/key/value biases), and odd ones.
Every number it shows is compared with the model built on the meta device:
``parameter_breakdown``, ``count_parameters`` and the page's MiB rule, ``model_size_mib``.
"""

import json

import pytest

from gptcourse import (GPT2_CONFIGS, GPT_CONFIG_124M, build_on_meta, count_output_head,
                       count_parameters, model_size_mib, parameter_breakdown, tie_weights)
from testsupport.accessibility import WAIT_MS

SMALL = GPT_CONFIG_124M
# (what the row is, configuration, tied)
CASES = [
    *[(f"{name} as the course builds it", cfg, False) for name, cfg in GPT2_CONFIGS.items()],
    *[(f"{name} as published: tied, q/k/v biases", {**cfg, "qkv_bias": True}, True)
      for name, cfg in GPT2_CONFIGS.items()],
    ("gpt2-small tied, no biases", SMALL, True),
    ("gpt2-small with q/k/v biases, untied", {**SMALL, "qkv_bias": True}, False),
    ("the story's vocabulary of a small GPT", {**SMALL, "vocab_size": 1416, "emb_dim": 128,
                                               "n_layers": 2, "n_heads": 4,
                                               "context_length": 64}, False),
    ("one of everything", {**SMALL, "vocab_size": 1, "emb_dim": 1, "n_layers": 1,
                           "n_heads": 1, "context_length": 1}, False),
    ("one of everything, tied, with biases", {**SMALL, "vocab_size": 1, "emb_dim": 1,
                                              "n_layers": 1, "n_heads": 1,
                                              "context_length": 1, "qkv_bias": True}, True),
    ("a vocabulary of 256,000, wide and shallow", {**SMALL, "vocab_size": 256000,
                                                   "emb_dim": 2048, "n_layers": 2,
                                                   "n_heads": 16, "context_length": 8192},
     True),
    ("deep and narrow, odd sizes", {**SMALL, "vocab_size": 997, "emb_dim": 60,
                                    "n_layers": 97, "n_heads": 5, "context_length": 333},
     False),
]
FIELDS = ("vocab_size", "emb_dim", "n_layers", "n_heads", "context_length")
COMPONENTS = ["token embedding", "position embedding", "attention", "feed-forward",
              "layer norms", "final norm", "output head", "total"]

_READ = """root => {
  const rows = {};
  for (const row of root.querySelectorAll("tbody tr")) {
    const cell = c => row.querySelector(`td[data-column="${c}"]`);
    rows[row.dataset.component] = {
      perBlock: cell("one block").dataset.value || null,
      parameters: cell("parameters").dataset.value || null,
      parametersText: cell("parameters").textContent,
      share: cell("share").textContent};
  }
  const value = key => root.querySelector(`dd[data-value-of="${key}"]`);
  return {rows, state: root.dataset.state,
          status: root.querySelector("[role=status]").textContent,
          float32: value("float32").textContent, bfloat16: value("bfloat16").textContent,
          head: value("head").dataset.value || null,
          inputs: Object.fromEntries([...root.querySelectorAll("input")].map(
            i => [i.name, i.type === "checkbox" ? i.checked : i.value]))};
}"""


@pytest.fixture(scope="module")
def calculator(browser, server):
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{server}/book/counting.html", wait_until="networkidle")
    page.wait_for_selector("#parameter-calculator[data-ready=true]", timeout=WAIT_MS)
    yield page
    page.close()
    assert errors == [], errors


def _root(page):
    return page.locator("#parameter-calculator")


def _read(page):
    return _root(page).evaluate(_READ)


def _wait_for_status(page, text):
    page.wait_for_function(
        "t => document.querySelector('#parameter-calculator [role=status]').textContent"
        ".includes(t)", arg=text, timeout=WAIT_MS)


def _set(page, cfg, tied):
    root = _root(page)
    for key in FIELDS:
        root.locator(f"input[name={key}]").fill(str(cfg[key]))
    root.locator("input[name=qkv_bias]").set_checked(cfg["qkv_bias"])
    root.locator("input[name=tied]").set_checked(tied)


def _expected(cfg, tied):
    model = build_on_meta(cfg)
    if tied:
        tie_weights(model)
    breakdown = parameter_breakdown(model)
    block = model.trf_blocks[0]
    total = count_parameters(model)
    head_share = "0" if tied else f"{count_output_head(model) / total:.2%}"
    return model, breakdown, block, total, head_share


def test_the_calculator_opens_on_the_124m_configuration_read_from_gptcourse(calculator):
    """Its starting values are GPT_CONFIG_124M, untied: 163,009,536 parameters, 621.83 MiB."""
    shown = _read(calculator)
    assert shown["inputs"] == {**{k: str(SMALL[k]) for k in FIELDS},
                               "qkv_bias": SMALL["qkv_bias"], "tied": False}
    assert shown["rows"]["total"]["parametersText"] == "163,009,536"
    assert shown["rows"]["output head"]["parametersText"] == "38,597,376"
    assert shown["float32"] == "621.83 MiB"
    data = json.loads(_root(calculator).get_attribute("data-config"))
    assert data["defaults"] == SMALL and data["presets"] == GPT2_CONFIGS


@pytest.mark.parametrize("name,cfg,tied", CASES, ids=[c[0] for c in CASES])
def test_every_number_matches_the_model_built_on_the_meta_device(calculator, name, cfg, tied):
    """Per component, per block, the total, float32 and bfloat16 MiB and the head's share."""
    model, breakdown, block, total, head_share = _expected(cfg, tied)
    _set(calculator, cfg, tied)
    _wait_for_status(calculator, f"{total:,} parameters")
    shown = _read(calculator)
    rows = {name: row for name, row in shown["rows"].items()}
    number = {name: int(rows[name]["parameters"]) for name in COMPONENTS}
    assert shown["state"] == "ok"
    assert number["token embedding"] == breakdown["token embedding"]
    assert number["position embedding"] == breakdown["position embedding"]
    assert number["attention"] == breakdown["attention"]
    assert number["feed-forward"] == breakdown["feed-forward"]
    assert number["layer norms"] + number["final norm"] == breakdown["layer norms"]
    assert number["final norm"] == count_parameters(model.final_norm)
    assert number["output head"] == breakdown["output head"]
    assert number["total"] == total == sum(breakdown.values())
    assert int(rows["attention"]["perBlock"]) == count_parameters(block.att)
    assert int(rows["feed-forward"]["perBlock"]) == count_parameters(block.ff)
    assert int(rows["layer norms"]["perBlock"]) == (count_parameters(block.norm1)
                                                   + count_parameters(block.norm2))
    assert rows["total"]["parametersText"] == f"{total:,}"
    for component in COMPONENTS:
        share = number[component] / total
        assert rows[component]["share"] == f"{share:.2%}", component
    assert shown["float32"] == f"{model_size_mib(model):,.2f} MiB"
    assert shown["bfloat16"] == f"{model_size_mib(model, 2):,.2f} MiB"
    assert shown["head"] == head_share


def test_a_preset_fills_in_its_configuration(calculator):
    """Choosing gpt2-xl puts its width, depth and heads in the form and counts them."""
    xl = GPT2_CONFIGS["gpt2-xl"]
    calculator.locator("#parameter-calculator-preset").select_option("gpt2-xl")
    total = count_parameters(build_on_meta(xl))
    calculator.locator("#parameter-calculator input[name=tied]").set_checked(False)
    _wait_for_status(calculator, f"{total:,} parameters")
    shown = _read(calculator)
    assert {k: int(shown["inputs"][k]) for k in FIELDS} == {k: xl[k] for k in FIELDS}
    assert int(shown["rows"]["total"]["parameters"]) == total


@pytest.mark.parametrize("field,value,message", [
    ("n_heads", "5", "n_heads = 5 does not divide emb_dim = 768"),
    ("vocab_size", "", "vocab_size must be a whole number of at least 1, not empty"),
    ("emb_dim", "0", "emb_dim must be a whole number of at least 1"),
    ("context_length", "2.5", "context_length must be a whole number of at least 1"),
])
def test_a_configuration_that_cannot_be_built_says_what_is_wrong(calculator, field, value,
                                                                   message):
    """The message names the setting, the input is marked invalid, no number is left."""
    _set(calculator, SMALL, False)
    _wait_for_status(calculator, "163,009,536 parameters")
    field_input = calculator.locator(f"#parameter-calculator input[name={field}]")
    field_input.fill(value)
    _wait_for_status(calculator, message)
    shown = _read(calculator)
    assert shown["state"] == "error"
    assert field_input.get_attribute("aria-invalid") == "true"
    assert field_input.get_attribute("aria-describedby") == "parameter-calculator-status"
    assert shown["rows"]["total"]["parameters"] is None
    assert shown["rows"]["total"]["parametersText"] == "–"
    field_input.fill(str(SMALL[field]))
    _wait_for_status(calculator, "163,009,536 parameters")
    assert field_input.get_attribute("aria-invalid") == "false"


def test_the_calculator_works_from_the_keyboard(calculator):
    """Tab reaches the inputs in order; the arrow key adds a block, Space ties the head."""
    _set(calculator, SMALL, False)
    _wait_for_status(calculator, "163,009,536 parameters")
    calculator.locator("#parameter-calculator-preset").focus()
    order = []
    for _ in range(7):
        calculator.keyboard.press("Tab")
        order.append(calculator.evaluate("document.activeElement.name"))
    assert order == [*FIELDS, "qkv_bias", "tied"]
    calculator.locator("#parameter-calculator input[name=n_layers]").focus()
    calculator.keyboard.press("ArrowUp")
    deeper = count_parameters(build_on_meta({**SMALL, "n_layers": SMALL["n_layers"] + 1}))
    _wait_for_status(calculator, f"{deeper:,} parameters")
    calculator.keyboard.press("ArrowDown")
    _wait_for_status(calculator, "163,009,536 parameters")
    calculator.locator("#parameter-calculator input[name=tied]").focus()
    calculator.keyboard.press(" ")
    _wait_for_status(calculator, "124,412,160 parameters")
    assert "the output head adds nothing" in _read(calculator)["status"]
    calculator.keyboard.press(" ")
    _wait_for_status(calculator, "163,009,536 parameters")


def test_the_summary_is_announced_to_screen_readers(calculator):
    """The summary is a polite live region, and every input has a label naming its setting."""
    status = calculator.locator("#parameter-calculator [role=status]")
    assert status.get_attribute("aria-live") == "polite"
    labels = calculator.evaluate("""() => [...document.querySelectorAll(
        '#parameter-calculator input, #parameter-calculator select')].map(
        i => [i.name || i.id, i.labels.length ? i.labels[0].textContent : ''])""")
    for name, label in labels:
        assert label.strip(), f"{name} has no label"
    named = dict(labels)
    for key in FIELDS:
        assert key in named[key], (key, named[key])
