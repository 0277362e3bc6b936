"""Values as plain JSON for the checker, and the checker's arguments read from their pickle.

`Encoder` turns an answer into JSON: the types the checks compare by value
(None, bool, int, float, str, list, tuple, dict, torch.Size, tensors, numpy
arrays and scalars) as plain data, tagged with "$type" where JSON has no such
type; anything else as {"$opaque": its type's name}. ``checks/values.py``
decodes it. `ArgumentLoader` reads the arguments of a check's call, pickled by
the checker: objects of the set-up cells and the tokenizer come by name, tensors
as their bytes (`storage_from_bytes`).
"""

import importlib
import io
import math
import pickle
import sys

_type = type  # kept before any notebook code runs, which could replace them
_str = str
_repr = repr
_isinstance = isinstance
_import_module = importlib.import_module

VALUE_CAP = 32 << 20  # characters of one encoded value
DEPTH_CAP = 64  # nesting of lists, tuples and dicts in a value


class TooLarge(Exception):
    """An answer too large to send."""


def qualified_name(value):
    kind = _type(value)
    return f"{getattr(kind, '__module__', '?')}.{getattr(kind, '__qualname__', '?')}"


class Encoder:
    """Plain JSON for the types the checks compare by value; a type name for anything else."""

    def __init__(self):
        self.size = 0
        torch = sys.modules.get("torch")
        self.tensor = getattr(torch, "Tensor", None)
        self.size_type = getattr(torch, "Size", None)
        numpy = sys.modules.get("numpy")
        self.np_generic = getattr(numpy, "generic", None)
        self.np_array = getattr(numpy, "ndarray", None)

    def grow(self, amount):
        self.size += amount
        if self.size > VALUE_CAP:
            raise TooLarge("answer too large")

    def encode(self, value, depth=0):
        if depth > DEPTH_CAP:
            raise TooLarge("answer nested too deeply")
        kind = _type(value)
        self.grow(8)
        if value is None or kind is bool or kind is int:
            if kind is int and value.bit_length() > 4000:
                raise TooLarge("answer too large (an int of more than 4000 bits)")
            return value
        if kind is float:
            if math.isfinite(value):
                return value
            return {"$type": "float", "repr": _repr(value)}
        if kind is str:
            self.grow(len(value))
            return value
        if kind is list:
            return [self.encode(item, depth + 1) for item in value]
        if kind is tuple:
            return {"$type": "tuple", "items": [self.encode(item, depth + 1) for item in value]}
        if kind is dict:
            pairs = [[self.encode(k, depth + 1), self.encode(v, depth + 1)]
                     for k, v in list(value.items())]
            return {"$type": "dict", "items": pairs}
        if self.size_type is not None and kind is self.size_type:
            return {"$type": "torch.Size", "items": [int(d) for d in value]}
        if self.tensor is not None and kind is self.tensor:
            return self.encode_tensor(value)
        if self.np_array is not None and kind is self.np_array or (
                self.np_generic is not None and _isinstance(value, self.np_generic)
                and kind.__module__ == "numpy"):
            self.grow(value.size * 24)
            if value.dtype.kind not in "biuf":
                return {"$opaque": qualified_name(value)}
            return {"$type": "numpy", "dtype": _str(value.dtype), "shape": list(value.shape),
                    "data": self.floats(value.tolist())}
        return {"$opaque": qualified_name(value)}

    def encode_tensor(self, value):
        shape = [int(d) for d in value.shape]
        dtype = _str(value.dtype)
        if value.device.type == "meta":
            return {"$type": "torch.Tensor", "dtype": dtype, "shape": shape, "device": "meta"}
        if value.is_complex() or value.is_quantized or value.is_sparse:
            return {"$opaque": qualified_name(value) + f" ({dtype})"}
        self.grow(value.numel() * 24)
        data = value.detach().cpu().tolist()
        return {"$type": "torch.Tensor", "dtype": dtype, "shape": shape,
                "requires_grad": bool(value.requires_grad), "data": self.floats(data)}

    def floats(self, data):
        """JSON has no nan or infinity: tag the (rare) lists holding them."""
        if _type(data) is float and not math.isfinite(data):
            return {"$type": "float", "repr": _repr(data)}
        if _type(data) is list:
            return [self.floats(item) for item in data]
        return data


class ArgumentLoader(pickle.Unpickler):
    """Reads the checker's arguments; the set-up cells' objects and the tokenizer come by name."""

    def __init__(self, data, setup, package):
        super().__init__(io.BytesIO(data))
        self.setup = setup
        self.package = package  # the course package, whose get_tokenizer() the tokenizer is
        self.by_name = set()  # ids of the objects that came by name (not the check's own)

    def persistent_load(self, ref):
        kind, name = ref[0], ref[1]
        if kind == "storage":
            return storage_from_bytes(name, ref[2])
        if kind == "tokenizer":
            value = _import_module(self.package).get_tokenizer()
        elif kind == "setup" and name in self.setup:
            value = self.setup[name]
        else:
            raise pickle.UnpicklingError(f"unknown reference {ref!r}")
        self.by_name.add(id(value))
        return value


def storage_from_bytes(dtype_name, data):
    """A tensor's storage of the checker's arguments, from its dtype's name and its bytes."""
    torch = sys.modules["torch"]
    dtype = getattr(torch, _str(dtype_name).rpartition(".")[2], None)
    if not _isinstance(dtype, torch.dtype) or _type(data) is not bytes:
        raise pickle.UnpicklingError("malformed storage")
    raw = torch.empty(len(data), dtype=torch.uint8)
    if data:
        raw.copy_(torch.frombuffer(bytearray(data), dtype=torch.uint8))
    return torch.storage.TypedStorage(wrap_storage=raw.untyped_storage(), dtype=dtype,
                                      _internal=True)

