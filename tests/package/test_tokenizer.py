import hashlib
from importlib import resources

import pytest
import tiktoken
import torch

from gptcourse import TokenizerFileError, get_tokenizer, text_to_token_ids, token_ids_to_text
from gptcourse.tokenizer import RANKS_SHA256


@pytest.mark.parametrize(
    "text, ids",
    [
        ("Hello, I am", [15496, 11, 314, 716]),
        ("Every effort moves you", [6109, 3626, 6100, 345]),
        ("Every day holds a", [6109, 1110, 6622, 257]),
    ],
)
def test_reference_texts_encode_to_gpt2_ids(tokenizer, text, ids):
    assert tokenizer.encode(text) == ids
    assert tokenizer.decode(ids) == text


def test_vocabulary_and_end_of_text(tokenizer):
    assert isinstance(tokenizer, tiktoken.Encoding)
    assert tokenizer.n_vocab == 50257
    assert tokenizer.eot_token == 50256
    assert tokenizer.encode("<|endoftext|>", allowed_special="all") == [50256]


@pytest.mark.parametrize(
    "text",
    ["", "naïve café — 東京 🙂", "  leading spaces\n\ttabs", "it's they'll we've 1234567", "<|endoftext|> after"],
)
def test_round_trip(tokenizer, text):
    ids = text_to_token_ids(text, tokenizer)
    assert ids.dim() == 2 and ids.shape[0] == 1 and ids.dtype == torch.long
    assert token_ids_to_text(ids, tokenizer) == text
    assert token_ids_to_text(ids.squeeze(0), tokenizer) == text


def test_shipped_ranks_file_is_the_published_one():
    data = (resources.files("gptcourse") / "assets" / "gpt2.tiktoken").read_bytes()
    assert len(data) == 835_554
    assert hashlib.sha256(data).hexdigest() == RANKS_SHA256
    assert (resources.files("gptcourse") / "assets" / "gpt2.tiktoken.LICENSE").read_text().startswith("MIT License")


def test_missing_ranks_file_is_a_clear_error(tmp_path):
    with pytest.raises(TokenizerFileError, match="not found"):
        get_tokenizer(tmp_path / "gpt2.tiktoken")


def test_corrupted_ranks_file_is_a_clear_error(tmp_path):
    good = (resources.files("gptcourse") / "assets" / "gpt2.tiktoken").read_bytes()
    bad = tmp_path / "gpt2.tiktoken"
    bad.write_bytes(good[:-10])
    with pytest.raises(TokenizerFileError, match="corrupted: sha256"):
        get_tokenizer(bad)


def test_loading_writes_no_cache_and_needs_no_environment(tmp_path, monkeypatch):
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    path = resources.files("gptcourse") / "assets" / "gpt2.tiktoken"
    assert get_tokenizer(path).encode("Hello, I am") == [15496, 11, 314, 716]
    assert list(tmp_path.iterdir()) == []
