"""What a check's call did to the tensors and modules it was given.

A check's arguments arrive here as copies, so a check that asks "did the answer
change the model it was given?" would never see the change. Each tensor and
module argument the check made itself is marked before the call and compared
after it; the reply says what changed (which parameters are now one object,
the new values), and the checker does the same to the check's own objects
(``checks/values.py``, mirror_changes).
"""

import sys

from .encoding import Encoder, TooLarge

_BaseException = BaseException  # kept before any notebook code runs, which could replace them
_str = str
_isinstance = isinstance

MARKED_BYTES_CAP = 64 << 20  # bytes of a call's arguments kept to compare; beyond: versions only


def argument_marks(args, kwargs, skip):
    """{where: (argument, mark)} of a call's tensor and module arguments not in `skip` (ids)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    budget = [MARKED_BYTES_CAP]
    places = list(enumerate(args)) + [(_str(k), v) for k, v in kwargs.items()]
    marks = {}
    for where, value in places:
        if id(value) in skip:
            continue
        try:
            mark = _mark(value, torch, budget)
        except _BaseException:
            continue
        if mark is not None:
            marks[where] = (value, mark)
    return marks


def argument_changes(marks):
    """[{"where": position or keyword, ...}] for each marked argument the call changed.

    A module: "shared", its parameters' names grouped by the object they are
    now (tying puts two names in one group), and "values" {name: encoded} of
    the parameters whose object or data changed. A tensor: its new "value".
    """
    torch = sys.modules.get("torch")
    changes = []
    for where, (value, before) in marks.items():
        try:
            after = _mark(value, torch, [MARKED_BYTES_CAP])
            if after == before:
                continue
            changes.append(_change(where, value, before, torch))
        except _BaseException:
            continue
    return changes


def _mark(value, torch, budget):
    if _isinstance(value, torch.nn.Module):
        return ("module", [(name, id(p), _tensor_mark(p, budget, torch))
                           for name, p in value.named_parameters(remove_duplicate=False)])
    if _isinstance(value, torch.Tensor):
        return ("tensor", _tensor_mark(value, budget, torch))
    return None


def _tensor_mark(tensor, budget, torch):
    """What identifies a tensor's data: its version counter, place, shape, type and bytes."""
    meta = tensor.device.type == "meta"
    size = tensor.numel() * tensor.element_size()
    content = None
    if not meta and size <= budget[0]:
        budget[0] -= size
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        content = flat.view(torch.uint8).numpy().tobytes() if size else b""
    return (tensor._version, 0 if meta else tensor.data_ptr(), tuple(tensor.shape),
            _str(tensor.dtype), content)


def _change(where, value, before, torch):
    """What changed in one argument, as argument_changes describes it."""
    encoder = Encoder()
    if before[0] == "tensor":
        return {"where": where, "value": encoder.encode(value.detach())}
    groups = {}
    now = list(value.named_parameters(remove_duplicate=False))
    for name, parameter in now:
        groups.setdefault(id(parameter), []).append(name)
    earlier = {name: (ident, mark) for name, ident, mark in before[1]}
    values = {}
    for name, parameter in now:
        if groups[id(parameter)][0] != name:
            continue  # another name of a parameter listed first: "shared" says so
        old = earlier.get(name)
        if old is None or old[0] != id(parameter) or not _same_data(old[1], parameter, torch):
            try:
                values[name] = encoder.encode(parameter.detach())
            except TooLarge:
                break  # the rest is not sent: the sharing still is
    return {"where": where, "shared": list(groups.values()), "values": values}


def _same_data(mark, tensor, torch):
    """Whether `tensor` holds what `mark` recorded (its bytes too, when they were kept)."""
    now = _tensor_mark(tensor, [MARKED_BYTES_CAP if mark[4] is not None else 0], torch)
    return now == mark
