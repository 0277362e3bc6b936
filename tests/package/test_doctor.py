"""The checkpoint doctor (gptcourse/doctor.py), `python -m gptcourse inspect CHECKPOINT`, on
checkpoints the tests write: tied, untied, the head copied or missing, truncated, no
checkpoint at all, another model's; and 124M-shaped files that hold a header and no data.
"""

import contextlib
import io
import json
import struct

import pytest
import safetensors.torch
import torch

import gptcourse.doctor
from gptcourse import GPT_CONFIG_124M, GPTModel, build_on_meta, tie_weights
from gptcourse.__main__ import main


def run_cli(*args):
    """(exit status, stdout, stderr) of `python -m gptcourse ARGS`, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])
    return status, out.getvalue(), err.getvalue()


def tiny_state(cfg, tied=False, seed=3):
    torch.manual_seed(seed)
    model = GPTModel(cfg)
    if tied:
        tie_weights(model)
    return model.state_dict()


TINY_HEAD = {  # the head's two lines for each verdict
    "shared": ["output head: tied: the head and the token embedding are one tensor in the "
               "file (the same storage)",
               "  loading: load_gpt2 ties it: out_head.weight is tok_emb.weight, one Parameter"],
    "copies": ["output head: tied by value: two separate copies with equal values in the file, "
               "as a tied model's state dict written by a tool that copies shared tensors",
               "  loading: load_gpt2 ties it, keeping one of the copies; load_state_dict alone "
               "would give two Parameters that training moves apart"],
    "missing": ["output head: missing from the file, as GPT-2's own checkpoints drop it: the "
                "head is the token embedding",
                "  loading: load_gpt2 ties it; load_state_dict alone would leave the head "
                "random (or refuse, when strict)"],
    "untied": ["output head: untied: a head of its own, with values other than the token "
               "embedding's",
               "  loading: load_gpt2 keeps two Parameters; tying them would throw the head away"],
}


def test_a_tied_course_checkpoint_reports_every_figure(tmp_path, tiny_config):
    torch.save(tiny_state(tiny_config, tied=True), tmp_path / "tied.pt")
    status, out, err = run_cli("inspect", tmp_path / "tied.pt", "--heads", "3")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        f"checkpoint: {tmp_path / 'tied.pt'}",
        "format: pytorch, the course's names, float32",
        "configuration:",
        "  vocab_size: 97",
        "  context_length: 8",
        "  emb_dim: 12",
        "  n_heads: 3 (from the argument: no shape shows it)",
        "  n_layers: 2",
        "  qkv_bias: False",
        "  drop_rate: 0.1 (GPT-2's; a file holds no dropout rate)",
        "parameters: 6,144 untied, 4,980 tied",
        *TINY_HEAD["shared"],
        "biases: none on query, key and value; the output projection, feed-forward and norms "
        "have theirs",
        "KV cache: 192 bytes per token (2 × 2 layers × 12 × 4 bytes), 1,536 bytes (0.00 MiB) at "
        "the full context of 8 tokens, in float32, 4 bytes a value",
    ]


@pytest.mark.parametrize("verdict", ["untied", "copies", "missing"])
def test_the_head_gets_its_verdict(tmp_path, tiny_config, verdict):
    state = tiny_state(tiny_config, tied=verdict != "untied")
    if verdict == "copies":
        state["out_head.weight"] = state["out_head.weight"].clone()
    if verdict == "missing":
        del state["out_head.weight"]
    torch.save(state, tmp_path / "m.pt")
    status, out, err = run_cli("inspect", tmp_path / "m.pt", "--heads", "3")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[lines.index("parameters: 6,144 untied, 4,980 tied") + 1:][:2] == TINY_HEAD[verdict]


def test_a_safetensors_file_of_gpt2s_names_in_float16(tmp_path, tiny_config):
    """Hugging Face's names, qkv biases, the mask buffers, no head, a config.json, float16."""
    cfg = {**tiny_config, "qkv_bias": True}
    course = tiny_state(cfg)
    hf = {"transformer.wte.weight": course["tok_emb.weight"],
          "transformer.wpe.weight": course["pos_emb.weight"],
          "transformer.ln_f.weight": course["final_norm.scale"],
          "transformer.ln_f.bias": course["final_norm.shift"]}
    for n in range(2):
        c, h = f"trf_blocks.{n}.", f"transformer.h.{n}."
        att = [course[c + f"att.W_{p}.weight"] for p in ("query", "key", "value")]
        hf.update({
            h + "ln_1.weight": course[c + "norm1.scale"], h + "ln_1.bias": course[c + "norm1.shift"],
            h + "ln_2.weight": course[c + "norm2.scale"], h + "ln_2.bias": course[c + "norm2.shift"],
            h + "attn.c_attn.weight": torch.cat(att).T,
            h + "attn.c_attn.bias": torch.cat([course[c + f"att.W_{p}.bias"]
                                               for p in ("query", "key", "value")]),
            h + "attn.c_proj.weight": course[c + "att.out_proj.weight"].T,
            h + "attn.c_proj.bias": course[c + "att.out_proj.bias"],
            h + "mlp.c_fc.weight": course[c + "ff.layers.0.weight"].T,
            h + "mlp.c_fc.bias": course[c + "ff.layers.0.bias"],
            h + "mlp.c_proj.weight": course[c + "ff.layers.2.weight"].T,
            h + "mlp.c_proj.bias": course[c + "ff.layers.2.bias"],
            h + "attn.bias": torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8)})
    safetensors.torch.save_file({k: v.half().contiguous() for k, v in hf.items()},
                                tmp_path / "model.safetensors")
    (tmp_path / "config.json").write_text(json.dumps({"n_head": 3, "n_embd": 12}))
    status, out, err = run_cli("inspect", tmp_path)  # the folder, as from the hub
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == [f"checkpoint: {tmp_path / 'model.safetensors'}",
                         "format: safetensors, Hugging Face's names, float16", "configuration:"]
    assert "  n_heads: 3 (from config.json: no shape shows it)" in lines
    assert "  qkv_bias: True" in lines
    assert "parameters: 6,216 untied, 5,052 tied" in lines  # 6,144 + 2 x 3 x 12 qkv biases
    assert lines[lines.index("parameters: 6,216 untied, 5,052 tied") + 1:][:2] == TINY_HEAD["missing"]
    assert ("biases: query, key and value have biases (72 values, as in GPT-2); the output "
            "projection, feed-forward and norms too") in lines
    assert lines[-1] == ("KV cache: 96 bytes per token (2 × 2 layers × 12 × 2 bytes), 768 bytes "
                         "(0.00 MiB) at the full context of 8 tokens, in float16, 2 bytes a value")


