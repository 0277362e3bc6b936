"""The small trained GPT the site samples from is what its script makes, and has learned.

``book/_data/train_small_gpt.py`` is run again from scratch (deterministic, one CPU
thread, under a minute of one core on an idle machine) into a temporary folder, and its
weights and losses are compared with the committed ``small_gpt.pt`` and
``small_gpt_losses.json``. On the machine and PyTorch that trained them the files are
identical; the tolerances leave room for another CPU's rounding: a run whose loss was
changed by one part in ten million ended at most one float16 step (0.001) away in every
weight, and within 1e-6 in every loss, while a different seed or setting moves the
weights by far more than the tolerance.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from testsupport.course import ROOT as COURSE_ROOT

ROOT = Path(COURSE_ROOT).resolve()
DATA = ROOT / "book" / "_data"
SCRIPT = DATA / "train_small_gpt.py"
WEIGHT_TOLERANCE = 0.01          # largest difference in any weight
RELATIVE_TOLERANCE = 1e-3        # ||again - committed|| / ||committed||, per tensor
LOSS_TOLERANCE = 1e-4
TRAINING_TIMEOUT_S = 1200        # generous: the machine may be busy


def _load_script():
    sys.path.insert(0, str(DATA.parent))
    try:
        from _data import train_small_gpt
    finally:
        sys.path.remove(str(DATA.parent))
    return train_small_gpt


@pytest.fixture(scope="module")
def retrained(tmp_path_factory):
    """A folder with the two files the script writes when run again."""
    out = tmp_path_factory.mktemp("small-gpt")
    result = subprocess.run([sys.executable, str(SCRIPT), str(out)], cwd=ROOT,
                            capture_output=True, text=True, timeout=TRAINING_TIMEOUT_S)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _saved(folder):
    return torch.load(folder / "small_gpt.pt", weights_only=True)


def test_training_again_gives_the_committed_weights(retrained):
    """Same configuration and vocabulary; every weight within the tolerance."""
    committed, again = _saved(DATA), _saved(retrained)
    assert again["config"] == committed["config"]
    assert again["gpt2_ids"] == committed["gpt2_ids"]
    assert again["state_dict"].keys() == committed["state_dict"].keys()
    for name, tensor in committed["state_dict"].items():
        other = again["state_dict"][name]
        assert other.dtype == tensor.dtype == torch.float16, name
        difference = (other.float() - tensor.float())
        assert difference.abs().max().item() <= WEIGHT_TOLERANCE, name
        if tensor.float().norm() > 0:
            relative = (difference.norm() / tensor.float().norm()).item()
            assert relative <= RELATIVE_TOLERANCE, (name, relative)


def test_training_again_records_the_committed_losses(retrained):
    """The loss curve the page draws is the one the script records."""
    committed = json.loads((DATA / "small_gpt_losses.json").read_text())
    again = json.loads((retrained / "small_gpt_losses.json").read_text())
    settings = {k: v for k, v in committed.items() if not isinstance(v, list)}
    assert {k: v for k, v in again.items() if not isinstance(v, list)} == settings
    assert again["step"] == committed["step"]
    for key in ("train_loss", "val_loss"):
        worst = max(abs(a - b) for a, b in zip(again[key], committed[key]))
        assert worst <= LOSS_TOLERANCE, (key, worst)


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


def test_the_model_loads_and_its_vocabulary_is_the_storys():
    """The loaded model has the story's tokens as its vocabulary and runs in float32."""
    script = _load_script()
    from gptcourse import get_tokenizer

    tokenizer = get_tokenizer()
    model, gpt2_ids = script.load_small_gpt()
    story = tokenizer.encode((DATA / "the-verdict.txt").read_text(encoding="utf-8"))
    assert gpt2_ids == sorted(set(story))
    assert model.cfg["vocab_size"] == len(gpt2_ids)
    idx = script.to_model_ids("I had always thought", gpt2_ids, tokenizer)
    assert script.to_text(idx, gpt2_ids, tokenizer) == "I had always thought"
    with torch.no_grad():
        logits = model(idx)
    assert logits.dtype == torch.float32 and logits.shape == (1, 4, len(gpt2_ids))


def test_a_prompt_with_a_token_the_story_lacks_is_refused_by_name():
    """'Hello' never occurs in the story: the error names it rather than a bare KeyError."""
    script = _load_script()
    from gptcourse import get_tokenizer

    _, gpt2_ids = script.load_small_gpt()
    with pytest.raises(ValueError, match="'Hello' .* never occurs in the story"):
        script.to_model_ids("Hello, I am", gpt2_ids, get_tokenizer())


def test_the_weights_file_stays_small():
    """Under 2 MiB: float16 weights and the story's vocabulary instead of GPT-2's."""
    assert (DATA / "small_gpt.pt").stat().st_size < 2 * 1024**2
