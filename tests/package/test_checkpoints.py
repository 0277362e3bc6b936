"""Loading GPT-2's own weights (gptcourse/checkpoints.py), with no network.

The real GPT-2 is stood in for by a small random one that Hugging Face's own code builds
and saves in the hub's two forms; the course's model must then give Hugging Face's logits.
Those tests import transformers (several seconds), so they are marked slow; the file
formats, the names, the head and the heads are tested on files written here.
"""

import json
import struct

import pytest
import safetensors.torch
import torch

from gptcourse import (
    CheckpointError,
    GPTModel,
    count_parameters,
    is_tied,
    load_gpt2,
    read_safetensors,
    tie_weights,
)

HF_CONFIG = dict(n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=16)
HF_AS_COURSE = {"vocab_size": 100, "context_length": 16, "emb_dim": 32, "n_heads": 2,
                "n_layers": 2, "drop_rate": 0.1, "qkv_bias": True}


@pytest.fixture(scope="module")
def hf_gpt2(tmp_path_factory):
    """A small random GPT-2 of Hugging Face's, saved by save_pretrained in both forms, with
    token ids and its own logits for them."""
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = tmp_path_factory.mktemp("hf-gpt2")
    torch.manual_seed(7)
    model = GPT2LMHeadModel(GPT2Config(**HF_CONFIG)).eval()
    model.save_pretrained(folder / "safe", safe_serialization=True)
    model.save_pretrained(folder / "bin", safe_serialization=False)
    ids = torch.randint(0, 100, (2, 16))
    with torch.no_grad():
        logits = model(ids).logits
    return model, folder, ids, logits


def logits_of(model, ids):
    with torch.no_grad():
        return model(ids)


@pytest.mark.slow
@pytest.mark.parametrize("form, file_name", [("safe", "model.safetensors"),
                                             ("bin", "pytorch_model.bin")])
def test_a_gpt2_saved_by_transformers_gives_its_logits_in_the_course_model(hf_gpt2, form, file_name):
    hf_model, folder, ids, hf_logits = hf_gpt2
    assert sorted(p.name for p in (folder / form).iterdir()) == [
        "config.json", "generation_config.json", file_name]
    for path in (folder / form, folder / form / file_name):  # the folder, or the file itself
        model = load_gpt2(path)
        assert model.cfg == HF_AS_COURSE
        assert is_tied(model)  # the head IS the embedding: one Parameter
        assert not model.training
        torch.testing.assert_close(logits_of(model, ids), hf_logits)
        assert count_parameters(model) == hf_model.num_parameters() == 29_184


@pytest.mark.slow
def test_the_hubs_layout_without_prefix_and_with_mask_buffers_loads_too(hf_gpt2, tmp_path):
    """GPT-2's files on the hub name tensors without `transformer.`, keep the attention
    masks `h.N.attn.bias` (and `masked_bias`), and drop `lm_head.weight`."""
    hf_model, _, ids, hf_logits = hf_gpt2
    state = {name.removeprefix("transformer."): tensor.contiguous()
             for name, tensor in hf_model.state_dict().items() if name != "lm_head.weight"}
    for block in range(2):
        state[f"h.{block}.attn.bias"] = torch.tril(torch.ones(16, 16)).view(1, 1, 16, 16)
        state[f"h.{block}.attn.masked_bias"] = torch.tensor(-1e4)
    safetensors.torch.save_file(state, tmp_path / "model.safetensors")
    torch.save(state, tmp_path / "pytorch_model.bin")
    for name in ("model.safetensors", "pytorch_model.bin"):
        model = load_gpt2(tmp_path / name, n_heads=2)  # no config.json: the argument says
        assert is_tied(model)
        torch.testing.assert_close(logits_of(model, ids), hf_logits)


