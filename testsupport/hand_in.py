"""Handing in a submission: files written where `nbgrader collect` puts them.

``<course>/course-data/submitted/<student>/<assignment>/``, one file per entry of
``files``, then ``timestamp.txt``.
"""

import json
import os

TIMESTAMP = "2026-01-15 12:00:00.000000 UTC"  # what timestamp.txt holds unless told


def file_bytes(content):
    """What is written for one handed-in file: bytes as they are, text as UTF-8, a
    notebook node as nbformat writes it, any other dict as indented JSON."""
    if isinstance(content, dict):
        import nbformat

        if isinstance(content, nbformat.NotebookNode):
            text = nbformat.writes(content)
            content = text if text.endswith("\n") else text + "\n"  # as nbformat.write
        else:
            content = json.dumps(content, ensure_ascii=False, indent=1)
    if isinstance(content, str):
        content = content.encode("utf-8")
    return content


def hand_in(course, student, assignment, files, timestamp=TIMESTAMP):
    """Writes submitted/<student>/<assignment>/ in ``course``; returns the folder.

    ``files``: {name: bytes | str | notebook dict | ("link", target)}; a ("link",
    target) entry is written as a symbolic link to ``target``. ``timestamp``: the
    text of timestamp.txt, written as it is (None: no timestamp.txt).
    """
    folder = os.path.join(course, "course-data", "submitted", student, assignment)
    os.makedirs(folder, exist_ok=True)
    for name, content in files.items():
        path = os.path.join(folder, name)
        if isinstance(content, tuple) and content[0] == "link":
            os.symlink(content[1], path)
            continue
        with open(path, "wb") as handle:
            handle.write(file_bytes(content))
    if timestamp is not None:
        with open(os.path.join(folder, "timestamp.txt"), "w") as handle:
            handle.write(timestamp)
    return folder
