"""How answers travel from the kernel to the checker as values: plain types come back as
they were, lookalikes as opaque objects, huge or malformed answers are refused, and what
a call changed in its arguments is mirrored on the checker's copies."""

import pytest

TINY = {"vocab_size": 10, "context_length": 4, "emb_dim": 4, "n_heads": 2, "n_layers": 1,
        "drop_rate": 0.0, "qkv_bias": False}


def roundtrip(value):
    """A value as the kernel encodes it and the checker decodes it."""
    import json

    from grader.checks import decode
    from grader.sandbox.inside.encoding import Encoder

    return decode(json.loads(json.dumps(Encoder().encode(value))))


def test_answers_come_back_as_the_same_plain_types():
    import math

    import numpy
    import torch

    for value in [None, True, 3, -2**70, 2.5, "naïve 東京", [1, [2.0]], (1, "a"), {"k": (1, 2)},
                  {3: [True]}]:
        back = roundtrip(value)
        assert back == value and type(back) is type(value)
    assert math.isnan(roundtrip(float("nan"))) and roundtrip([float("-inf")]) == [float("-inf")]
    size = roundtrip(torch.Size([2, 4]))
    assert type(size) is torch.Size and size == (2, 4)
    for tensor in [torch.tensor([[1, 2]]), torch.ones(3), torch.tensor(True), torch.zeros(0, 5),
                   torch.tensor([1.5, float("inf")], dtype=torch.float64)]:
        back = roundtrip(tensor)
        assert type(back) is torch.Tensor and back.dtype == tensor.dtype
        assert back.shape == tensor.shape and torch.equal(back, tensor)
    array = roundtrip(numpy.arange(6, dtype=numpy.int32).reshape(2, 3))
    assert array.dtype == numpy.int32 and array.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert type(roundtrip(numpy.float64(0.5))) is numpy.float64


def test_lookalike_answers_come_back_as_opaque_objects():
    import torch

    class Int(int):
        def __eq__(self, other):
            return True

    class T(torch.Tensor):
        pass

    for value, name in [(Int(7), "Int"), (torch.zeros(2).as_subclass(T), "T"),
                        (object(), "object"), (torch.nn.Linear(2, 2), "Linear")]:
        back = roundtrip(value)
        assert type(back).__name__ == name
        assert type(back) not in (int, torch.Tensor) and back != 7 and back != back.__class__()


def test_malformed_or_huge_answers_are_refused():
    from grader.checks import decode
    from grader.sandbox.inside.encoding import Encoder, TooLarge

    for data in [{"$type": "torch.Tensor", "dtype": "torch.float32", "shape": [3], "data": [1, 2]},
                 {"$type": "torch.Tensor", "dtype": "os.system", "shape": [], "data": 1},
                 {"$type": "float", "repr": "__import__('os')"}, {"$type": "nope"},
                 {"$type": "torch.Size", "items": [-1]}]:
        with pytest.raises(ValueError):
            decode(data)
    nested = []
    for _ in range(200):
        nested = [nested]
    with pytest.raises(TooLarge, match="nested too deeply"):
        Encoder().encode(nested)
    with pytest.raises(TooLarge, match="too large"):
        Encoder().encode(["x" * (1 << 20)] * 40)


def called_in_kernel(answer, *args, skip=()):
    """What the kernel reports about a call of `answer` on copies of `args`, as JSON read back."""
    import copy
    import json

    from grader.sandbox.inside.changes import argument_changes, argument_marks

    copies = copy.deepcopy(args)  # the kernel's copies, as the argument pickle makes them
    marks = argument_marks(copies, {}, {id(copies[i]) for i in skip})
    answer(*copies)
    return json.loads(json.dumps(argument_changes(marks)))


def test_a_call_that_ties_the_model_it_was_given_ties_the_checks_own_model():
    from gptcourse import GPTModel, tie_weights

    from grader.checks.values import mirror_changes

    model = GPTModel(TINY)
    changes = called_in_kernel(tie_weights, model)
    assert [c["where"] for c in changes] == [0]
    assert ["tok_emb.weight", "out_head.weight"] in changes[0]["shared"]
    assert changes[0]["values"] == {}  # tying moves no number
    mirror_changes((model,), {}, changes, {})
    assert model.out_head.weight is model.tok_emb.weight
    assert sum(p.numel() for p in model.parameters()) == 296


def test_a_call_that_unties_or_overwrites_is_mirrored_and_one_that_only_reads_is_not():
    import torch
    from gptcourse import GPTModel, tie_weights

    from grader.checks.values import mirror_changes

    def untie(model):
        model.out_head.weight = torch.nn.Parameter(model.out_head.weight.detach() * 2)

    def zero(model, tensor):
        with torch.no_grad():
            model.final_norm.scale.zero_()
        tensor.add_(1)

    def count(model, tensor):
        model.eval()
        return sum(p.numel() for p in model.parameters()) + tensor.sum().item()

    tied = tie_weights(GPTModel(TINY))
    mirror_changes((tied,), {}, called_in_kernel(untie, tied), {})
    assert tied.out_head.weight is not tied.tok_emb.weight
    assert torch.equal(tied.out_head.weight, tied.tok_emb.weight * 2)
    model, tensor = GPTModel(TINY), torch.zeros(3)
    mirror_changes((model, tensor), {}, called_in_kernel(zero, model, tensor), {})
    assert model.final_norm.scale.sum().item() == 0 and tensor.tolist() == [1.0, 1.0, 1.0]
    assert called_in_kernel(count, GPTModel(TINY), torch.ones(2)) == []
    assert called_in_kernel(zero, GPTModel(TINY), torch.ones(2), skip=(0, 1)) == []
