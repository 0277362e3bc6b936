"""Fingerprints of answer code: what a copier changes (names, comments, spacing, order,
dead code) leaves them as they were, code written another way shares few, and no cell,
however broken, stops them."""

import textwrap

import pytest

from grader.similarity.comparison import MIN_FINGERPRINTS, similarity
from grader.similarity.fingerprints import kgrams, names_of, winnowed


def code(text):
    return textwrap.dedent(text).strip("\n") + "\n"


ORIGINAL = [code("""
    def count_parameters(model):
        seen = set()
        total = 0
        for p in model.parameters():
            if id(p) not in seen:
                seen.add(id(p))
                total += p.numel()
        return total


    def model_size_mib(model):
        bits = count_parameters(model) * 32
        return bits // 8 / 1024 / 1024
    """)]
REQUIRED = {"count_parameters", "model_size_mib", "model"}

# (what the copier changed, the copied cells): each must fingerprint as ORIGINAL does
COPIES = {
    "renamed variables": [code("""
        def count_parameters(net):
            visited = set()
            acc = 0
            for tensor in net.parameters():
                if id(tensor) not in visited:
                    visited.add(id(tensor))
                    acc += tensor.numel()
            return acc


        def model_size_mib(net):
            b = count_parameters(net) * 32
            return b // 8 / 1024 / 1024
        """)],
    "comments, docstrings and whitespace changed": [code('''
        def count_parameters(model):
          """Count each tensor once."""
          seen=set()   # ids seen so far


          total=0
          for p in model.parameters():
            # skip shared tensors
            if id( p ) not in seen:
              seen.add(id(p))
              total+=p.numel()
          return total
        def model_size_mib(model):
          bits = count_parameters(model)*32  # float32
          return bits//8/1024/1024
        ''')],
    "functions reordered and moved to other cells": [
        code("""
            def model_size_mib(model):
                bits = count_parameters(model) * 32
                return bits // 8 / 1024 / 1024
            """),
        code("""
            def count_parameters(model):
                seen = set()
                total = 0
                for p in model.parameters():
                    if id(p) not in seen:
                        seen.add(id(p))
                        total += p.numel()
                return total
            """)],
    "dead code added": [code("""
        def never_called(values):
            return [v * 2 for v in values if v > 0]

        def count_parameters(model):
            seen = set()
            total = 0
            for p in model.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    total += p.numel()
                if False:
                    print("shared", p.shape)
            return total
            print("unreachable")

        unused_limit = 10 ** 6

        def model_size_mib(model):
            bits = count_parameters(model) * 32
            return bits // 8 / 1024 / 1024
            total = 0
        """)],
    "literals and strings changed": [code("""
        def count_parameters(model):
            seen = set()
            total = 0
            for p in model.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    total += p.numel()
            return total


        def model_size_mib(model):
            bits = count_parameters(model) * 4
            return bits // 1 / 2 / 2
        """)],
    "IPython magics added": [code("""
        %%time
        def count_parameters(model):
            seen = set()
            total = 0
            for p in model.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    total += p.numel()
            return total
        !nvidia-smi


        def model_size_mib(model):
            bits = count_parameters(model) * 32
            return bits // 8 / 1024 / 1024
        """)],
}


def fingerprints(cells, required=REQUIRED):
    return winnowed(kgrams(cells, names_of(cells, required))[0])


@pytest.mark.parametrize("change", sorted(COPIES))
def test_a_copy_has_the_original_fingerprints_whatever_the_copier_changed(change):
    original = fingerprints(ORIGINAL)
    assert len(original) >= MIN_FINGERPRINTS
    assert fingerprints(COPIES[change]) == original


def test_code_written_another_way_shares_few_fingerprints():
    other = [code("""
        def count_parameters(model):
            unique = {id(p): p for p in model.parameters()}
            return sum(t.numel() for t in unique.values())


        def model_size_mib(model):
            return 4 * count_parameters(model) / 2 ** 20
        """)]
    assert similarity(fingerprints(ORIGINAL), fingerprints(other)) < 0.1


def test_a_syntax_error_or_a_broken_indent_still_gives_the_fingerprints_before_it():
    broken = [ORIGINAL[0] + "def oops(:\n    return\n  x = (\n"]
    assert len(fingerprints(broken) & fingerprints(ORIGINAL)) >= len(fingerprints(ORIGINAL)) // 2



@pytest.mark.parametrize("source", [
    "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
    "def f(:\n",
    's = """never closed\n',
    "x = 1 + \\\n",
    "if True:\n  x = 1\n    y = 2\n",
    "print('" + "a" * 200_000 + "')\n",
    "-" * 10_000 + "\n",
    "f(" + "[" * 300 + "\n",
], ids=["deep nesting", "syntax error", "open string", "open continuation",
        "bad indent", "long line", "operators only", "open brackets"])
def test_no_cell_breaks_the_fingerprints(source):
    grams, spans = kgrams([source, ORIGINAL[0]], names_of([source, ORIGINAL[0]], REQUIRED))
    assert {g.hash for g in grams if g.cell == 1} >= fingerprints(ORIGINAL)
    assert all(0 <= start <= end <= len(source) for start, end in spans[0])
