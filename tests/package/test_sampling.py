import numpy
import pytest
import torch

from gptcourse import sample_next_token

# Four ids with probabilities 0.5, 0.25, 0.125, 0.125.
LOGITS = torch.log(torch.tensor([[0.5, 0.25, 0.125, 0.125]]))


def draws(n, seed=0, logits=LOGITS, **settings):
    generator = torch.Generator().manual_seed(seed)
    return [sample_next_token(logits, generator=generator, **settings).item() for _ in range(n)]


def test_a_seeded_generator_repeats_its_draws():
    assert draws(20, seed=7) == draws(20, seed=7)
    assert draws(20, seed=7) != draws(20, seed=8)


def test_the_shape_is_one_id_per_row():
    out = sample_next_token(LOGITS.repeat(3, 1), generator=torch.Generator().manual_seed(0))
    assert out.shape == (3, 1) and out.dtype == torch.long


def test_top_k_one_is_greedy():
    assert set(draws(50, top_k=1)) == {0}


def test_top_k_keeps_only_the_k_most_likely():
    assert set(draws(200, top_k=2)) == {0, 1}


def test_top_p_keeps_the_smallest_set_that_reaches_p():
    # 0.5 alone does not reach 0.6; 0.5 + 0.25 does: ids 0 and 1 only
    assert set(draws(200, top_p=0.6)) == {0, 1}
    # 0.5 reaches 0.5 by itself
    assert set(draws(50, top_p=0.5)) == {0}


def test_every_id_can_come_without_a_cut():
    assert set(draws(300)) == {0, 1, 2, 3}


def test_a_low_temperature_is_almost_greedy_and_a_high_one_almost_uniform():
    cold = draws(400, temperature=0.05)
    assert cold.count(0) == 400  # 0.5 vs 0.25 at T = 0.05: odds of 2**20 to 1
    hot = draws(4000, temperature=100.0)
    # at T = 100 each id has a probability of about 1/4
    assert all(abs(hot.count(i) / 4000 - 0.25) < 0.03 for i in range(4))


def test_the_frequencies_follow_the_probabilities():
    counts = draws(8000)
    freqs = [counts.count(i) / 8000 for i in range(4)]
    assert freqs == pytest.approx([0.5, 0.25, 0.125, 0.125], abs=0.02)


def test_temperature_divides_the_logits():
    # at T = 2 the probabilities are proportional to the square roots: 0.5**0.5, ...
    expected = [0.369, 0.261, 0.185, 0.185]  # sqrt(0.5), sqrt(0.25), ... normalised
    counts = draws(8000, temperature=2.0)
    assert [counts.count(i) / 8000 for i in range(4)] == pytest.approx(expected, abs=0.02)


def test_a_temperature_of_zero_is_refused():
    with pytest.raises(ValueError, match="temperature"):
        sample_next_token(LOGITS, temperature=0)


def test_top_k_keeps_every_id_tied_with_the_kth_score():
    # ids 1, 2 and 3 share the second-highest score: top_k=2 keeps all four ids
    tied = torch.tensor([[2.0, 1.0, 1.0, 1.0]])
    assert set(draws(400, logits=tied, top_k=2)) == {0, 1, 2, 3}


def test_a_top_k_above_the_vocabulary_keeps_every_id():
    assert set(draws(300, top_k=10)) == {0, 1, 2, 3}


@pytest.mark.parametrize("settings, message", [
    ({"temperature": -1.0}, "temperature must be positive, got -1.0"),
    ({"temperature": float("nan")}, "temperature must be positive, got nan"),
    ({"top_k": 0}, "top_k must be None or an int of at least 1, got 0"),
    ({"top_k": -3}, "top_k must be None or an int of at least 1, got -3"),
    ({"top_k": 2.5}, "top_k must be None or an int of at least 1, got 2.5"),
    ({"top_k": True}, "top_k must be None or an int of at least 1, got True"),
    ({"top_p": 0.0}, r"top_p must be None or a number in \(0, 1\], got 0.0"),
    ({"top_p": -0.5}, r"top_p must be None or a number in \(0, 1\], got -0.5"),
    ({"top_p": 1.5}, r"top_p must be None or a number in \(0, 1\], got 1.5"),
    ({"top_p": float("nan")}, r"top_p must be None or a number in \(0, 1\], got nan"),
])
def test_a_setting_out_of_range_is_refused_with_its_name(settings, message):
    with pytest.raises(ValueError, match=message):
        sample_next_token(LOGITS, **settings)


def test_a_temperature_of_zero_points_to_greedy_choice():
    with pytest.raises(ValueError, match="use top_k=1 or generate_text_simple"):
        sample_next_token(LOGITS, temperature=0.0)


def test_the_edges_of_the_ranges_are_accepted():
    assert set(draws(50, top_p=1.0, top_k=1)) == {0}
    assert set(draws(300, top_p=1.0)) == {0, 1, 2, 3}
    assert set(draws(50, top_k=numpy.int64(1))) == {0}
