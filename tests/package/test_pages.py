"""gptcourse.pages: the key a page glues for each of its checks, and the figure style.

The site's checks (book/_ext/checks.py) read these keys; a key that would call a
typical wrong answer right must stop the build, so these tests ask for the error.
"""

import json

import pytest

from gptcourse.pages import FIGURE_STYLE, Check

# (case, Check arguments, what the key holds)
KEYS = [
    ("a count, exact",
     dict(answer=124412160, mistakes={163009536: "that is the untied count"}),
     {"kind": "number", "answer": 124412160, "tolerance": 0.0, "relative": False,
      "mistakes": [{"value": 163009536, "feedback": "that is the untied count"}]}),
    ("a shape, from a tuple or torch.Size",
     dict(answer=(2, 4, 50257), mistakes={(2, 4): "that is the input's shape"}),
     {"kind": "shape", "answer": [2, 4, 50257],
      "mistakes": [{"value": [2, 4], "feedback": "that is the input's shape"}]}),
    ("MiB within a relative tolerance",
     dict(answer=2487.32, tolerance=0.01, relative=True, mistakes={621.83: "weights only"}),
     {"kind": "number", "answer": 2487.32, "tolerance": 0.01, "relative": True}),
    ("a choice among options",
     dict(answer="No, more", choices=["No, more", "Yes"], mistakes={"Yes": "buffers too"}),
     {"kind": "choice", "answer": "No, more", "choices": ["No, more", "Yes"]}),
]


@pytest.mark.parametrize("case, arguments, held", KEYS, ids=[k[0] for k in KEYS])
def test_a_key_holds_the_answer_and_each_mistake_as_json(case, arguments, held):
    key = Check(**arguments)
    bundle = key._repr_mimebundle_()
    data = json.loads(json.dumps(bundle[Check.MIME_TYPE]))  # plain JSON all the way down
    assert {name: data[name] for name in held} == held
    assert "text/plain" in bundle


def test_numbers_from_torch_and_numpy_become_plain_json_numbers():
    import numpy
    import torch

    key = Check(torch.tensor(7).item() * numpy.int64(3), mistakes={numpy.float32(0.5): "half"})
    assert key.as_dict()["answer"] == 21 and type(key.as_dict()["answer"]) is int
    assert Check(torch.Size([1, 7, 50257])).as_dict()["answer"] == [1, 7, 50257]


@pytest.mark.parametrize("answer, wrong, tolerance, relative", [
    (124412160, 124412160, 0.0, False),
    (147.24, 147.2373, 0.005, False),
    (2487.32, 2480.0, 0.01, True),
    ((2, 4, 50257), [2, 4, 50257], 0.0, False),
])
def test_a_mistake_that_would_count_as_right_is_refused(answer, wrong, tolerance, relative):
    with pytest.raises(ValueError, match="counts as the right one"):
        Check(answer, mistakes={tuple(wrong) if isinstance(wrong, list) else wrong: "no"},
              tolerance=tolerance, relative=relative)


def test_a_choice_must_be_one_of_the_options():
    with pytest.raises(ValueError, match="not one of the choices"):
        Check("Maybe", choices=["Yes", "No"])
    with pytest.raises(ValueError, match="not one of the choices"):
        Check("Yes", choices=["Yes", "No"], mistakes={"Perhaps": "no such option"})


def test_the_figure_style_draws_svg_text_large_on_a_white_ground():
    assert FIGURE_STYLE["figure.facecolor"] == FIGURE_STYLE["savefig.facecolor"] == "white"
    assert min(FIGURE_STYLE[k] for k in ("font.size", "xtick.labelsize", "ytick.labelsize",
                                         "legend.fontsize")) >= 12
