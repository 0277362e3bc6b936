"""What crosses the channel to the checks: answers decoded from plain JSON, arguments pickled.

Nothing the kernel sends is unpickled or evaluated: `decode` builds real
Python, numpy and torch objects from the runner's plain JSON (see
``sandbox/runner.py``'s Encoder), and anything else arrives as an opaque
stand-in. A call's arguments go the other way as a pickle in which the
set-up cells' objects and the tokenizer are sent by name.
"""

import math
import pickle

from ..safe_text import capped


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


def decode(data: object) -> object:
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

    def persistent_id(self, obj: object) -> tuple | None:
        name = self.by_id.get(id(obj))
        if name is not None:
            return ("setup", name)
        if type(obj).__module__ == "tiktoken.core" and type(obj).__name__ == "Encoding":
            return ("tokenizer", getattr(obj, "name", ""))
        return None
