"""What crosses the channel to the checks: answers decoded from plain JSON, arguments pickled.

Nothing the kernel sends is unpickled or evaluated: `decode` builds real
Python, numpy and torch objects from the kernel's plain JSON (see
``sandbox/inside/encoding.py``'s Encoder), and anything else arrives as an opaque
stand-in. A call's arguments go the other way as a pickle in which the
set-up cells' objects and the tokenizer are sent by name; what a call changed
in the check's own tensors and models comes back and is done to them here.
numpy and torch are imported only for a value that is an array or a tensor, so a
course whose package uses neither grades without loading them.
"""

import math
import pickle
import sys
from typing import Any

from ..safe_text import capped

# a value of the kernel's plain JSON, not yet checked: decode checks every part of it
JsonValue = None | bool | int | float | str | list[Any] | dict[str, Any]


def _dtypes():
    import torch

    names = ["float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "int32",
             "int64", "bool"]
    return {f"torch.{name}": getattr(torch, name) for name in names}


def opaque_class(name: str) -> type:
    """A fresh class named like the student's type: `type(x).__name__` reads right, nothing else."""
    name = capped(name, 200)
    short_name = name.rpartition(".")[2].split(" ")[0] or "object"
    return type(short_name, (), {"__qualname__": short_name, "__module__": "submission",
                                 "__repr__": lambda self: f"<{name} object from the submission>"})


def decode(data: JsonValue) -> Any:
    """A real Python or torch object from the kernel's plain JSON; ValueError if malformed."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(item) for item in data]
    if type(data) is not dict:
        raise ValueError("malformed answer")
    if "$opaque" in data:
        return opaque_class(str(data["$opaque"]))()
    kind = data.get("$type")
    if kind == "float":
        text = data.get("repr")
        if text not in ("nan", "inf", "-inf"):
            raise ValueError("malformed float")
        return float(text)
    if kind == "tuple":
        return tuple(decode(item) for item in _items(data))
    if kind == "dict":
        result = {}
        for pair in _items(data):
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("malformed dict")
            result[decode(pair[0])] = decode(pair[1])
        return result
    if kind == "torch.Size":
        import torch

        return torch.Size([_dimension(d) for d in _items(data)])
    if kind == "torch.Tensor":
        return _tensor(data)
    if kind == "numpy":
        import numpy

        dtype = str(data.get("dtype"))
        if dtype not in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64", "float16", "float32", "float64"):
            raise ValueError("unknown numpy dtype")
        shape = [_dimension(d) for d in data.get("shape", [])]
        array = numpy.array(_floats(data.get("data")), dtype=dtype).reshape(shape)
        return array[()] if not shape else array
    raise ValueError("malformed answer")


def _items(data):
    items = data.get("items")
    if type(items) is not list:
        raise ValueError("malformed answer")
    return items


def _dimension(value):
    if type(value) is not int or value < 0:
        raise ValueError("malformed shape")
    return value


def _floats(data):
    if type(data) is dict:
        return decode(data)
    if type(data) is list:
        return [_floats(item) for item in data]
    if data is None or type(data) not in (bool, int, float):
        raise ValueError("malformed tensor data")
    return data


def _tensor(data):
    import torch

    dtype = _dtypes().get(str(data.get("dtype")))
    if dtype is None:
        raise ValueError("unknown tensor dtype")
    shape = [_dimension(d) for d in data.get("shape", [])]
    if data.get("device") == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    if math.prod(shape) > (64 << 20):
        raise ValueError("tensor too large")
    tensor = torch.tensor(_floats(data.get("data")), dtype=dtype)
    if tensor.numel() != math.prod(shape):
        raise ValueError("tensor data does not match its shape")
    tensor = tensor.reshape(shape)
    if data.get("requires_grad") is True and tensor.is_floating_point():
        tensor.requires_grad_(True)
    return tensor


class ArgumentPickler(pickle.Pickler):
    """Pickles a call's arguments; set-up objects and the tokenizer go by name."""

    def __init__(self, stream, by_id):
        super().__init__(stream, protocol=4)
        self.by_id = by_id

    def persistent_id(self, obj: object) -> tuple[str, ...] | tuple[str, str, bytes] | None:
        name = self.by_id.get(id(obj))
        if name is not None:
            return ("setup", name)
        kind = type(obj)
        if kind.__name__ == "TypedStorage" and kind.__module__ == "torch.storage":
            return _storage_bytes(obj)
        if kind.__module__ == "tiktoken.core" and kind.__name__ == "Encoding":
            return ("tokenizer", getattr(obj, "name", ""))
        return None