@pytest.mark.slow
def test_gpt2_in_float16_and_bfloat16_loads_into_a_float32_model(hf_gpt2, tmp_path):
    hf_model, *_ = hf_gpt2
    for dtype in (torch.float16, torch.bfloat16):
        state = {n: t.to(dtype).contiguous() for n, t in hf_model.state_dict().items()
                 if n != "lm_head.weight"}
        safetensors.torch.save_file(state, tmp_path / "half.safetensors")
        model = load_gpt2(tmp_path / "half.safetensors", n_heads=2)
        assert model.tok_emb.weight.dtype == torch.float32
        assert torch.equal(model.tok_emb.weight, state["transformer.wte.weight"].float())
        c_attn = state["transformer.h.1.attn.c_attn.weight"].float()  # [inputs, 3 x outputs]
        assert torch.equal(model.trf_blocks[1].att.W_key.weight, c_attn[:, 32:64].T)


def test_read_safetensors_reads_f32_f16_and_bf16_as_written(tmp_path):
    written = {"a": torch.arange(6, dtype=torch.float32).reshape(2, 3),
               "b": torch.tensor([0.5, -2.25], dtype=torch.float16),
               "c": torch.tensor([[1.5], [3.0]], dtype=torch.bfloat16),
               "empty": torch.zeros(0, 4)}
    safetensors.torch.save_file(written, tmp_path / "t.safetensors")
    read = read_safetensors(tmp_path / "t.safetensors")
    assert sorted(read) == ["a", "b", "c", "empty"]
    for name, tensor in written.items():
        assert read[name].dtype == tensor.dtype and torch.equal(read[name], tensor), name


def test_another_dtype_is_refused_with_a_sentence(tmp_path):
    safetensors.torch.save_file({"wte.weight": torch.zeros(4, 2, dtype=torch.float64)},
                                tmp_path / "f64.safetensors")
    with pytest.raises(CheckpointError) as caught:
        read_safetensors(tmp_path / "f64.safetensors")
    assert str(caught.value) == (f"{tmp_path / 'f64.safetensors'} stores 'wte.weight' as F64; "
                                 "gptcourse reads F32, F16 and BF16 only")


