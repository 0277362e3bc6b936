"""The inside of the sandbox: the program that runs a notebook's cells and answers the checks.

This folder is bound read-only into every sandbox (``sandbox/command.py``), and
a bootstrap puts only the folder's parent on ``sys.path``: inside, its modules
are the package ``inside`` and import each other, the standard library, IPython
and torch, never the grader. The grader imports only ``shared.py`` of it.

- ``shared.py``: what both sides know: the sandbox's home and working folder, the
  cap on a message, `short` (how an exception is worded).
- ``protocol.py``: the requests and replies on the two pipes (the protocol itself
  is described there): `read_requests`, `send`, `flush_streams`.
- ``encoding.py``: answers as plain JSON (`Encoder`), the checker's arguments from
  their pickle (`ArgumentLoader`).
- ``changes.py``: what a call did to the tensors and modules it was given.
- ``snapshot.py``: the writable folders listed, to tell whether a check's calls
  changed files; the sandbox's mounts.
- ``setup_tensors.py``: the set-up's large tensors moved into a sealed memory file,
  so that forks do not copy them.
- ``shell.py``: `Runner`, IPython's shell running the cells and answering requests.
- ``check_forks.py``: a check's calls answered in a forked child thrown away after.
- ``student_sandbox.py``: a template's fork made one student's sandbox (namespaces,
  fresh folders, no capabilities).
- ``template_server.py``: the warm template, which forks a student's sandbox per
  request.
- ``main.py``: `main_inside_sandbox`, the start, and `serve`, the request loop.
"""
