"""GPT-2's own weights, loaded into the course's ``GPTModel``.

OpenAI published GPT-2's trained weights; the Hugging Face hub keeps them as
``model.safetensors`` (and in the older form ``pytorch_model.bin``) beside a
``config.json``. Downloading them is your step (for example the files of the
hub's ``openai-community/gpt2``, into a folder ``gpt2/``); ``load_gpt2`` reads
them from that local path and never from the network::

    model = load_gpt2("gpt2")   # the folder, or gpt2/model.safetensors itself

Three things differ between those files and ``GPTModel``:

1. **Names.** Hugging Face calls the token embedding ``wte.weight`` (or
   ``transformer.wte.weight``), the course ``tok_emb.weight``. ``TOP_NAMES`` and
   ``BLOCK_NAMES`` below list every pair.
2. **Shapes.** GPT-2's linear layers are ``Conv1D`` modules, which store their
   matrix as [inputs, outputs]: the transpose of ``nn.Linear``'s [outputs, inputs].
   And one matrix, ``c_attn``, holds the query, key and value projections side by
   side; the course keeps them as three.
3. **The output head.** GPT-2 ties it to the token embedding, so its files hold no
   ``lm_head.weight``: the head *is* the embedding. The loaded model's
   ``out_head.weight`` is then the very Parameter ``tok_emb.weight``, as in the
   weight-tying chapter; loaded with ``load_state_dict`` alone, it would stay random.

The configuration comes from the shapes: ``vocab_size`` and ``emb_dim`` from the
token embedding, ``context_length`` from the position embedding, ``n_layers`` from
the blocks, ``qkv_bias`` from whether the query has a bias (GPT-2's has). The number
of heads leaves no trace in any shape: it comes from the ``config.json`` beside the
file, else from the ``n_heads`` argument, else from GPT-2's family table by width
(768 wide means 12 heads). ``drop_rate`` is GPT-2's 0.1.

The two file formats:

- **safetensors**: 8 bytes, the length of a header (little-endian); the header, JSON
  ``{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}}``; then the
  raw bytes of every tensor, ``begin`` and ``end`` counted from the end of the header.
  A few lines of Python read it (``read_safetensors``), no package needed.
- **a PyTorch file** (``.bin``, ``.pt``): a pickled state dict, read with
  ``torch.load(weights_only=True)``, which refuses to run code hidden in a pickle.
"""

import enum
import json
import os
import struct

import torch

from .counting import build_on_meta
from .model import GPT2_CONFIGS, tie_weights, validate_config

SAFETENSORS_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
FILE_NAMES = ("model.safetensors", "pytorch_model.bin")  # what a folder from the hub holds

TOP_NAMES = {  # Hugging Face's name -> the course's
    "wte.weight": "tok_emb.weight",
    "wpe.weight": "pos_emb.weight",
    "ln_f.weight": "final_norm.scale",
    "ln_f.bias": "final_norm.shift",
    "lm_head.weight": "out_head.weight",
}
BLOCK_NAMES = {  # in block N: h.N.<Hugging Face's name> -> trf_blocks.N.<the course's>
    "ln_1.weight": "norm1.scale",
    "ln_1.bias": "norm1.shift",
    "attn.c_attn.weight": ("att.W_query.weight", "att.W_key.weight", "att.W_value.weight"),
    "attn.c_attn.bias": ("att.W_query.bias", "att.W_key.bias", "att.W_value.bias"),
    "attn.c_proj.weight": "att.out_proj.weight",
    "attn.c_proj.bias": "att.out_proj.bias",
    "ln_2.weight": "norm2.scale",
    "ln_2.bias": "norm2.shift",
    "mlp.c_fc.weight": "ff.layers.0.weight",
    "mlp.c_fc.bias": "ff.layers.0.bias",
    "mlp.c_proj.weight": "ff.layers.2.weight",
    "mlp.c_proj.bias": "ff.layers.2.bias",
}
CONV1D_WEIGHTS = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")
# the causal masks are buffers, not weights: each model makes its own
BUFFER_SUFFIXES = (".attn.bias", ".attn.masked_bias", ".att.mask")
HEADS_BY_WIDTH = {cfg["emb_dim"]: cfg["n_heads"] for cfg in GPT2_CONFIGS.values()}


class CheckpointError(ValueError):
    """A file that is no GPT-2 checkpoint gptcourse can read; the message is one sentence."""


