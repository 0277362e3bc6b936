"""Each student's own model: derived from the id and the salt, distinct, buildable, counted right."""

import pytest

from gptcourse import GPT2_CONFIGS, build_on_meta, count_parameters, validate_config
from gptcourse.variants import (CONTEXT_LENGTHS, HEAD_COUNTS, LAYER_COUNTS, VOCAB_SIZES,
                                larger_configs, student_config)

SALT = "2026-fall"
STUDENTS = [f"student{number:03d}" for number in range(200)]
MOST_PARAMETERS = 420_000_000  # "a few hundred million at most": builds on a laptop


def count_by_hand(cfg):
    """The untied count from the configuration alone: embeddings, blocks, final norm, head."""
    V, C, d, L = (cfg[k] for k in ("vocab_size", "context_length", "emb_dim", "n_layers"))
    block = 12 * d * d + 10 * d + (3 * d if cfg["qkv_bias"] else 0)
    return (V + C) * d + L * block + 2 * d + V * d


@pytest.fixture(scope="module")
def class_configs():
    return {student: student_config(student, SALT) for student in STUDENTS}


def test_200_students_get_200_distinct_configurations(class_configs):
    shapes = {tuple(sorted(cfg.items())) for cfg in class_configs.values()}
    assert len(shapes) == 200


def test_200_students_get_200_distinct_parameter_counts(class_configs):
    assert len({count_by_hand(cfg) for cfg in class_configs.values()}) == 200


def test_every_configuration_builds_on_meta_with_the_count_computed_by_hand(class_configs):
    for student, cfg in class_configs.items():
        validate_config(cfg)
        counted = count_parameters(build_on_meta(cfg))
        assert counted == count_by_hand(cfg), student
        assert counted <= MOST_PARAMETERS, (student, counted)


def test_every_configuration_is_a_gpt2_shape_within_the_documented_ranges(class_configs):
    for cfg in class_configs.values():
        assert cfg["vocab_size"] in VOCAB_SIZES and cfg["context_length"] in CONTEXT_LENGTHS
        assert cfg["n_heads"] in HEAD_COUNTS and cfg["n_layers"] in LAYER_COUNTS
        assert cfg["emb_dim"] == 64 * cfg["n_heads"]
        assert cfg["drop_rate"] == 0.1 and type(cfg["qkv_bias"]) is bool


def test_the_class_uses_the_whole_of_every_range(class_configs):
    configs = class_configs.values()
    assert {cfg["qkv_bias"] for cfg in configs} == {False, True}
    assert {cfg["n_heads"] for cfg in configs} == set(HEAD_COUNTS)
    assert {cfg["n_layers"] for cfg in configs} == set(LAYER_COUNTS)
    assert min(cfg["vocab_size"] for cfg in configs) < 46_500
    assert max(cfg["vocab_size"] for cfg in configs) > 54_000


def test_the_largest_configuration_of_the_ranges_stays_under_the_bound():
    largest = {"vocab_size": VOCAB_SIZES[-1], "context_length": CONTEXT_LENGTHS[-1],
               "emb_dim": 64 * HEAD_COUNTS[-1], "n_heads": HEAD_COUNTS[-1],
               "n_layers": LAYER_COUNTS[-1], "drop_rate": 0.1, "qkv_bias": True}
    assert count_by_hand(largest) == 417_574_912 <= MOST_PARAMETERS


def test_the_same_id_and_salt_give_the_same_configuration_every_time():
    assert student_config("alice", SALT) == student_config("alice", SALT)
    assert student_config(" alice\n", SALT) == student_config("alice", SALT)
    assert student_config("alice", SALT) == {
        "vocab_size": 55029, "context_length": 1344, "emb_dim": 704, "n_heads": 11,
        "n_layers": 13, "drop_rate": 0.1, "qkv_bias": False}


