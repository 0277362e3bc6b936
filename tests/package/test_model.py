import pytest
import torch

from gptcourse import (
    GPT2_CONFIGS,
    GPT_CONFIG_124M,
    GPTModel,
    generate_text_simple,
    text_to_token_ids,
    tie_weights,
    token_ids_to_text,
)

HELLO_IDS = [15496, 11, 314, 716]
REFERENCE_GREEDY_IDS = [15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267]


def test_config_124m_has_the_reference_book_values():
    assert GPT_CONFIG_124M == {
        "vocab_size": 50257,
        "context_length": 1024,
        "emb_dim": 768,
        "n_heads": 12,
        "n_layers": 12,
        "drop_rate": 0.1,
        "qkv_bias": False,
    }


@pytest.mark.parametrize(
    "name, emb_dim, n_layers, n_heads",
    [("gpt2-small", 768, 12, 12), ("gpt2-medium", 1024, 24, 16),
     ("gpt2-large", 1280, 36, 20), ("gpt2-xl", 1600, 48, 25)],
)
def test_gpt2_configs(name, emb_dim, n_layers, n_heads):
    cfg = GPT2_CONFIGS[name]
    assert (cfg["emb_dim"], cfg["n_layers"], cfg["n_heads"]) == (emb_dim, n_layers, n_heads)
    assert cfg["vocab_size"] == 50257 and cfg["context_length"] == 1024


def test_two_texts_of_four_tokens_give_logits_2_4_50257(model_124m, tokenizer):
    batch = torch.stack([
        torch.tensor(tokenizer.encode("Every effort moves you")),
        torch.tensor(tokenizer.encode("Every day holds a")),
    ])
    assert batch.tolist() == [[6109, 3626, 6100, 345], [6109, 1110, 6622, 257]]
    with torch.no_grad():
        logits = model_124m(batch)
    assert tuple(logits.shape) == (2, 4, 50257)
    assert logits.dtype == torch.float32


def test_seed_123_greedy_generation_matches_the_reference_book(model_124m, tokenizer):
    idx = text_to_token_ids("Hello, I am", tokenizer)
    assert idx.tolist() == [HELLO_IDS]
    out = generate_text_simple(model_124m, idx, max_new_tokens=6, context_size=1024)
    assert out.tolist() == [REFERENCE_GREEDY_IDS]
    assert token_ids_to_text(out, tokenizer) == "Hello, I am Featureiman Byeswickattribute argue"


def test_modules_are_named_and_ordered_as_in_the_reference_book(model_124m):
    assert [name for name, _ in model_124m.named_children()] == [
        "tok_emb", "pos_emb", "drop_emb", "trf_blocks", "final_norm", "out_head"]
    block = model_124m.trf_blocks[0]
    assert [name for name, _ in block.named_children()] == [
        "att", "ff", "norm1", "norm2", "drop_shortcut"]
    assert [name for name, _ in block.att.named_children()] == [
        "W_query", "W_key", "W_value", "out_proj", "dropout"]
    assert model_124m.out_head.bias is None
    assert model_124m.out_head.weight is not model_124m.tok_emb.weight  # untied by default


def test_causal_mask_keeps_earlier_logits_independent_of_later_tokens(tiny_config):
    torch.manual_seed(0)
    model = GPTModel(tiny_config).eval()
    a = torch.tensor([[1, 2, 3, 4]])
    b = torch.tensor([[1, 2, 3, 90]])
    with torch.no_grad():
        la, lb = model(a), model(b)
    assert torch.equal(la[:, :3], lb[:, :3])
    assert not torch.equal(la[:, 3], lb[:, 3])


def test_tie_weights_shares_the_very_same_parameter(tiny_config):
    model = tie_weights(GPTModel(tiny_config))
    assert model.out_head.weight is model.tok_emb.weight
    with torch.no_grad():
        model.tok_emb.weight[0, 0] = 42.0
    assert model.out_head.weight[0, 0].item() == 42.0


def test_input_longer_than_the_context_is_refused(tiny_config):
    model = GPTModel(tiny_config)
    with pytest.raises(ValueError, match="context_length is 8"):
        model(torch.zeros(1, 9, dtype=torch.long))


@pytest.mark.parametrize(
    "change, key",
    [
        ({"n_heads": 5}, "n_heads"),
        ({"emb_dim": 0}, "emb_dim"),
        ({"n_layers": -1}, "n_layers"),
        ({"vocab_size": 50257.0}, "vocab_size"),
        ({"context_length": True}, "context_length"),
        ({"drop_rate": 1.5}, "drop_rate"),
        ({"qkv_bias": "no"}, "qkv_bias"),
    ],
)
def test_bad_config_raises_value_error_naming_the_key(change, key):
    with pytest.raises(ValueError, match=key):
        GPTModel({**GPT_CONFIG_124M, **change})


@pytest.mark.parametrize("key", sorted(GPT_CONFIG_124M))
def test_missing_key_raises_value_error_naming_it(key):
    cfg = {k: v for k, v in GPT_CONFIG_124M.items() if k != key}
    with pytest.raises(ValueError, match=f"missing the key '{key}'"):
        GPTModel(cfg)
