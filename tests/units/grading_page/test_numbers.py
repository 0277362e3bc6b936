"""The numbers a student wrote: each spelling people use is read with its value and the
place of its last digit, digits inside words and ids are not numbers, and a written number
is a value when the value rounded or cut to that place is it."""

import pytest

from grader.grading_page.numbers import same_number, written_numbers

# (what is written, its value, the place of its last written digit)
SPELLINGS = [
    ("124,412,160", 124_412_160, 1),
    ("124412160", 124_412_160, 1),
    ("124 412 160", 124_412_160, 1),
    ("124\u202f412\u202f160", 124_412_160, 1),
    ("50\u00a0257", 50_257, 1),
    ("124.4M", 124_400_000, 100_000),
    ("124M", 124_000_000, 1_000_000),
    ("124 million", 124_000_000, 1_000_000),
    ("163 million", 163_000_000, 1_000_000),
    ("124.41 million", 124_410_000, 10_000),
    ("0.12B", 120_000_000, 10_000_000),
    ("1.2bn", 1_200_000_000, 100_000_000),
    ("124.4 billion", 124_400_000_000, 100_000_000),
    ("2.5k", 2_500, 100),
    ("38K", 38_000, 1_000),
    ("5 thousand", 5_000, 1_000),
    ("-0.360", -0.36, 0.001),
    ("\u22120.5", -0.5, 0.1),
    ("1.6e8", 160_000_000, 10_000_000),
    ("3e-4", 0.0003, 0.0001),
    ("768", 768, 1),
]


@pytest.mark.parametrize("text, value, precision", SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_each_spelling_is_read_with_its_value_and_precision(text, value, precision):
    [number] = written_numbers(f"My model has {text} parameters.")
    assert (number.text, number.value, number.precision) == (text, pytest.approx(value),
                                                             pytest.approx(precision))
    assert f"My model has {text} parameters."[number.start:number.end] == text


def test_each_number_of_a_shape_is_read_on_its_own():
    assert [n.value for n in written_numbers("the head is [50257, 768] or [50257,768]")] == [
        50257, 768, 50257, 768]


@pytest.mark.parametrize("text", ["gpt2", "s01", "h1", "layer_12", "v1.5", "124Mb", "3rd",
                                  "2x", "0x1F", "1e999", "1e-999"])
def test_digits_inside_a_word_or_an_id_are_no_number(text):
    assert written_numbers(f"see {text} here") == []


def test_units_are_only_those_people_mean():
    """An m stuck to digits may be metres (no number read, as 124Mb), "mio" is not read as a
    million, a unit's letter apart from its digits is a word; "billion" only as written."""
    assert [(n.text, n.value) for n in written_numbers("124m, 38.6 mio, 124 M, 2 b")] == [
        ("38.6", 38.6), ("124", 124), ("2", 2)]


def test_plain_spaces_group_digits_only_in_threes_of_two_groups_or_more():
    """"12 768" in a sentence is two numbers; "124 412 160" is one."""
    assert [n.value for n in written_numbers("12 768-wide heads, 124 412 160 in all")] == [
        12, 768, 124_412_160]


def test_a_sentence_s_full_stop_is_no_decimal_point():
    assert [n.text for n in written_numbers("It has 124M. Then 7.")] == ["124M", "7"]


def test_significant_digits_count_from_the_first_digit_to_the_last_written():
    assert [n.significant_digits for n in written_numbers(
        "124,412,160 124.4M 124M 0.12B -0.360 0")] == [9, 4, 3, 2, 3, 0]


COUNT = 124_412_160
# (written, whether it is COUNT as people write it)
ROUNDINGS = [
    ("124,412,160", True),
    ("124412160", True),
    ("124.4M", True),  # rounded and cut alike
    ("124.41 million", True),
    ("124.42 million", False),
    ("124M", True),
    ("124 million", True),
    ("0.12B", True),  # cut: 0.124B to two places
    ("124.5M", False),
    ("125M", False),
    ("123M", False),
    ("124,412,161", False),
    ("124,000,000", False),  # written to the unit: it says exactly 124,000,000
]


@pytest.mark.parametrize("text, same", ROUNDINGS, ids=[r[0] for r in ROUNDINGS])
def test_a_written_number_is_the_value_rounded_or_cut_to_its_last_digit(text, same):
    [number] = written_numbers(text)
    assert same_number(number, COUNT) is same


def test_rounding_up_and_cutting_both_match():
    """163,009,536 is 163.01M rounded and 163.00M cut; 163.02M is neither."""
    assert [same_number(n, 163_009_536) for n in written_numbers(
        "163.01M 163.00M 163.02M 163.0M 163M 164M")] == [True, True, False, True, True, False]


def test_negative_and_decimal_numbers_round_toward_their_value():
    numbers = written_numbers("-0.360 -0.36 -0.361 0.360 -0.4")
    assert [same_number(n, -0.3604) for n in numbers] == [True, True, False, False, True]


def test_a_value_that_is_no_number_is_never_the_same():
    [number] = written_numbers("768")
    assert [same_number(number, value) for value in (768, 768.0, True, "768", None,
                                                     float("nan"))] == [
        True, True, False, False, False, False]


def test_a_long_run_of_digit_groups_is_read_group_by_group():
    """A run longer than any count (here 5,000 groups) is read in one pass, a number of
    three digits at a time, never as one huge number."""
    for separator in (",", " ", "\u202f"):
        numbers = written_numbers(separator.join(["111"] * 5_000) + "1")
        assert len(numbers) == 5_000 and {n.value for n in numbers} == {111, 1111}
