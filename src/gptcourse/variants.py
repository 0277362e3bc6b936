"""A GPT-2-shaped model of each student's own, for the homework's value questions.

Every student counts the parameters of a configuration derived from their
student id and the course's salt (``c.StudentVariants.salt`` in
nbgrader_config.py, changed per term): the same id and salt always give the
same configuration, on the hub, in Colab, on a laptop and in the grader. The
configuration is given; counting it is the work. Nothing here counts.

The ranges, each drawn uniformly from the SHA-256 digest of the salt and id:

- ``vocab_size``: 45,257 to 55,257 (GPT-2's 50,257, give or take 5,000);
- ``context_length``: 256 to 2,048, in steps of 64;
- ``n_heads``: 4 to 16, each 64 wide as in GPT-2, so ``emb_dim`` is 256 to 1,024;
- ``n_layers``: 4 to 24;
- ``qkv_bias``: off or on; ``drop_rate`` is GPT-2's 0.1.

That is 158,355,834 configurations: two students of a class of 200 share
one with probability about 1 in 8,000. The largest has about 418 million
parameters (1.7 GB in float32), the smallest about 26 million.
"""

import hashlib
import json

from .model import GPT2_CONFIGS

VOCAB_SIZES = range(45_257, 55_258)
CONTEXT_LENGTHS = range(256, 2049, 64)
HEAD_COUNTS = range(4, 17)
HEAD_WIDTH = 64  # every GPT-2 model's attention heads are 64 wide
LAYER_COUNTS = range(4, 25)
QKV_BIASES = (False, True)
LARGER_MODELS = ("gpt2-medium", "gpt2-large", "gpt2-xl")


def student_config(student_id: str, salt: str = "") -> dict:
    """The configuration dict of ``student_id``'s own model under the course's ``salt``.

    Raises ``ValueError`` for an empty id (the notebook's STUDENT_ID not filled in).
    """
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("no student id: type yours into STUDENT_ID (between the quotes) "
                         "and run the cells again")
    digest = hashlib.sha256(json.dumps([salt, student_id]).encode("utf-8")).digest()
    number = int.from_bytes(digest, "big")

    def pick(choices):
        nonlocal number
        number, index = divmod(number, len(choices))
        return choices[index]

    n_heads = pick(HEAD_COUNTS)
    return {
        "vocab_size": pick(VOCAB_SIZES),
        "context_length": pick(CONTEXT_LENGTHS),
        "emb_dim": n_heads * HEAD_WIDTH,
        "n_heads": n_heads,
        "n_layers": pick(LAYER_COUNTS),
        "drop_rate": 0.1,
        "qkv_bias": pick(QKV_BIASES),
    }


def larger_configs(config: dict) -> dict:
    """``config`` grown to the width, heads and depth of gpt2-medium, gpt2-large and gpt2-xl.

    Each keeps ``config``'s vocabulary, context and query/key/value biases.
    """
    return {name: {**config, **{key: GPT2_CONFIGS[name][key]
                                for key in ("emb_dim", "n_heads", "n_layers")}}
            for name in LARGER_MODELS}
