"""The small trained GPT the site samples from is what its script makes, and has learned.

``book/_data/train_small_gpt.py`` is deterministic (one CPU thread, every random draw
from a seeded generator), so a run of its first ``PREFIX_STEPS`` steps is the start of
the committed run: it is run again into a temporary folder (seconds, where the whole
training takes a minute or more) and must record the first of the committed losses of
``small_gpt_losses.json``, with the same settings, vocabulary and layout of weights. The
committed weights, ``small_gpt.pt``, are the end of that run: measured again on the
story's training and validation parts, they give the last losses it recorded, to within
what storing them as float16 moves (a few 1e-5; the last steps of training move the
losses by far more). The tolerances leave room for another CPU's rounding. The committed
files are the course package's (``src/gptcourse/assets``), which ``gptcourse.story``
loads (tests/package/test_story.py).
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from testsupport.course import ROOT as COURSE_ROOT

ROOT = Path(COURSE_ROOT).resolve()
DATA = ROOT / "src" / "gptcourse" / "assets"   # where the script writes the model
SCRIPT = ROOT / "book" / "_data" / "train_small_gpt.py"
PREFIX_STEPS = 60                # three of the committed evaluations after the first
LOSS_TOLERANCE = 1e-4            # a loss of the run again against the committed one
LAST_LOSS_TOLERANCE = 1e-3       # the committed float16 weights against the last losses
TRAINING_TIMEOUT_S = 1200        # generous: the machine may be busy


def _load_script():
    sys.path.insert(0, str(SCRIPT.parent.parent))
    try:
        from _data import train_small_gpt
    finally:
        sys.path.remove(str(SCRIPT.parent.parent))
    return train_small_gpt


@pytest.fixture(scope="module")
def retrained(tmp_path_factory):
    """A folder with the two files the script writes when it runs its first steps again."""
    out = tmp_path_factory.mktemp("small-gpt")
    result = subprocess.run([sys.executable, str(SCRIPT), str(out), "--steps", str(PREFIX_STEPS)],
                            cwd=ROOT, capture_output=True, text=True, timeout=TRAINING_TIMEOUT_S)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _saved(folder):
    return torch.load(folder / "small_gpt.pt", weights_only=True)


def test_training_again_records_the_first_of_the_committed_losses(retrained):
    """The loss curve the page draws is the one the script records: its first evaluations
    come again, with the same settings but the number of steps."""
    committed = json.loads((DATA / "small_gpt_losses.json").read_text())
    again = json.loads((retrained / "small_gpt_losses.json").read_text())
    assert again["steps"] == PREFIX_STEPS < committed["steps"]
    settings = {k: v for k, v in committed.items() if not isinstance(v, list) and k != "steps"}
    assert {k: v for k, v in again.items()
            if not isinstance(v, list) and k != "steps"} == settings
    evaluations = len(again["step"])
    assert evaluations == PREFIX_STEPS // committed["eval_every"] + 1 > 2
    for key in ("step", "tokens_seen"):
        assert again[key] == committed[key][:evaluations], key
    for key in ("train_loss", "val_loss"):
        worst = max(abs(a - b) for a, b in zip(again[key], committed[key][:evaluations]))
        assert worst <= LOSS_TOLERANCE, (key, worst)


def test_training_again_writes_the_committed_vocabulary_and_layout(retrained):
    """Same configuration and vocabulary, the same tensors of the same shapes, in float16."""
    committed, again = _saved(DATA), _saved(retrained)
    assert again["config"] == committed["config"]
    assert again["gpt2_ids"] == committed["gpt2_ids"]
    assert again["state_dict"].keys() == committed["state_dict"].keys()
    for name, tensor in committed["state_dict"].items():
        other = again["state_dict"][name]
        assert other.dtype == tensor.dtype == torch.float16, name
        assert other.shape == tensor.shape, name


def test_the_committed_weights_give_the_last_recorded_losses():
    """The weights are the end of the run whose losses the page draws."""
    script = _load_script()
    from gptcourse import get_tokenizer

    losses = script.load_losses()
    model, gpt2_ids = script.load_small_gpt()
    _, vocabulary, train_data, val_data = script.split_story(get_tokenizer())
    assert gpt2_ids == vocabulary
    context = model.cfg["context_length"]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the script measures; and quick on a busy machine
    try:
        train = script.mean_loss(model, script.windows(train_data, context))
        val = script.mean_loss(model, script.windows(val_data, context))
    finally:
        torch.set_num_threads(threads)
    assert abs(train - losses["train_loss"][-1]) <= LAST_LOSS_TOLERANCE, train
    assert abs(val - losses["val_loss"][-1]) <= LAST_LOSS_TOLERANCE, val
    # the tolerance tells the last weights from those of an evaluation before them
    assert abs(losses["train_loss"][-2] - losses["train_loss"][-1]) > 10 * LAST_LOSS_TOLERANCE


def test_the_model_learned_the_story_and_then_learned_it_by_heart():
    """It starts near a uniform guess (ln V), the training loss falls below 2, and the
    validation loss falls, reaches its lowest before the end, then rises."""
    losses = json.loads((DATA / "small_gpt_losses.json").read_text())
    vocab_size = losses["config"]["vocab_size"]
    train, val = losses["train_loss"], losses["val_loss"]
    assert abs(train[0] - torch.log(torch.tensor(float(vocab_size))).item()) < 0.5
    assert train[-1] < 2.0 and all(b < a for a, b in zip(train, train[1:]))
    lowest = min(range(len(val)), key=val.__getitem__)
    assert 0 < lowest < len(val) - 1
    assert val[lowest] < val[0] - 1.5
    assert val[-1] > val[lowest] + 0.5
