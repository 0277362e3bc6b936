"""The package's fixtures: the 124M model is built once per test session, not per test."""

import pytest
import torch

from gptcourse import GPT_CONFIG_124M, GPTModel, get_tokenizer

TINY_CONFIG = {
    "vocab_size": 97,
    "context_length": 8,
    "emb_dim": 12,
    "n_heads": 3,
    "n_layers": 2,
    "drop_rate": 0.0,
    "qkv_bias": False,
}


@pytest.fixture(scope="session")
def model_124m():
    """GPTModel(GPT_CONFIG_124M) with torch.manual_seed(123), in eval mode, untied."""
    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.eval()
    return model


@pytest.fixture(scope="session")
def tokenizer():
    return get_tokenizer()


@pytest.fixture
def tiny_config():
    return dict(TINY_CONFIG)
