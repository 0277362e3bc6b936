"""Train the small GPT that the pages sample from, and write it into the course package.

Usage: ``python book/_data/train_small_gpt.py [OUT_DIR] [--steps N]`` (default: the
package's ``src/gptcourse/assets`` and ``STEPS``; fewer steps make the start of the same
run, whose losses are the first of the full run's).

The model is the course's own ``GPTModel``, small (``CONFIG``), trained from a fixed
seed on Edith Wharton's short story *The Verdict* (``the-verdict.txt`` among the package's
assets, public domain; see ``README.md`` beside this script). Its vocabulary is the GPT-2
tokens that occur in the story: model id ``i`` is GPT-2 id ``gpt2_ids[i]``, so the
embedding and the output head have one row per token of the story instead of 50,257.
``gptcourse.story`` loads what this script writes, wherever the package is installed.

It writes two files into OUT_DIR:

- ``small_gpt.pt``: ``{"config", "gpt2_ids", "state_dict"}``, the weights stored as
  float16 (``gptcourse.story.load_small_gpt`` loads them back as float32);
- ``small_gpt_losses.json``: the training and validation loss every ``EVAL_EVERY``
  steps, which the page draws.

Training is deterministic on a CPU: one thread, ``torch.use_deterministic_algorithms``,
every random draw (initial weights, dropout, batches) from seeded generators. It takes
well under a minute of one core; ``tests/book/test_small_gpt.py`` trains the first steps
again and compares their losses with the committed ones.
"""

import argparse
import json
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from gptcourse import GPTModel, get_tokenizer
from gptcourse.story import (LOSSES_NAME, STORY_TEXT, WEIGHTS_NAME, load_losses,
                             load_small_gpt, to_model_ids, to_text)

HERE = Path(__file__).resolve().parent
ASSETS = HERE.parent.parent / "src" / "gptcourse" / "assets"  # the package's, in this checkout
TEXT = STORY_TEXT

CONFIG = {
    "context_length": 64,  # the vocabulary size is the story's, set by vocabulary()
    "emb_dim": 128,
    "n_heads": 4,
    "n_layers": 2,
    "drop_rate": 0.1,
    "qkv_bias": False,
}
SEED = 123
STEPS = 400
BATCH_SIZE = 8             # windows of context_length tokens per step
LEARNING_RATE = 1e-3
WEIGHT_DECAY = 0.1
EVAL_EVERY = 20
VALIDATION_SHARE = 0.1     # the story's last tenth is never trained on

__all__ = ["load_losses", "load_small_gpt", "to_model_ids", "to_text"]  # the package's


def vocabulary(gpt2_ids):
    """The distinct GPT-2 ids of the text, sorted: model id i is GPT-2 id vocabulary[i]."""
    return sorted(set(gpt2_ids))


def split_story(tokenizer):
    """The story's GPT-2 ids, the vocabulary, and the story as model ids cut into the part
    trained on and the last VALIDATION_SHARE, never trained on."""
    story = tokenizer.encode(TEXT.read_text(encoding="utf-8"))
    gpt2_ids = vocabulary(story)
    index = {gpt2_id: i for i, gpt2_id in enumerate(gpt2_ids)}
    data = torch.tensor([index[i] for i in story])
    split = int((1 - VALIDATION_SHARE) * len(data))
    return story, gpt2_ids, data[:split], data[split:]


def windows(data, context_length):
    """Consecutive, non-overlapping windows: inputs and targets, [n, context_length] each."""
    starts = range(0, len(data) - context_length - 1, context_length)
    inputs = torch.stack([data[s:s + context_length] for s in starts])
    targets = torch.stack([data[s + 1:s + context_length + 1] for s in starts])
    return inputs, targets


def mean_loss(model, windows):
    """The model's mean cross-entropy over windows (inputs, targets), in eval mode."""
    inputs, targets = windows
    model.eval()
    with torch.no_grad():
        logits = model(inputs)  # [n, context_length, vocab_size]
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten()).item()
    model.train()
    return loss


def train(out_dir=ASSETS, steps=STEPS):
    """Train from scratch for ``steps`` steps and write ``small_gpt.pt`` and
    ``small_gpt_losses.json`` to out_dir."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    story, gpt2_ids, train_data, val_data = split_story(get_tokenizer())
    cfg = {"vocab_size": len(gpt2_ids), **CONFIG}
    context = cfg["context_length"]

    torch.manual_seed(SEED)  # initial weights and dropout
    model = GPTModel(cfg)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE,
                                  weight_decay=WEIGHT_DECAY)
    batches = torch.Generator().manual_seed(SEED)
    train_windows, val_windows = windows(train_data, context), windows(val_data, context)
    record = {"step": [], "tokens_seen": [], "train_loss": [], "val_loss": []}
    start = time.process_time()
    for step in range(steps + 1):
        if step % EVAL_EVERY == 0:
            record["step"].append(step)
            record["tokens_seen"].append(step * BATCH_SIZE * context)
            record["train_loss"].append(mean_loss(model, train_windows))
            record["val_loss"].append(mean_loss(model, val_windows))
        if step == steps:
            break
        starts = torch.randint(0, len(train_data) - context, (BATCH_SIZE,), generator=batches)
        inputs = torch.stack([train_data[s:s + context] for s in starts])  # [batch, context]
        targets = torch.stack([train_data[s + 1:s + context + 1] for s in starts])
        logits = model(inputs)  # [batch, context, vocab_size]
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    state = {name: t.detach().to(torch.float16) for name, t in model.state_dict().items()}
    torch.save({"config": cfg, "gpt2_ids": gpt2_ids, "state_dict": state},
               out_dir / WEIGHTS_NAME)
    summary = {
        "text": TEXT.name, "text_tokens": len(story), "train_tokens": len(train_data),
        "val_tokens": len(val_data), "config": cfg, "seed": SEED, "steps": steps,
        "batch_size": BATCH_SIZE, "learning_rate": LEARNING_RATE,
        "weight_decay": WEIGHT_DECAY, "eval_every": EVAL_EVERY, **record,
    }
    (out_dir / LOSSES_NAME).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return time.process_time() - start


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"--steps must be 1 or more, not {value}")
    return value


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Train the small GPT on The Verdict.")
    parser.add_argument("out_dir", nargs="?", type=Path, default=ASSETS,
                        help="where to write the two files (default: the package's assets)")
    parser.add_argument("--steps", type=_positive, default=STEPS,
                        help=f"training steps (default: {STEPS})")
    args = parser.parse_args()
    seconds = train(args.out_dir, args.steps)
    print(f"trained {args.steps} steps in {seconds:.1f} s of CPU time; wrote {WEIGHTS_NAME} "
          f"and {LOSSES_NAME} to {args.out_dir}")
