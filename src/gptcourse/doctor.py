"""The checkpoint doctor: what a GPT-2 checkpoint on disk holds, without building the model.

``python -m gptcourse inspect CHECKPOINT`` prints what ``inspect_checkpoint`` finds:
the configuration the shapes imply, the parameter count untied and tied (counted by
``gptcourse.counting`` on the meta device), how the file holds the output head, the
biases, and what the KV cache of that model takes per token and at its full context.

It reads shapes, not values, where it can: a safetensors file's header says every
shape, and a PyTorch zip file is mapped into memory, not read, so a 500 MB file is
inspected in milliseconds. Values are read only to tell a head that merely equals
the embedding from one of its own.
"""

from dataclasses import dataclass

import torch

from .checkpoints import (BUFFER_SUFFIXES, SAFETENSORS_DTYPES, CheckpointError, HeadVerdict,
                          check_tensors, checkpoint_file, file_format, head_verdict,
                          implied_config, read_pytorch, read_safetensors,
                          read_safetensors_header, to_course_names)
from .counting import MIB, build_on_meta, count_parameters, count_tied_parameters

WHAT_LOADING_DOES = {
    HeadVerdict.SHARED: "load_gpt2 ties it: out_head.weight is tok_emb.weight, one Parameter",
    HeadVerdict.EQUAL_COPIES: "load_gpt2 ties it, keeping one of the copies; "
                              "load_state_dict alone would give two Parameters that "
                              "training moves apart",
    HeadVerdict.MISSING: "load_gpt2 ties it; load_state_dict alone would leave the head "
                         "random (or refuse, when strict)",
    HeadVerdict.UNTIED: "load_gpt2 keeps two Parameters; tying them would throw the head away",
}


@dataclass
class CheckpointReport:
    """What a checkpoint holds, as the doctor found it."""

    path: str
    file_format: str   # "safetensors" or "pytorch"
    names: str         # "Hugging Face's" or "the course's"
    dtype: torch.dtype  # the token embedding's
    cfg: dict
    heads_from: str
    parameters_untied: int
    parameters_tied: int
    head: HeadVerdict
    qkv_bias_values: int  # 0 when the query, key and value projections have no bias

    @property
    def kv_cache_bytes_per_token(self):
        """A key and a value vector of ``emb_dim`` numbers per block, for one token."""
        return 2 * self.cfg["n_layers"] * self.cfg["emb_dim"] * self.dtype.itemsize

    @property
    def kv_cache_bytes_full_context(self):
        return self.kv_cache_bytes_per_token * self.cfg["context_length"]


def _shapes_of_safetensors(path):
    """Meta tensors, one per tensor the header names: shapes and dtypes, no data read.
    Names whose bytes are the same bytes of the file get the same tensor object."""
    header = read_safetensors_header(path)
    tensors, by_range = {}, {}
    for name, entry in header.items():
        if name.endswith(BUFFER_SUFFIXES):
            continue
        if entry["dtype"] not in SAFETENSORS_DTYPES:
            raise CheckpointError(f"{path} stores {name!r} as {entry['dtype']}; "
                                  "gptcourse reads F32, F16 and BF16 only")
        key = tuple(entry["data_offsets"])
        if key not in by_range:
            by_range[key] = torch.empty(entry["shape"], dtype=SAFETENSORS_DTYPES[entry["dtype"]],
                                        device="meta")
        tensors[name] = by_range[key]
    return tensors


def _head_of_safetensors(path, raw, course):
    """The head's verdict for a safetensors file, reading the two matrices only if needed."""
    if "out_head.weight" not in course or course["out_head.weight"] is course["tok_emb.weight"]:
        return head_verdict(course)  # decided by the header alone
    wanted = {"tok_emb.weight", "out_head.weight", "wte.weight", "lm_head.weight"}
    names = [n for n in raw if n.removeprefix("transformer.") in wanted]
    return head_verdict(to_course_names(read_safetensors(path, names), path))


def inspect_checkpoint(path, n_heads=None):
    """A ``CheckpointReport`` for a checkpoint file or a folder from the hub.

    ``CheckpointError`` (one sentence) for a file that is no GPT-2 checkpoint: not a
    checkpoint at all, truncated, or a state dict of another model.
    """
    path = checkpoint_file(path)
    kind = file_format(path)
    if kind == "safetensors":
        raw = _shapes_of_safetensors(path)
    else:
        with open(path, "rb") as f:
            zipped = f.read(2) == b"PK"
        raw = read_pytorch(path, mmap=zipped)  # mapped, not read: values load when used
    course = to_course_names(raw, path)
    cfg, heads_from = implied_config(course, path, n_heads)
    check_tensors(course, cfg, path)
    head = _head_of_safetensors(path, raw, course) if kind == "safetensors" else head_verdict(course)
    model = build_on_meta(cfg)
    return CheckpointReport(
        path=path,
        file_format=kind,
        names="the course's" if "tok_emb.weight" in raw else "Hugging Face's",
        dtype=course["tok_emb.weight"].dtype,
        cfg=cfg,
        heads_from=heads_from,
        parameters_untied=count_parameters(model),
        parameters_tied=count_tied_parameters(model),
        head=head,
        qkv_bias_values=3 * cfg["n_layers"] * cfg["emb_dim"] if cfg["qkv_bias"] else 0,
    )


def _dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def format_report(report):
    """The doctor's report as text, one fact a line."""
    cfg = report.cfg
    dtype = f"{_dtype_name(report.dtype)}, {report.dtype.itemsize} bytes a value"
    lines = [
        f"checkpoint: {report.path}",
        f"format: {report.file_format}, {report.names} names, {_dtype_name(report.dtype)}",
        "configuration:",
        *(f"  {key}: {cfg[key]:,}" for key in ("vocab_size", "context_length", "emb_dim")),
        f"  n_heads: {cfg['n_heads']} (from {report.heads_from}: no shape shows it)",
        f"  n_layers: {cfg['n_layers']}",
        f"  qkv_bias: {cfg['qkv_bias']}",
        f"  drop_rate: {cfg['drop_rate']} (GPT-2's; a file holds no dropout rate)",
        f"parameters: {report.parameters_untied:,} untied, {report.parameters_tied:,} tied",
        f"output head: {report.head.value}",
        f"  loading: {WHAT_LOADING_DOES[report.head]}",
    ]
    if report.qkv_bias_values:
        lines.append(f"biases: query, key and value have biases ({report.qkv_bias_values:,} "
                     "values, as in GPT-2); the output projection, feed-forward and norms too")
    else:
        lines.append("biases: none on query, key and value; the output projection, "
                     "feed-forward and norms have theirs")
    full = report.kv_cache_bytes_full_context
    lines.append(f"KV cache: {report.kv_cache_bytes_per_token:,} bytes per token "
                 f"(2 × {cfg['n_layers']} layers × {cfg['emb_dim']} × {report.dtype.itemsize} bytes), "
                 f"{full:,} bytes ({full / MIB:,.2f} MiB) at the full context of "
                 f"{cfg['context_length']:,} tokens, in {dtype}")
    return "\n".join(lines)