def write_header_only(path, tensors):
    """A safetensors file whose header names `tensors` ({name: shape, or the name of a tensor
    whose bytes it shares}, float32) and whose data is a hole: the file has its full size, and
    the disk holds only the header."""
    header, offset = {}, 0
    for name, shape in tensors.items():
        if isinstance(shape, str):
            header[name] = header[shape]
            continue
        size = torch.Size(shape).numel() * 4
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + offset)  # a sparse file: no data written
    return 8 + len(text) + offset


@pytest.fixture
def no_values_read(monkeypatch):
    """Inspecting must not read a tensor's values: reading them fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the doctor read tensor values")
    monkeypatch.setattr(gptcourse.doctor, "read_safetensors", refuse)


def test_a_124m_header_of_the_courses_names_gives_the_reference_counts(tmp_path, no_values_read):
    shapes = {n: t.shape for n, t in build_on_meta(GPT_CONFIG_124M).state_dict().items()
              if not n.endswith(".att.mask")}
    shapes["out_head.weight"] = "tok_emb.weight"  # tied: one copy of the matrix in the file
    size = write_header_only(tmp_path / "gpt2-124m.safetensors", shapes)
    assert 124_412_160 * 4 < size < 124_412_160 * 4 + 100_000  # 498 MB of data, a small header
    status, out, err = run_cli("inspect", tmp_path / "gpt2-124m.safetensors")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[3:10] == ["  vocab_size: 50,257", "  context_length: 1,024", "  emb_dim: 768",
                           "  n_heads: 12 (from GPT-2's family table, by emb_dim: no shape shows it)",
                           "  n_layers: 12", "  qkv_bias: False",
                           "  drop_rate: 0.1 (GPT-2's; a file holds no dropout rate)"]
    assert lines[10] == "parameters: 163,009,536 untied, 124,412,160 tied"
    assert lines[11:13] == TINY_HEAD["shared"]
    assert lines[-1] == ("KV cache: 73,728 bytes per token (2 × 12 layers × 768 × 4 bytes), "
                         "75,497,472 bytes (72.00 MiB) at the full context of 1,024 tokens, "
                         "in float32, 4 bytes a value")


def test_a_124m_header_as_gpt2s_file_counts_its_qkv_biases_and_ties_by_omission(
        tmp_path, no_values_read):
    """GPT-2's own model.safetensors: no prefix, the mask buffers, qkv biases, no head."""
    d = 768
    shapes = {"wte.weight": (50257, d), "wpe.weight": (1024, d), "ln_f.weight": (d,),
              "ln_f.bias": (d,)}
    for n in range(12):
        shapes.update({f"h.{n}.{name}": shape for name, shape in {
            "ln_1.weight": (d,), "ln_1.bias": (d,), "ln_2.weight": (d,), "ln_2.bias": (d,),
            "attn.bias": (1, 1, 1024, 1024), "attn.c_attn.weight": (d, 3 * d),
            "attn.c_attn.bias": (3 * d,), "attn.c_proj.weight": (d, d), "attn.c_proj.bias": (d,),
            "mlp.c_fc.weight": (d, 4 * d), "mlp.c_fc.bias": (4 * d,),
            "mlp.c_proj.weight": (4 * d, d), "mlp.c_proj.bias": (d,)}.items()})
    write_header_only(tmp_path / "model.safetensors", shapes)
    status, out, err = run_cli("inspect", tmp_path / "model.safetensors")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[1] == "format: safetensors, Hugging Face's names, float32"
    assert lines[10] == "parameters: 163,037,184 untied, 124,439,808 tied"
    assert lines[11:13] == TINY_HEAD["missing"]
    assert lines[13] == ("biases: query, key and value have biases (27,648 values, as in GPT-2); "
                         "the output projection, feed-forward and norms too")