def checkpoint_file(path):
    """``path`` itself, or the checkpoint a folder from the hub holds (safetensors first)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        for name in FILE_NAMES:
            if os.path.isfile(os.path.join(path, name)):
                return os.path.join(path, name)
        raise CheckpointError(f"{path} is a folder with neither {' nor '.join(FILE_NAMES)} in it")
    if not os.path.isfile(path):
        raise CheckpointError(f"{path} does not exist")
    return path


def file_format(path):
    """``"safetensors"`` or ``"pytorch"``, from the file's first bytes (not its name)."""
    with open(path, "rb") as f:
        start = f.read(9)
    if start[:4] == b"PK\x03\x04" or start[:1] == b"\x80":  # a zip archive, or a bare pickle
        return "pytorch"
    if len(start) == 9 and start[8:9] == b"{":  # 8 bytes of length, then a JSON object
        return "safetensors"
    raise CheckpointError(
        f"{path} is not a checkpoint: neither safetensors (an 8-byte length, then a JSON "
        "header) nor a PyTorch file (a zip archive or a pickle)")


def read_safetensors_header(path):
    """The header of a safetensors file: {name: {"dtype", "shape", "data_offsets"}}, checked.

    It checks that every tensor's bytes lie inside the file without reading them:
    a truncated download is caught here, before any data is read.
    """
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        (header_length,) = struct.unpack("<Q", f.read(8))  # little-endian unsigned 64 bits
        if 8 + header_length > size:
            raise CheckpointError(f"{path} is truncated: its header alone should be "
                                  f"{header_length:,} bytes, and the file has {size:,}")
        try:
            header = json.loads(f.read(header_length))
        except ValueError:
            raise CheckpointError(f"{path} has a header that is not JSON") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path} has a header that is not a JSON object")
    header.pop("__metadata__", None)  # free text, such as {"format": "pt"}
    data_size = size - 8 - header_length
    for name, entry in header.items():
        try:
            begin, end = (int(n) for n in entry["data_offsets"])
            entry["shape"] = shape = [int(n) for n in entry["shape"]]
            dtype = entry["dtype"]
        except (TypeError, KeyError, ValueError):
            raise CheckpointError(f"{path} describes {name!r} without a dtype, shape "
                                  "and data_offsets") from None
        if end > data_size:
            raise CheckpointError(f"{path} is truncated: {name!r} ends at byte {end:,} of "
                                  f"the data, and the file holds {data_size:,}")
        if dtype in SAFETENSORS_DTYPES:
            needed = torch.Size(shape).numel() * SAFETENSORS_DTYPES[dtype].itemsize
            if not 0 <= begin <= end or end - begin != needed:
                raise CheckpointError(f"{path} gives {name!r} {end - begin:,} bytes where "
                                      f"its shape and dtype need {needed:,}")
    return header


def read_safetensors(path, names=None):
    """The tensors of a safetensors file (only ``names``, if given), as a state dict.

    F32, F16 and BF16 are read; another dtype raises ``CheckpointError``. Two names
    whose bytes are the same bytes of the file come back as one tensor.
    """
    header = read_safetensors_header(path)
    with open(path, "rb") as f:
        (header_length,) = struct.unpack("<Q", f.read(8))
        tensors, by_range = {}, {}
        for name in header if names is None else names:
            if name not in header:
                raise CheckpointError(f"{path} has no tensor {name!r}")
            entry = header[name]
            if entry["dtype"] not in SAFETENSORS_DTYPES:
                raise CheckpointError(f"{path} stores {name!r} as {entry['dtype']}; "
                                      "gptcourse reads F32, F16 and BF16 only")
            begin, end = entry["data_offsets"]
            if (begin, end) not in by_range:
                f.seek(8 + header_length + begin)
                raw = bytearray(f.read(end - begin))
                dtype = SAFETENSORS_DTYPES[entry["dtype"]]
                flat = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
                by_range[begin, end] = flat.reshape(entry["shape"])
            tensors[name] = by_range[begin, end]
    return tensors


def state_dict_from(loaded, path):
    """The state dict in what ``torch.load`` returned: the dict itself, or the one it holds
    under ``model_state_dict``, ``state_dict`` or ``model`` (a training checkpoint)."""
    if isinstance(loaded, dict):
        if loaded and all(isinstance(v, torch.Tensor) for v in loaded.values()):
            return loaded
        for key in ("model_state_dict", "state_dict", "model"):
            if isinstance(loaded.get(key), dict):
                return state_dict_from(loaded[key], path)
    raise CheckpointError(f"{path} holds a {type(loaded).__name__}, not a state dict "
                          "(a dict of tensors)")


