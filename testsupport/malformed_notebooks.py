"""A notebook of every kind the grader's one reader (grader.plan.parse_submission) refuses,
with the words of its sentence, for the tests of each route that takes a notebook; and the
damaged cells a check refuses and a batch run repairs."""

import json


def deep(levels, opening=b"[", closing=b"]"):
    return opening * levels + closing * levels


NOTEBOOK = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1\n",
                       "outputs": [], "execution_count": None}],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def with_output(value):
    nb = json.loads(json.dumps(NOTEBOOK))
    nb["cells"][0]["outputs"] = [{"output_type": "execute_result", "metadata": {},
                                  "execution_count": 1, "data": {"application/json": value}}]
    return nb


def nested_dict(levels):
    value = {}
    for _ in range(levels):
        value = {"a": value}
    return value


# {what is wrong: (the bytes, words of the sentence that refuses them)}
MALFORMED = {
    "cells 100,000 lists deep": (b'{"cells": ' + deep(100_000) + b"}",
                                 "nested too deeply (100,001 levels"),
    "a cell's metadata 100,000 objects deep": (
        b'{"cells": [{"cell_type": "code", "source": "", "metadata": '
        + b'{"a": ' * 100_000 + b"1" + b"}" * 100_000 + b"}]}", "nested too deeply (100,003 levels"),
    "an output 200 objects deep, which json.loads alone takes": (
        json.dumps(with_output(nested_dict(200))).encode(), "nested too deeply (207 levels"),
    "100,000 lists opened and never closed": (b'{"cells": ' + b"[" * 100_000,
                                             "nested too deeply (100,001 levels"),
    "not UTF-8": (b'{"cells": [], "nbformat": 4, "x": "\xff\xfe"}', "not UTF-8 text"),
    "not JSON": (b'{"cells": [1 2], "nbformat": 4}', "not JSON"),
    "not an object": (b"[1, 2, 3]", "not a notebook (no cells)"),
    "no list of cells": (b'{"cells": {"0": {}}, "nbformat": 4}', "not a notebook (no cells)"),
    "nbformat 5": (json.dumps(dict(NOTEBOOK, nbformat=5)).encode(), "its nbformat is 5, not 4"),
    "nbformat as text": (json.dumps(dict(NOTEBOOK, nbformat="4")).encode(),
                         "its nbformat is '4', not 4"),
    "too many cells": (json.dumps(dict(NOTEBOOK, cells=NOTEBOOK["cells"] * 5_001)).encode(),
                       "5,001 cells, more than a notebook may have (5,000)"),
}



# {what is wrong: (the bytes, the words of the sentence a check refuses them with)}: a batch
# run grades such a notebook, each cell repaired and the repair noted
DAMAGED = {
    "a cell that is not an object": (
        json.dumps(dict(NOTEBOOK, cells=[*NOTEBOOK["cells"], 7])).encode(),
        "is damaged: cell 2 is not a notebook cell (int)"),
    "a source that is not text": (
        json.dumps(dict(NOTEBOOK, cells=[dict(NOTEBOOK["cells"][0], source=["x", 1])])).encode(),
        "is damaged: cell 1's source is not text"),
}
