"""The set-up's large tensors moved into a sealed memory file, so that forks do not copy them.

A warm template does this once, after its set-up cells and before its first
fork (``template_server.py``): each student's sandbox, and each check's fork of
it, then starts without copying a model's weights.
"""

import gc
import os
import sys

_close = os.close  # kept before any notebook code runs, which could replace them
_type = type
_isinstance = isinstance

MAPPED_MIN_BYTES = 1 << 20  # storages of the set-up at least this large move to a memory file


def map_setup_tensors(setup):
    """Move the large tensors the set-up cells made (a model's weights) into a sealed memory
    file, each storage mapped copy-on-write on its own; returns the bytes moved.

    Forking copies the page tables of a process's private memory, and a check forks
    the student's kernel: with a 124M model in it that is about 45 ms per fork. Pages
    of a file mapping that were never written are not copied by fork (the child maps
    them again on first use), so each fork of a template, and each check's fork of a
    student's kernel, becomes cheap. The values, shapes, strides, sharing between
    tensors (tied weights stay one storage) and each storage's size stay as they
    were; a write from a student's kernel copies the page for that kernel only, and
    the file itself is sealed against writes, so nothing reaches the template.
    """
    import ctypes
    import fcntl
    import mmap

    torch = sys.modules.get("torch")
    if torch is None or not hasattr(os, "memfd_create"):
        return 0
    module_type = torch.nn.Module
    tensors, seen = [], set()
    for value in list(setup.values()):
        if _isinstance(value, module_type):
            for module in value.modules():
                for group in (module._parameters, module._buffers):
                    tensors.extend(t for t in group.values() if t is not None)
        elif _type(value) in (torch.Tensor, torch.nn.Parameter):
            tensors.append(value)
    storages = {}  # storage data pointer -> (storage, [tensors on it])
    for tensor in tensors:
        if id(tensor) in seen or tensor.device.type != "cpu" or tensor.layout != torch.strided \
                or tensor.is_quantized:
            continue
        seen.add(id(tensor))
        storage = tensor.untyped_storage()
        if storage.nbytes() >= MAPPED_MIN_BYTES:
            storages.setdefault(storage.data_ptr(), (storage, []))[1].append(tensor)
    if not storages:
        return 0
    page = mmap.PAGESIZE
    placed, size = [], 0
    for storage, on_it in storages.values():
        placed.append((size, storage, on_it))
        size += -(-storage.nbytes() // page) * page
    fd = os.memfd_create("set-up tensors", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, size)
        for offset, storage, _ in placed:
            view = torch.empty(0, dtype=torch.uint8).set_(storage)
            os.pwrite(fd, memoryview(view.numpy()), offset)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK
                    | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        with torch.no_grad():
            for offset, storage, on_it in placed:
                length = storage.nbytes()
                mapped = mmap.mmap(fd, -(-length // page) * page, flags=mmap.MAP_PRIVATE,
                                   prot=mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)
                moved = torch.frombuffer(mapped, dtype=torch.uint8, count=length).untyped_storage()
                for tensor in on_it:
                    tensor.set_(moved, tensor.storage_offset(), tensor.size(), tensor.stride())
    finally:
        _close(fd)
    del tensors, storages, placed, storage, on_it
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)  # the old storages' memory back to the system
    except (OSError, AttributeError):
        pass
    return size
