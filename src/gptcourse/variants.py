"""A GPT-2-shaped model, and next-token scores, of each student's own, for the homework's
value questions.

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

``student_logits`` gives each student the next-token scores of two texts over a
small vocabulary of their own (48 to 96 entries), for the sampling homework:
normal scores stretched by a spread of 1.5 to 3.5, one text's by 1.5 times more
and the other's by 0.6 times, so one text is clearly the surer (its nucleus at
T = 0.5, top-p = 0.9 at least 2 ids smaller), all distinct, computed from the
digest alone (no random generator), so they are the same with any PyTorch
version, on any machine.
"""

import hashlib
import json
import math

from .model import GPT2_CONFIGS

VOCAB_SIZES = range(45_257, 55_258)
CONTEXT_LENGTHS = range(256, 2049, 64)
HEAD_COUNTS = range(4, 17)
HEAD_WIDTH = 64  # every GPT-2 model's attention heads are 64 wide
LAYER_COUNTS = range(4, 25)
QKV_BIASES = (False, True)
LARGER_MODELS = ("gpt2-medium", "gpt2-large", "gpt2-xl")
LOGITS_TEXTS = 2  # the rows of student_logits: the next-token scores of two texts
LOGITS_VOCAB_SIZES = range(48, 97)
LOGITS_SPREADS = (1.5, 2.0, 2.5, 3.0, 3.5)  # how far the scores stretch: how sure the model is
# One text's scores are surer than the other's: its row is stretched by the first factor,
# the other's by the second (which row is the surer comes from the digest).
LOGITS_ROW_FACTORS = (1.5, 0.6)
# The sampling homework asks which text has the smaller nucleus at T = 0.5, top-p = 0.9:
# the two nuclei differ by at least this many ids, so the question always has an answer.
NUCLEUS_TEMPERATURE, NUCLEUS_TOP_P, NUCLEUS_GAP = 0.5, 0.9, 2


def _digest(*parts):
    """The SHA-256 digest of ``parts`` (the salt, the id, ...), the id stripped of white space.

    Raises ``ValueError`` for an empty id (the notebook's STUDENT_ID not filled in).
    """
    salt, student_id, *rest = parts
    student_id = str(student_id).strip()
    if not student_id:
        raise ValueError("no student id: type yours into STUDENT_ID (between the quotes) "
                         "and run the cells again")
    return hashlib.sha256(json.dumps([salt, student_id, *rest]).encode("utf-8")).digest()


def student_config(student_id: str, salt: str = "") -> dict:
    """The configuration dict of ``student_id``'s own model under the course's ``salt``.

    Raises ``ValueError`` for an empty id (the notebook's STUDENT_ID not filled in).
    """
    number = int.from_bytes(_digest(salt, student_id), "big")

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


def student_logits(student_id: str, salt: str = ""):
    """The next-token scores of ``student_id``'s own under the course's ``salt``: a float32
    tensor of shape [2, vocab_size] (two texts), vocab_size from 48 to 96.

    Each score is a normal draw (Box-Muller on two 64-bit numbers of a SHA-256 digest)
    times the student's spread and its row's factor (``LOGITS_ROW_FACTORS``: one text's
    scores are surer than the other's), rounded to 1/1024 (exact in float32); every score
    of a row differs from the others, so the most likely id, the k-th score and the order
    are never a tie. The two rows' nuclei at T = 0.5, top-p = 0.9 differ by at least
    ``NUCLEUS_GAP`` ids (``nucleus_sizes``): where a draw's would not, the rows are drawn
    again from the next digests. Raises ``ValueError`` for an empty id.
    """
    import torch  # here, so that the configurations above need no torch

    head = int.from_bytes(_digest(salt, student_id, "logits"), "big")
    vocab_size = LOGITS_VOCAB_SIZES[head % len(LOGITS_VOCAB_SIZES)]
    rest = head // len(LOGITS_VOCAB_SIZES)
    spread = LOGITS_SPREADS[rest % len(LOGITS_SPREADS)]
    surer = rest // len(LOGITS_SPREADS) % LOGITS_TEXTS  # which text's scores are surer
    factors = [LOGITS_ROW_FACTORS[0] if text == surer else LOGITS_ROW_FACTORS[1]
               for text in range(LOGITS_TEXTS)]
    for attempt in range(100):
        rows = [_score_row(salt, student_id, text, attempt, vocab_size, spread * factor)
                for text, factor in enumerate(factors)]
        logits = torch.tensor(rows, dtype=torch.float32)  # [2, vocab_size]
        first, second = nucleus_sizes(logits)
        if abs(first - second) >= NUCLEUS_GAP:
            return logits
    raise AssertionError(f"no scores for {student_id!r} whose nuclei differ by "
                         f"{NUCLEUS_GAP} in 100 draws")  # never seen: 1 draw in 10 redraws


def _score_row(salt, student_id, text, attempt, vocab_size, spread):
    """One row of distinct normal scores times ``spread``, rounded to 1/1024."""
    row, draw = [], 0
    while len(row) < vocab_size:
        parts = (salt, student_id, "logits", text, draw) + ((attempt,) if attempt else ())
        digest = _digest(*parts)
        draw += 1
        first, second = (int.from_bytes(digest[i:i + 8], "big") for i in (0, 8))
        u1, u2 = (first + 1) / 2**64, second / 2**64  # u1 in (0, 1]: its log is finite
        normal = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
        score = round(spread * normal * 1024) / 1024
        if score not in row:  # a tie would make "the most likely" or "the k-th" two ids
            row.append(score)
    return row


def nucleus_sizes(logits, temperature=NUCLEUS_TEMPERATURE, top_p=NUCLEUS_TOP_P):
    """How many ids top-p keeps of each row of ``logits`` [batch, vocab_size] at
    ``temperature``: the most likely ids until those above the next hold ``top_p``."""
    import torch

    probas = torch.softmax(logits / temperature, dim=-1).sort(dim=-1, descending=True).values
    before = probas.cumsum(dim=-1) - probas  # what the more likely ids hold
    return [int(n) for n in (before < top_p).sum(dim=-1)]