def test_a_new_salt_gives_the_class_new_configurations(class_configs):
    next_term = [student_config(student, "2027-spring") for student in STUDENTS]
    assert sum(cfg == class_configs[s] for s, cfg in zip(STUDENTS, next_term)) == 0


def test_salt_and_id_cannot_be_traded_for_one_another():
    assert student_config("b", "a:") != student_config(":b", "a")


def test_an_empty_id_says_where_to_type_one():
    with pytest.raises(ValueError, match="type yours into STUDENT_ID"):
        student_config("  ", SALT)


def test_the_larger_configurations_keep_vocabulary_context_and_biases():
    mine = student_config("alice", SALT)
    larger = larger_configs(mine)
    assert list(larger) == ["gpt2-medium", "gpt2-large", "gpt2-xl"]
    for name, cfg in larger.items():
        for key in ("emb_dim", "n_heads", "n_layers"):
            assert cfg[key] == GPT2_CONFIGS[name][key]
        for key in ("vocab_size", "context_length", "qkv_bias", "drop_rate"):
            assert cfg[key] == mine[key]
    # alice's vocabulary of 55,029 at gpt2-xl's width and depth, untied, no q/k/v biases
    assert count_parameters(build_on_meta(larger["gpt2-xl"])) == count_by_hand(larger["gpt2-xl"])
    assert count_by_hand(larger["gpt2-xl"]) == 1_653_574_400


# --- the scores of each student's own (the sampling homework) ------------------------


def test_a_students_scores_are_the_same_every_time_whatever_torch_drew_before():
    import torch

    from gptcourse.variants import student_logits

    first = student_logits("alice", SALT)
    torch.manual_seed(0)
    torch.rand(1000)  # PyTorch's generator moved on: the scores do not use it
    assert torch.equal(student_logits(" alice\n", SALT), first)
    assert first.dtype == torch.float32
    assert first[0, :3].tolist() == [-2.4072265625, -4.1435546875, 3.8134765625]


def test_200_students_get_distinct_scores_of_two_rows_without_ties():
    from gptcourse.variants import LOGITS_VOCAB_SIZES, student_logits

    seen = set()
    for student in STUDENTS:
        scores = student_logits(student, SALT)
        assert scores.shape[0] == 2 and scores.shape[1] in LOGITS_VOCAB_SIZES, student
        for row in scores.tolist():
            assert len(set(row)) == len(row), student  # no tie: one favourite, one k-th
            assert all(score * 1024 == int(score * 1024) for score in row)  # exact in float32
        seen.add(tuple(scores.flatten().tolist()))
    assert len(seen) == len(STUDENTS)
    assert len({student_logits(s, SALT).shape[1] for s in STUDENTS}) > 20  # vocabularies vary


def test_scores_need_a_student_id_and_change_with_the_salt():
    import torch

    from gptcourse.variants import student_logits

    with pytest.raises(ValueError, match="STUDENT_ID"):
        student_logits("  ", SALT)
    assert not torch.equal(student_logits("alice", SALT)[:, :40],
                           student_logits("alice", "2027-spring")[:, :40])


def test_of_300_students_each_has_one_text_clearly_surer_than_the_other():
    """The explain question of sampling asks which text has the smaller nucleus at T = 0.5,
    top-p = 0.9: for every student the two nuclei differ by 2 ids or more, and which text
    is the surer differs between students (a classmate's answer is not one's own)."""
    import torch

    from gptcourse.variants import student_logits

    surer = []
    for student in [f"student{number:03d}" for number in range(300)]:
        probas = torch.softmax(student_logits(student, SALT) / 0.5, dim=-1)
        probas = probas.sort(dim=-1, descending=True).values
        first, second = (int(n) for n in (probas.cumsum(dim=-1) - probas < 0.9).sum(dim=-1))
        assert abs(first - second) >= 2, (student, first, second)
        surer.append(first < second)
    assert 100 < sum(surer) < 200, sum(surer)  # the first text is the surer about half the time
