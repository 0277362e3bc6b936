"""gptcourse.story: the small GPT that learned The Verdict, loaded from the package itself."""

import pytest
import torch

from gptcourse import get_tokenizer
from gptcourse.story import (ASSETS, load_losses, load_small_gpt, story_text, to_model_ids,
                             to_text)


@pytest.fixture(scope="module")
def story_model():
    return load_small_gpt()


def test_the_model_and_its_files_are_the_packages_own(story_model):
    """Weights, losses and text sit among the package's assets, beside the tokenizer."""
    import gptcourse

    assert ASSETS.parent == __import__("pathlib").Path(gptcourse.__file__).parent
    for name in ("small_gpt.pt", "small_gpt_losses.json", "the-verdict.txt"):
        assert (ASSETS / name).is_file(), name
    assert load_losses()["text"] == "the-verdict.txt"


def test_the_model_loads_and_its_vocabulary_is_the_storys(story_model):
    """The loaded model has the story's tokens as its vocabulary and runs in float32."""
    tokenizer = get_tokenizer()
    model, gpt2_ids = story_model
    story = tokenizer.encode(story_text())
    assert len(story) == 5145 and gpt2_ids == sorted(set(story)) and len(gpt2_ids) == 1416
    assert model.cfg["vocab_size"] == len(gpt2_ids)
    assert not model.training
    idx = to_model_ids("I had always thought", gpt2_ids, tokenizer)
    assert to_text(idx, gpt2_ids, tokenizer) == "I had always thought"
    with torch.no_grad():
        logits = model(idx)
    assert logits.dtype == torch.float32 and logits.shape == (1, 4, len(gpt2_ids))


def test_a_prompt_with_a_token_the_story_lacks_is_refused_by_name(story_model):
    """'Hello' never occurs in the story: the error names it rather than a bare KeyError."""
    _, gpt2_ids = story_model
    with pytest.raises(ValueError, match="'Hello' .* never occurs in the story"):
        to_model_ids("Hello, I am", gpt2_ids, get_tokenizer())


def test_the_weights_file_stays_small():
    """Under 2 MiB: float16 weights and the story's vocabulary instead of GPT-2's."""
    assert (ASSETS / "small_gpt.pt").stat().st_size < 2 * 1024**2
