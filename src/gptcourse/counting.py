"""Counting a model's parameters, and what they weigh in memory.

Every helper here counts each distinct parameter tensor once: when the output
head is tied to the token embedding, the shared matrix is counted one time.
Buffers (the causal attention mask) are never counted: they are not learned.
"""

import torch
from torch.overrides import TorchFunctionMode

from .model import GPT2_CONFIGS, GPTModel

BYTES_PER_FLOAT32 = 4
MIB = 1024**2  # a mebibyte, 2**20 bytes; the reference book prints this unit as "MB"


def count_parameters(model):
    """Number of learnable values in ``model``, each distinct tensor counted once.

    Everything is in: embeddings (token and position), every block, the final
    norm and the output head. A tied output head adds nothing, because it is
    the token-embedding matrix itself.
    """
    # model.parameters() yields a shared Parameter only once
    return sum(p.numel() for p in model.parameters())


def count_output_head(model):
    """Number of values in the output head's weight matrix (``vocab_size * emb_dim``)."""
    return model.out_head.weight.numel()


def count_tied_parameters(model):
    """The count the model would have with weight tying: total minus the output head.

    For an untied model this is ``count_parameters(model) - count_output_head(model)``:
    the output head is dropped because tying reuses the token embedding in its
    place. The position embedding stays in. For a model that is already tied,
    it is simply ``count_parameters(model)``.
    """
    if is_tied(model):
        return count_parameters(model)
    return count_parameters(model) - count_output_head(model)


def is_tied(model):
    """True if the output head and the token embedding are the same Parameter."""
    return model.out_head.weight is model.tok_emb.weight


def parameter_breakdown(model):
    """Counts per component, as an ordered dict that sums to ``count_parameters(model)``.

    Components: token embedding, position embedding, attention (query, key,
    value, output projection and its bias, all blocks), feed-forward (all
    blocks), layer norms (two per block plus the final one) and the output
    head, which is 0 when tied because its matrix is the token embedding's.
    """
    blocks = list(model.trf_blocks)
    return {
        "token embedding": model.tok_emb.weight.numel(),
        "position embedding": model.pos_emb.weight.numel(),
        "attention": sum(count_parameters(b.att) for b in blocks),
        "feed-forward": sum(count_parameters(b.ff) for b in blocks),
        "layer norms": sum(count_parameters(b.norm1) + count_parameters(b.norm2) for b in blocks)
        + count_parameters(model.final_norm),
        "output head": 0 if is_tied(model) else count_output_head(model),
    }


def model_size_bytes(model, bytes_per_param=BYTES_PER_FLOAT32):
    """Memory the distinct parameters take at ``bytes_per_param`` bytes each (float32: 4)."""
    return count_parameters(model) * bytes_per_param


def model_size_mib(model, bytes_per_param=BYTES_PER_FLOAT32):
    """Memory the distinct parameters take, in MiB (2**20 bytes), float32 by default."""
    return model_size_bytes(model, bytes_per_param) / MIB


class _ShapesOnly(TorchFunctionMode):
    """Skip work that cannot change a shape: random initial values and the mask's triangle.

    On the meta device these calls compute nothing, but torch serves them from
    Python reference implementations whose first use costs over a second of
    imports; skipping them keeps the first count of a process fast too.
    """

    SKIPPED = {"normal_", "uniform_", "kaiming_uniform_", "triu"}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__name__", None) in self.SKIPPED:
            return args[0] if args else kwargs.get("tensor", kwargs.get("input"))
        return func(*args, **kwargs)


def build_on_meta(cfg):
    """Build ``GPTModel(cfg)`` on the meta device: every shape, no memory, no random draws.

    ``cfg`` is a configuration dict or a name such as ``"gpt2-xl"``. The model
    cannot run, but every counting helper works on it.
    """
    if isinstance(cfg, str):
        cfg = config_by_name(cfg)
    with torch.device("meta"), _ShapesOnly():
        return GPTModel(cfg)


def config_by_name(name):
    """The configuration dict for ``gpt2-small``, ``gpt2-medium``, ``gpt2-large`` or ``gpt2-xl``."""
    try:
        return dict(GPT2_CONFIGS[name])
    except KeyError:
        raise ValueError(
            f"unknown model {name!r}; choose one of {', '.join(GPT2_CONFIGS)}"
        ) from None


def parameter_summary(cfg):
    """Counts for a configuration without allocating it: total, output head, tied, MiB."""
    model = build_on_meta(cfg)
    total = count_parameters(model)
    return {
        "total": total,
        "output head": count_output_head(model),
        "tied": count_tied_parameters(model),
        "float32 MiB": total * BYTES_PER_FLOAT32 / MIB,
    }


def count_parameter_tensors(model):
    """Number of distinct parameter tensors (weight matrices, bias and norm vectors)."""
    return len(list(model.parameters()))


def state_dict_numel(model):
    """Values in ``model.state_dict()``: parameters *and* buffers, a shared tensor once per name.

    This is not a parameter count: it adds the causal masks (buffers) and, for
    a tied model, counts the shared matrix under both of its names.
    """
    return sum(t.numel() for t in model.state_dict().values())


def _shape(tensor):
    return "[" + ", ".join(str(n) for n in tensor.shape) + "]"


def module_tree(model, blocks_shown=1):
    """The model's modules as an indented tree, with the shape of every parameter and buffer.

    Identical transformer blocks are shown ``blocks_shown`` times and the rest
    summarised in one line, so GPT-2's twelve blocks fit on a screen. Buffers
    are marked ``(buffer)``: they are stored with the model but not learned.
    """
    lines = []

    def walk(module, name, depth):
        pad = "    " * depth
        kind = type(module).__name__
        own = [(n, p, "") for n, p in module.named_parameters(recurse=False)]
        own += [(n, b, "  (buffer)") for n, b in module.named_buffers(recurse=False)]
        lines.append(f"{pad}{name}: {kind}" if name else kind)
        for n, tensor, note in own:
            lines.append(f"{pad}    {n} {_shape(tensor)}{note}")
        children = list(module.named_children())
        is_block_list = kind == "Sequential" and children and all(
            type(c).__name__ == "TransformerBlock" for _, c in children)
        for index, (child_name, child) in enumerate(children):
            if is_block_list and index == blocks_shown:
                rest = len(children) - blocks_shown
                lines.append(f"{pad}    ... {rest} more blocks like the one above "
                             f"({child_name} to {children[-1][0]})")
                break
            walk(child, child_name, depth + 1)

    walk(model, "", 0)
    return "\n".join(lines)