def error_of(tmp_path, name, content):
    (tmp_path / name).write_bytes(content)
    status, out, err = run_cli("inspect", tmp_path / name, "--heads", "3")
    assert (status, out) == (1, "")
    assert len(err.splitlines()) == 1, err
    return err.strip()


def test_no_checkpoint_at_all_exits_1_with_one_sentence(tmp_path):
    path = tmp_path / "notes.txt"
    assert error_of(tmp_path, "notes.txt", b"GPT-2 has 124M parameters\n") == (
        f"python -m gptcourse inspect: {path} is not a checkpoint: neither safetensors (an 8-byte "
        "length, then a JSON header) nor a PyTorch file (a zip archive or a pickle)")
    assert "is not a checkpoint" in error_of(tmp_path, "empty.bin", b"")


def test_a_truncated_safetensors_file_exits_1_naming_the_cut(tmp_path, tiny_config):
    safetensors.torch.save_file(tiny_state(tiny_config, tied=False), tmp_path / "whole.safetensors")
    whole = (tmp_path / "whole.safetensors").read_bytes()
    assert "is truncated: " in error_of(tmp_path, "cut.safetensors", whole[:len(whole) // 2])
    (header_length,) = struct.unpack("<Q", whole[:8])
    assert error_of(tmp_path, "cut.safetensors", whole[:8 + header_length // 2]) == (
        f"python -m gptcourse inspect: {tmp_path / 'cut.safetensors'} is truncated: its header "
        f"alone should be {header_length:,} bytes, and the file has {8 + header_length // 2:,}")


def test_a_truncated_pytorch_file_exits_1_with_one_sentence(tmp_path, tiny_config):
    buffer = io.BytesIO()
    torch.save(tiny_state(tiny_config), buffer)
    message = error_of(tmp_path, "cut.pt", buffer.getvalue()[:5000])
    assert message.startswith(f"python -m gptcourse inspect: {tmp_path / 'cut.pt'} cannot be read "
                              "by torch.load(weights_only=True): truncated, damaged or not a plain "
                              "state dict (")


def test_a_state_dict_of_another_model_exits_1(tmp_path):
    buffer = io.BytesIO()
    torch.save(torch.nn.Linear(3, 4).state_dict(), buffer)
    assert error_of(tmp_path, "linear.pt", buffer.getvalue()) == (
        f"python -m gptcourse inspect: {tmp_path / 'linear.pt'} has no token embedding "
        "(wte.weight or tok_emb.weight): a state dict of another model, not of a GPT-2")
