"""The command line, `python -m gptcourse`: counts, sizes, generation and its one-line errors.

The commands call `main` in this process, which prints what the command prints (and saves
a torch start-up each); generation also runs once as a real `python -m gptcourse` process, a
test marked slow (it builds the 124M model in a fresh interpreter), so `make test-fast` leaves it
to `make test`.
"""

import contextlib
import io
import subprocess
import sys

import pytest

from gptcourse.__main__ import main


def run_cli(*args):
    """The exit status and output of `python -m gptcourse ARGS`, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


REFERENCE_LINES = [  # the reference book's seed-123 greedy text for "Hello, I am"
    "Hello, I am Featureiman Byeswickattribute argue",
    "[15496, 11, 314, 716, 27018, 24086, 47843, 30961, 42348, 7267]",
]


def run_process(*args):
    return subprocess.run([sys.executable, "-m", "gptcourse", *args],
                          capture_output=True, text=True, timeout=120)


def test_params_prints_counts_and_size():
    result = run_cli("params", "gpt2-xl")
    assert result.returncode == 0, result.stderr
    assert "1,637,792,000" in result.stdout
    assert "1,557,380,800" in result.stdout
    assert "6,247.68" in result.stdout


def test_params_all_lists_every_model():
    result = run_cli("params", "all")
    assert result.returncode == 0, result.stderr
    for figure in ("163,009,536", "124,412,160", "621.83", "406,212,608", "838,220,800"):
        assert figure in result.stdout


def test_generate_in_this_process_reproduces_the_reference_text():
    result = run_cli("generate", "Hello, I am", "--max-new-tokens", "6", "--seed", "123", "--ids")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == REFERENCE_LINES


@pytest.mark.slow
def test_generate_as_a_process_reproduces_the_reference_text():
    result = run_process("generate", "Hello, I am", "--max-new-tokens", "6", "--seed", "123", "--ids")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == REFERENCE_LINES


def test_unknown_model_exits_non_zero_with_one_line():
    result = run_cli("params", "gpt2-huge")
    assert result.returncode == 2
    assert "invalid choice: 'gpt2-huge'" in result.stderr.splitlines()[-1]


def test_bad_number_exits_non_zero_with_one_line():
    result = run_cli("generate", "Hi", "--max-new-tokens", "many")
    assert result.returncode == 2
    assert "'many' is not a whole number" in result.stderr.splitlines()[-1]
