"""The small GPT that has learned a story: its weights, its text and the loss it recorded.

The course's own ``GPTModel``, small (2 blocks, width 128, 4 heads, a context of 64
tokens), trained from a fixed seed on Edith Wharton's short story *The Verdict* (public
domain), which the site's pages sample from. Its vocabulary is the GPT-2 tokens that occur
in the story: model id ``i`` is GPT-2 id ``gpt2_ids[i]``, so the embedding and the output
head have one row per token of the story instead of 50,257; ``to_model_ids`` and
``to_text`` translate.

The files are the package's own (``assets/``), so a page that uses them runs wherever
``gptcourse`` is installed: ``small_gpt.pt`` (the configuration, the vocabulary, the
weights as float16), ``small_gpt_losses.json`` (the losses of the training, every few
steps, and its settings) and ``the-verdict.txt``. The course's training script,
``book/_data/train_small_gpt.py``, wrote them and says how.
"""

import json
from importlib import resources
from pathlib import Path

import torch

from .model import GPTModel

ASSETS = Path(str(resources.files("gptcourse") / "assets"))
STORY_TEXT = ASSETS / "the-verdict.txt"
WEIGHTS_NAME = "small_gpt.pt"
LOSSES_NAME = "small_gpt_losses.json"


def story_text():
    """The story the model learned, *The Verdict*, as a string."""
    return STORY_TEXT.read_text(encoding="utf-8")


def to_model_ids(text, gpt2_ids, tokenizer):
    """Encode ``text`` as the model's ids, shape [1, num_tokens]; ValueError for a token
    that is not in the model's vocabulary ``gpt2_ids``."""
    index = {gpt2_id: i for i, gpt2_id in enumerate(gpt2_ids)}
    ids = []
    for gpt2_id in tokenizer.encode(text):
        if gpt2_id not in index:
            raise ValueError(f"{tokenizer.decode([gpt2_id])!r} (GPT-2 id {gpt2_id}) in "
                             f"{text!r} never occurs in the story, so the model has no id for it")
        ids.append(index[gpt2_id])
    return torch.tensor([ids])  # [1, num_tokens]


def to_text(model_ids, gpt2_ids, tokenizer):
    """Decode the model's ids ([1, num_tokens] or [num_tokens]) back to a string."""
    flat = model_ids.reshape(-1).tolist()
    return tokenizer.decode([gpt2_ids[i] for i in flat])


def load_small_gpt(folder=ASSETS):
    """The trained model (float32, eval mode) and its vocabulary as a list of GPT-2 ids."""
    saved = torch.load(Path(folder) / WEIGHTS_NAME, weights_only=True)
    model = GPTModel(saved["config"])
    model.load_state_dict({name: t.float() for name, t in saved["state_dict"].items()})
    model.eval()
    return model, saved["gpt2_ids"]


def load_losses(folder=ASSETS):
    """The losses the training recorded (``small_gpt_losses.json``) as a dict."""
    return json.loads((Path(folder) / LOSSES_NAME).read_text(encoding="utf-8"))


__all__ = ["ASSETS", "STORY_TEXT", "load_losses", "load_small_gpt", "story_text",
           "to_model_ids", "to_text"]