def _storage_bytes(storage) -> tuple[str, str, bytes] | None:
    """("storage", dtype, bytes) for a tensor's storage in this process's memory, sent as
    its bytes (torch's own pickling writes each one as a small torch.save archive); None
    for others."""
    import torch

    untyped = storage._untyped_storage
    if untyped.device.type != "cpu":
        return None
    raw = torch.empty(0, dtype=torch.uint8).set_(untyped)
    return ("storage", str(storage.dtype), raw.numpy().tobytes())


def mirror_changes(args: tuple[Any, ...], kwargs: dict[str, Any], changes: JsonValue,
                   skip: dict[int, str]) -> None:
    """Do to a call's arguments here what the call did to their copies in the kernel.

    `changes` is a call reply's "changed" list (inside/changes.py): for a
    module, which of its parameters are one object now and their new values;
    for a tensor, its new value. Objects in `skip` (ids of the set-up cells'
    objects, sent by name) are never changed: a check's calls leave no trace
    in later checks. Raises ValueError when `changes` is malformed.
    """
    torch = sys.modules.get("torch")  # loaded wherever an argument is a tensor or a model
    if type(changes) is not list:
        raise ValueError("malformed changes")
    for change in changes:
        if type(change) is not dict:
            raise ValueError("malformed changes")
        where = change.get("where")
        if type(where) is int and 0 <= where < len(args):
            target = args[where]
        elif type(where) is str and where in kwargs:
            target = kwargs[where]
        else:
            raise ValueError("a change to an argument that was not sent")
        if id(target) in skip:
            continue
        if torch is None:
            continue  # no argument is torch's: a change to one was nothing of torch's
        if isinstance(target, torch.nn.Module) and "shared" in change:
            _mirror_module(target, change.get("shared"), change.get("values"))
        elif isinstance(target, torch.Tensor) and "value" in change:
            _mirror_tensor(target, decode(change["value"]))


def _mirror_module(module, shared, values):
    import torch

    if type(shared) is not list or type(values) is not dict:
        raise ValueError("malformed changes")
    here = dict(module.named_parameters(remove_duplicate=False))
    kept = set()  # ids of the parameters that stand for a group already
    for group in shared:
        names = [n for n in group if type(n) is str and n in here] if type(group) is list else []
        if not names:
            continue
        keep = module.get_parameter(names[0])
        if id(keep) in kept:  # one object here, two in the kernel: the call untied them
            keep = torch.nn.Parameter(keep.detach().clone(), requires_grad=keep.requires_grad)
            _set_parameter(module, names[0], keep)
        kept.add(id(keep))
        for name in names[1:]:
            if module.get_parameter(name) is not keep:
                _set_parameter(module, name, keep)
    for name, data in values.items():
        if type(name) is str and name in here:
            _mirror_tensor(module.get_parameter(name), decode(data))


def _set_parameter(module, name, parameter):
    owner, _, leaf = name.rpartition(".")
    setattr(module.get_submodule(owner), leaf, parameter)


def _mirror_tensor(target, value):
    import torch

    if not isinstance(value, torch.Tensor):
        raise ValueError("malformed changes")
    with torch.no_grad():
        if value.shape == target.shape and value.dtype == target.dtype and (
                target.device.type != "meta"):
            target.copy_(value)
        else:
            target.data = value
