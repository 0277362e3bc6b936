"""The GPT-2 tokenizer, built offline from a BPE ranks file shipped in this package.

``assets/gpt2.tiktoken`` is the ranks file of the ``openai-whisper`` package
(MIT licence, copyright OpenAI; see ``assets/gpt2.tiktoken.LICENSE``). Each
line is a base64-encoded byte string and its rank. Nothing is downloaded and no
cache directory is written.
"""

import base64
import hashlib
from importlib import resources

import tiktoken
import torch
from tiktoken_ext.openai_public import r50k_pat_str

RANKS_FILE = "gpt2.tiktoken"
RANKS_SHA256 = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
END_OF_TEXT = "<|endoftext|>"
END_OF_TEXT_ID = 50256
VOCAB_SIZE = 50257

_cache = {}


class TokenizerFileError(RuntimeError):
    """The shipped BPE ranks file is missing or is not the expected file."""


def _read_ranks(path):
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        raise TokenizerFileError(
            f"GPT-2 BPE ranks file not found at {path}; reinstall gptcourse "
            "(pip install -e .) to restore it"
        ) from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != RANKS_SHA256:
        raise TokenizerFileError(
            f"GPT-2 BPE ranks file {path} is corrupted: sha256 {digest}, expected "
            f"{RANKS_SHA256} ({len(data):,} bytes read, 835,554 expected)"
        )
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def get_tokenizer(ranks_path=None):
    """The GPT-2 ``tiktoken.Encoding``: 50,257 entries, ``<|endoftext|>`` = 50256.

    Built once per ranks file and reused. ``ranks_path`` defaults to the file
    shipped with the package; a missing or altered file raises ``TokenizerFileError``.
    """
    if ranks_path is None:
        ranks_path = resources.files("gptcourse") / "assets" / RANKS_FILE
    key = str(ranks_path)
    if key not in _cache:
        _cache[key] = tiktoken.Encoding(
            name="gpt2",
            pat_str=r50k_pat_str,
            mergeable_ranks=_read_ranks(ranks_path),
            special_tokens={END_OF_TEXT: END_OF_TEXT_ID},
            explicit_n_vocab=VOCAB_SIZE,
        )
    return _cache[key]


def text_to_token_ids(text, tokenizer):
    """Encode ``text`` to a tensor of shape [1, num_tokens]: a batch of one."""
    encoded = tokenizer.encode(text, allowed_special={END_OF_TEXT})
    return torch.tensor(encoded, dtype=torch.long).unsqueeze(0)  # [num_tokens] -> [1, num_tokens]


def token_ids_to_text(token_ids, tokenizer):
    """Decode a [1, num_tokens] or [num_tokens] tensor of token ids back to a string."""
    flat = token_ids.squeeze(0) if token_ids.dim() == 2 else token_ids  # [1, num_tokens] -> [num_tokens]
    return tokenizer.decode(flat.tolist())