def test_two_names_on_the_same_bytes_come_back_as_one_tensor(tmp_path):
    header = json.dumps({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "y": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    (tmp_path / "shared.safetensors").write_bytes(
        struct.pack("<Q", len(header)) + header + struct.pack("<2f", 1.0, 2.0))
    read = read_safetensors(tmp_path / "shared.safetensors")
    assert read["x"] is read["y"] and read["x"].tolist() == [1.0, 2.0]


def course_file(tmp_path, cfg, name, tied, copy_head=False, seed=3):
    torch.manual_seed(seed)
    model = GPTModel(cfg).eval()
    if tied:
        tie_weights(model)
    state = model.state_dict()
    if copy_head:
        state["out_head.weight"] = state["out_head.weight"].clone()
    torch.save(state, tmp_path / name)
    return model, tmp_path / name


@pytest.mark.parametrize("tied, copy_head, loads_tied", [(False, False, False), (True, False, True),
                                                        (True, True, True)])
def test_the_courses_own_checkpoints_load_tied_as_the_file_says(
        tmp_path, tiny_config, tied, copy_head, loads_tied):
    saved, path = course_file(tmp_path, tiny_config, "m.pt", tied, copy_head)
    model = load_gpt2(path, n_heads=3)
    assert model.cfg == {**tiny_config, "drop_rate": 0.1}
    assert is_tied(model) is loads_tied
    ids = torch.tensor([[1, 5, 96, 0]])
    assert torch.equal(logits_of(model, ids), logits_of(saved, ids))


def test_a_training_checkpoint_holding_the_state_dict_loads(tmp_path, tiny_config):
    torch.manual_seed(3)
    saved = GPTModel(tiny_config)
    torch.save({"model_state_dict": saved.state_dict(), "epoch": 4}, tmp_path / "train.pt")
    model = load_gpt2(tmp_path / "train.pt", n_heads=3)
    assert torch.equal(model.trf_blocks[1].ff.layers[2].weight, saved.trf_blocks[1].ff.layers[2].weight)


def test_loading_draws_no_number_from_the_global_random_generator(tmp_path, tiny_config):
    _, path = course_file(tmp_path, tiny_config, "m.pt", tied=False)
    torch.manual_seed(11)
    expected = torch.rand(3)
    torch.manual_seed(11)
    load_gpt2(path, n_heads=3)
    assert torch.equal(torch.rand(3), expected)


def test_the_heads_come_from_config_json_then_the_argument(tmp_path, tiny_config):
    _, path = course_file(tmp_path, tiny_config, "m.pt", tied=False)
    with pytest.raises(CheckpointError) as caught:
        load_gpt2(path)
    assert str(caught.value) == (
        f"the number of heads leaves no trace in the shapes, and for {path} no config.json "
        "says it and emb_dim 12 is none of GPT-2's widths (768, 1024, 1280, 1600): give n_heads")
    assert load_gpt2(path, n_heads=4).cfg["n_heads"] == 4  # 12 wide: 4 heads fit too
    (tmp_path / "config.json").write_text(json.dumps({"n_head": 6}))
    assert load_gpt2(path).cfg["n_heads"] == 6
    with pytest.raises(CheckpointError, match=r"n_heads=3 was asked for, and .* says n_head is 6"):
        load_gpt2(path, n_heads=3)


@pytest.mark.parametrize("state, sentence", [
    ({"weight": torch.zeros(4, 3), "bias": torch.zeros(4)},
     "has no token embedding (wte.weight or tok_emb.weight): a state dict of another model, "
     "not of a GPT-2"),
    ({"wte.weight": torch.zeros(10, 4), "wpe.weight": torch.zeros(3, 4), "score.weight": torch.zeros(2, 4)},
     "holds 'score.weight', which no GPT-2 has: a state dict of another model"),
    ({"wte.weight": torch.zeros(10, 4), "wpe.weight": torch.zeros(3, 4)},
     "has no transformer block"),
], ids=["no token embedding", "a tensor GPT-2 has not", "no block"])
def test_a_state_dict_of_another_model_is_refused_with_a_sentence(tmp_path, state, sentence):
    torch.save(state, tmp_path / "other.pt")
    with pytest.raises(CheckpointError) as caught:
        load_gpt2(tmp_path / "other.pt", n_heads=2)
    assert str(caught.value) == f"{tmp_path / 'other.pt'} {sentence}"


def test_a_checkpoint_missing_a_block_tensor_is_refused(tmp_path, tiny_config):
    torch.manual_seed(3)
    state = GPTModel(tiny_config).state_dict()
    del state["trf_blocks.1.ff.layers.0.bias"]
    torch.save(state, tmp_path / "m.pt")
    with pytest.raises(CheckpointError) as caught:
        load_gpt2(tmp_path / "m.pt", n_heads=3)
    assert str(caught.value) == (f"{tmp_path / 'm.pt'} has no trf_blocks.1.ff.layers.0.bias "
                                 "(in the course's names), which a GPT-2 of 2 blocks has")


class RunsCodeWhenUnpickled:
    """What a booby-trapped checkpoint holds: unpickling it calls `open(marker, "w")`."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "the-file-ran-code"
    torch.save({"wte.weight": RunsCodeWhenUnpickled(str(marker))}, tmp_path / "trap.bin")
    with pytest.raises(CheckpointError) as caught:
        load_gpt2(tmp_path / "trap.bin", n_heads=2)
    assert str(caught.value) == (f"{tmp_path / 'trap.bin'} cannot be read by "
                                 "torch.load(weights_only=True): truncated, damaged or not a "
                                 "plain state dict (Weights only load failed)")
    assert not marker.exists()
    torch.load(tmp_path / "trap.bin", weights_only=False)  # the trap is real: a plain load runs it
    assert marker.exists()