def read_pytorch(path, mmap=False):
    """The state dict of a PyTorch file, loaded with ``weights_only=True``.

    With ``mmap`` the tensors stay in the file and are read when used (zip files only).
    """
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True, mmap=mmap)
    except Exception as exc:  # torch says why in many ways: a bad zip, a refused pickle
        reason = (str(exc).strip() or type(exc).__name__).splitlines()[0].split(". ")[0]
        raise CheckpointError(f"{path} cannot be read by torch.load(weights_only=True): "
                              f"truncated, damaged or not a plain state dict ({reason})") from None
    return state_dict_from(loaded, path)


def read_state_dict(path):
    """The tensors of a checkpoint, safetensors or PyTorch, under the file's own names."""
    path = checkpoint_file(path)
    if file_format(path) == "safetensors":
        header = read_safetensors_header(path)
        return read_safetensors(path, [n for n in header if not n.endswith(BUFFER_SUFFIXES)])
    return read_pytorch(path)


def to_course_names(state_dict, path="the checkpoint"):
    """The state dict under the course's names, Conv1D matrices transposed, ``c_attn`` split.

    Hugging Face's names may carry the ``transformer.`` prefix or not; the course's
    own names pass as they are. The causal masks are left out, and so is the head
    when the file has none. Works on tensors of any device, ``meta`` included.
    """
    names = {name.removeprefix("transformer.") for name in state_dict}
    if "tok_emb.weight" in names:  # the course's own names
        return {n: t for n, t in state_dict.items() if not n.endswith(BUFFER_SUFFIXES)}
    if "wte.weight" not in names:
        raise CheckpointError(f"{path} has no token embedding (wte.weight or tok_emb.weight): "
                              "a state dict of another model, not of a GPT-2")
    course = {}
    for name, tensor in state_dict.items():
        short = name.removeprefix("transformer.")
        block, _, rest = short.removeprefix("h.").partition(".")
        if short.endswith(BUFFER_SUFFIXES):
            continue
        if short in TOP_NAMES:
            course[TOP_NAMES[short]] = tensor
        elif short.startswith("h.") and block.isdigit() and rest in BLOCK_NAMES:
            if rest in CONV1D_WEIGHTS:
                if tensor.dim() != 2:
                    raise CheckpointError(f"{path} holds {name!r} with shape {list(tensor.shape)}, "
                                          "not a matrix")
                tensor = tensor.t()  # Conv1D's [inputs, outputs] -> nn.Linear's [outputs, inputs]
            target = BLOCK_NAMES[rest]
            if isinstance(target, tuple):  # c_attn: query, key and value, one after another
                parts = dict(zip(target, tensor.chunk(3, dim=0)))
            else:
                parts = {target: tensor}
            course.update({f"trf_blocks.{block}.{n}": t for n, t in parts.items()})
        else:
            raise CheckpointError(f"{path} holds {name!r}, which no GPT-2 has: "
                                  "a state dict of another model")
    return course


def heads_for(emb_dim, path, n_heads=None):
    """(number of heads, where it came from): config.json beside the file, the argument,
    or GPT-2's family table by width; ``CheckpointError`` when none says."""
    config_path = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
    if os.path.isfile(config_path):
        try:
            with open(config_path, encoding="utf-8") as f:
                from_file = json.load(f).get("n_head")
        except (ValueError, AttributeError):
            raise CheckpointError(f"{config_path} is not a JSON object") from None
        if from_file is not None:
            if n_heads is not None and n_heads != from_file:
                raise CheckpointError(f"n_heads={n_heads} was asked for, and {config_path} "
                                      f"says n_head is {from_file}")
            return from_file, "config.json"
    if n_heads is not None:
        return n_heads, "the argument"
    if emb_dim in HEADS_BY_WIDTH:
        return HEADS_BY_WIDTH[emb_dim], "GPT-2's family table, by emb_dim"
    raise CheckpointError(
        f"the number of heads leaves no trace in the shapes, and for {path} no config.json "
        f"says it and emb_dim {emb_dim} is none of GPT-2's widths "
        f"({', '.join(str(w) for w in HEADS_BY_WIDTH)}): give n_heads")


