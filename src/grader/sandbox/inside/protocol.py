"""The inside's end of the channel: one JSON line per request, one JSON line per reply.

The driver (``sandbox/kernel.py``) writes requests on the request pipe and reads
replies on the reply pipe (their descriptors are the first two arguments the
inside is started with; the third names the course package, imported before any
notebook code runs):

    {"id": n, "op": "run", "kind": "setup" | "solution" | "extra", "code": "..."}
        -> {"id": n, "status": "ok" | "error", "error": "...", "result": "repr"}
    {"id": n, "op": "describe", "names": [...]}
        -> {"id": n, "names": {name: {"callable": bool, "module": str, "qualname": str}}}
    {"id": n, "op": "get", "name": "..."}        -> {"id": n, "value": encoded}
    {"id": n, "op": "call", "name": "...", "args": base64 pickle of (args, kwargs),
     "overrides": ["def ...", ...]}
        -> {"id": n, "value": encoded} or {"id": n, "exception": "TypeError", "message": "..."}
           (or, if the call ended the process, an exception with "restart": true when
           the check's calls changed files); either with "changed": [...] when the
           call changed a tensor or module it was given (see changes.argument_changes)
    {"id": n, "op": "end"}   -> {"id": n, "ended": true} (the same "restart" flag)
    any request that cannot be answered -> {"id": n, "error": "..."}
    a call whose fork the student's code stopped -> {"id": n, "lost": "why"}
    a call whose fork failed for another reason -> {"id": n, "fault": "why"}

(``encoding.py`` says what an encoded value is, ``check_forks.py`` how a check's
calls are answered, ``template_server.py`` what a warm template is asked.)

The inside decides nothing: the test cells never come here. They run in the
grader's own process (``checks/checker.py``), which asks for the values the
answers define and calls the answers' functions through this channel. Whatever
this process replies is only ever treated as an answer to check, so student
code that takes over the channel can do no more than answer for itself.

Printed output goes to file descriptors 1 and 2, which the driver reads and
caps; the inside flushes them before each reply.
"""

import json
import os
import sys

from .shared import short

_os_read = os.read  # kept before any notebook code runs, which could replace them
_os_write = os.write
_dumps = json.dumps
_loads = json.loads
_BaseException = BaseException

REQUEST_FD, REPLY_FD = 3, 4  # the request and reply pipes (use_channel)
_STREAMS = (sys.stdout, sys.stderr)  # the real ones, kept before any student code


def use_channel(request_fd, reply_fd):
    """Read requests from `request_fd` and send replies on `reply_fd` from now on."""
    global REQUEST_FD, REPLY_FD
    REQUEST_FD, REPLY_FD = request_fd, reply_fd


def channel_descriptors():
    """(request pipe, reply pipe): the descriptors of the channel in use."""
    return REQUEST_FD, REPLY_FD


def read_requests():
    buffer = b""
    while True:
        chunk = _os_read(REQUEST_FD, 1 << 16)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield _loads(line)


def send(message, fd=None):
    try:
        text = _dumps(message)
    except (ValueError, TypeError, RecursionError) as problem:
        text = _dumps({"id": message.get("id"), "error": "the answer could not be sent: "
                       + short(problem)})
    data = (text + "\n").encode("utf-8", "backslashreplace")
    while data:
        written = _os_write(REPLY_FD if fd is None else fd, data)
        data = data[written:]


def flush_streams():
    """Flush the real output streams (never a replacement object a submission installed)."""
    for stream in _STREAMS:
        try:
            stream.flush()
        except _BaseException:
            pass
