"""Shared fixtures: the 124M model is built once per test session, not per test."""

import pytest
import torch

from gptcourse import GPT_CONFIG_124M, GPTModel, get_tokenizer

TINY_CONFIG = {
    "vocab_size": 97,
    "context_length": 8,
    "emb_dim": 12,
    "n_heads": 3,
    "n_layers": 2,
    "drop_rate": 0.0,
    "qkv_bias": False,
}


@pytest.fixture(scope="session")
def model_124m():
    """GPTModel(GPT_CONFIG_124M) with torch.manual_seed(123), in eval mode, untied."""
    torch.manual_seed(123)
    model = GPTModel(GPT_CONFIG_124M)
    model.eval()
    return model


@pytest.fixture(scope="session")
def tokenizer():
    return get_tokenizer()


@pytest.fixture
def tiny_config():
    return dict(TINY_CONFIG)


# The quick subset (`make test-fast`, `pytest -m "not slow"`): unit tests only. A test
# is slow when its module grades notebooks, builds the site or starts servers, when it
# uses a module- or session-wide fixture of its own module (a graded batch, a course),
# or when it is marked @pytest.mark.slow (it starts a sandbox itself).
SLOW_MODULES = {"test_assignments", "test_book", "test_course_exchange", "test_dask_grading",
                "test_grader_loop", "test_grader_submissions", "test_grades_out",
                "test_honest_students",
                "test_instructor_loop", "test_jupyterhub", "test_parallel_grading",
                "test_postgres_gradebook", "test_rehearsal", "test_warm_template"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rpartition(".")[2]
        shared = any(definition.scope in ("module", "session")
                     and definition.baseid.endswith(".py")  # defined in a test module
                     for definitions in item._fixtureinfo.name2fixturedefs.values()
                     for definition in definitions)
        if module in SLOW_MODULES or shared:
            item.add_marker(pytest.mark.slow)