def implied_config(course, path="the checkpoint", n_heads=None):
    """(configuration, where ``n_heads`` came from) for a state dict under the course's names."""
    for needed in ("tok_emb.weight", "pos_emb.weight"):
        if needed not in course or course[needed].dim() != 2:
            raise CheckpointError(f"{path} has no {needed} matrix")
    vocab_size, emb_dim = course["tok_emb.weight"].shape
    blocks = {int(n.split(".")[1]) for n in course if n.startswith("trf_blocks.")
              and n.split(".")[1].isdigit()}
    if not blocks:
        raise CheckpointError(f"{path} has no transformer block")
    heads, source = heads_for(emb_dim, path, n_heads)
    cfg = {
        "vocab_size": vocab_size,
        "context_length": course["pos_emb.weight"].shape[0],
        "emb_dim": emb_dim,
        "n_heads": heads,
        "n_layers": max(blocks) + 1,
        "drop_rate": 0.1,  # GPT-2's; a file holds no dropout rate
        "qkv_bias": "trf_blocks.0.att.W_query.bias" in course,
    }
    try:
        validate_config(cfg)
    except ValueError as exc:
        raise CheckpointError(f"{path} implies a configuration GPTModel cannot build: {exc}") from None
    return cfg, source


def check_tensors(course, cfg, path="the checkpoint"):
    """Raise ``CheckpointError`` unless ``course`` holds every tensor ``GPTModel(cfg)`` has,
    with its shape, and nothing else (the head may be missing: it is then the embedding)."""
    expected = {n: t.shape for n, t in build_on_meta(cfg).state_dict().items()
                if not n.endswith(BUFFER_SUFFIXES)}
    for name, shape in expected.items():
        if name not in course and name != "out_head.weight":
            raise CheckpointError(f"{path} has no {name} (in the course's names), which a "
                                  f"GPT-2 of {cfg['n_layers']} blocks has")
        if name in course and course[name].shape != shape:
            raise CheckpointError(f"{path} holds {name} (in the course's names) with shape "
                                  f"{list(course[name].shape)} where the configuration its "
                                  f"embeddings imply needs {list(shape)}")
    for name in course:
        if name not in expected:
            raise CheckpointError(f"{path} holds {name}, which GPTModel has not")


class HeadVerdict(enum.Enum):
    """How a checkpoint holds the output head, and so whether a loaded model ties it."""

    SHARED = "tied: the head and the token embedding are one tensor in the file (the same storage)"
    EQUAL_COPIES = ("tied by value: two separate copies with equal values in the file, as a "
                    "tied model's state dict written by a tool that copies shared tensors")
    MISSING = ("missing from the file, as GPT-2's own checkpoints drop it: the head is the "
               "token embedding")
    UNTIED = "untied: a head of its own, with values other than the token embedding's"

    @property
    def ties(self):
        """Whether a model loaded from such a file has its head tied to the embedding."""
        return self is not HeadVerdict.UNTIED


def same_storage(a, b):
    """Whether two tensors are views of the same memory, with the same shape and layout."""
    return (a is b) or (a.device.type != "meta" and b.device.type != "meta"
                        and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
                        and a.storage_offset() == b.storage_offset()
                        and a.shape == b.shape and a.stride() == b.stride())


def head_verdict(course):
    """How ``course`` (a state dict under the course's names, with values) holds the head."""
    head, embedding = course.get("out_head.weight"), course["tok_emb.weight"]
    if head is None:
        return HeadVerdict.MISSING
    if same_storage(head, embedding):
        return HeadVerdict.SHARED
    if torch.equal(head, embedding):
        return HeadVerdict.EQUAL_COPIES
    return HeadVerdict.UNTIED


def load_gpt2(path, n_heads=None):
    """A ``GPTModel`` holding the weights of a checkpoint on disk, in eval mode, float32.

    ``path``: a safetensors or PyTorch file, under Hugging Face's names or the
    course's, or a folder holding ``model.safetensors`` or ``pytorch_model.bin``.
    ``n_heads`` is needed only when no ``config.json`` lies beside the file and
    the width is none of GPT-2's. The head is tied when the file says so (one
    tensor for both, equal copies, or no head at all, as in GPT-2's files): then
    ``model.out_head.weight is model.tok_emb.weight``. Building the model draws
    no number from PyTorch's global random generator. A file that is no GPT-2
    checkpoint raises ``CheckpointError`` with a sentence saying why.
    """
    path = checkpoint_file(path)
    course = to_course_names(read_state_dict(path), path)
    cfg, _ = implied_config(course, path, n_heads)
    check_tensors(course, cfg, path)
    # every shape on the meta device, then memory with no random start values to overwrite
    model = build_on_meta(cfg).to_empty(device="cpu")
    for block in model.trf_blocks:  # the causal masks, made as GPTModel makes them, not read
        block.att.mask.copy_(torch.triu(torch.ones_like(block.att.mask), diagonal=1))
    if head_verdict(course).ties:
        tie_weights(model)
        course["out_head.weight"] = course["tok_emb.weight"]
    # strict=False for the masks alone: check_tensors has checked every other name and shape
    model.load_state_dict(course, strict=False)
    return model.eval()
