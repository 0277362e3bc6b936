"""A synthetic class of 60 answers to the explain question of `parameters`, each student's
values computed once per session as the rubric computes them (their model on the meta
device: a few seconds for the class)."""

import pytest

from testsupport.explain_class import student_values, synthetic_class


@pytest.fixture(scope="session")
def class_values():
    """{student: their own values}, s01 to s60."""
    return {f"s{number:02d}": student_values(f"s{number:02d}") for number in range(1, 61)}


@pytest.fixture(scope="session")
def synthetic(class_values):
    """(the 60 answers, {student: their reasoning})."""
    return synthetic_class(class_values.__getitem__, 60)
