import tracemalloc

import pytest

from gptcourse import (
    GPT_CONFIG_124M,
    GPTModel,
    build_on_meta,
    config_by_name,
    count_output_head,
    count_parameters,
    count_tied_parameters,
    model_size_mib,
    parameter_breakdown,
    parameter_summary,
    tie_weights,
)


def test_untied_124m_model_has_163_009_536_parameters(model_124m):
    assert count_parameters(model_124m) == 163_009_536
    assert count_parameters(model_124m) == sum(p.numel() for p in model_124m.parameters())


def test_output_head_holds_38_597_376(model_124m):
    assert count_output_head(model_124m) == 38_597_376 == 50257 * 768


def test_count_considering_weight_tying_is_124_412_160(model_124m):
    assert count_tied_parameters(model_124m) == 124_412_160


def test_tying_for_real_counts_the_shared_matrix_once(tiny_config):
    model = GPTModel(tiny_config)
    untied = count_parameters(model)
    expected = untied - count_output_head(model)
    assert count_tied_parameters(model) == expected
    tie_weights(model)
    assert count_parameters(model) == expected
    assert count_tied_parameters(model) == expected  # already tied: nothing more to drop


def test_tied_124m_on_meta_device_has_124_412_160():
    model = tie_weights(build_on_meta(GPT_CONFIG_124M))
    assert count_parameters(model) == 124_412_160


def test_float32_size_is_621_83_mib(model_124m):
    assert round(model_size_mib(model_124m), 2) == 621.83
    assert model_size_mib(model_124m) == 163_009_536 * 4 / 2**20


def test_breakdown_sums_to_the_total_and_matches_one_block_arithmetic(model_124m):
    parts = parameter_breakdown(model_124m)
    assert list(parts) == ["token embedding", "position embedding", "attention",
                           "feed-forward", "layer norms", "output head"]
    assert sum(parts.values()) == 163_009_536
    assert parts["attention"] == 12 * 2_360_064  # 3 * 768 * 768 + 768 * 768 + 768
    assert parts["feed-forward"] == 12 * 4_722_432  # 768 * 3072 + 3072 + 3072 * 768 + 768
    assert parts["layer norms"] == (2 * 12 + 1) * 2 * 768
    assert parts["position embedding"] == 1024 * 768


def test_breakdown_of_a_tied_model_has_an_empty_output_head(tiny_config):
    model = tie_weights(GPTModel(tiny_config))
    parts = parameter_breakdown(model)
    assert parts["output head"] == 0
    assert sum(parts.values()) == count_parameters(model)


def test_qkv_biases_add_12_times_3_times_768_which_is_hugging_faces_count():
    tied_with_bias = tie_weights(build_on_meta({**GPT_CONFIG_124M, "qkv_bias": True}))
    assert count_parameters(tied_with_bias) == 124_439_808 == 124_412_160 + 12 * 3 * 768


@pytest.mark.parametrize(
    "name, total, tied",
    [
        ("gpt2-small", 163_009_536, 124_412_160),
        ("gpt2-medium", 406_212_608, 354_749_440),
        ("gpt2-large", 838_220_800, 773_891_840),
        ("gpt2-xl", 1_637_792_000, 1_557_380_800),
    ],
)
def test_named_configs_count_on_the_meta_device(name, total, tied):
    summary = parameter_summary(name)
    assert summary["total"] == total
    assert summary["tied"] == tied
    assert summary["output head"] == total - tied


def test_meta_device_count_of_gpt2_xl_allocates_no_parameter_memory():
    tracemalloc.start()
    model = build_on_meta("gpt2-xl")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert all(p.device.type == "meta" for p in model.parameters())
    assert count_parameters(model) == 1_637_792_000
    assert peak < 50 * 2**20  # Python-side bookkeeping only; the real model is 6 GiB


def test_unknown_model_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown model 'gpt2-huge'; choose one of gpt2-small"):
        config_by_name("gpt2-huge")


def test_the_124m_model_stores_its_parameters_in_161_tensors():
    from gptcourse import count_parameter_tensors

    model = build_on_meta(GPT_CONFIG_124M)
    # two embeddings; per block 13: query, key, value weights, out_proj weight and bias,
    # two feed-forward weights and biases, two norms' scale and shift; the final norm's
    # scale and shift; the output head
    assert count_parameter_tensors(model) == 2 + 12 * 13 + 2 + 1 == 161
    assert count_parameter_tensors(tie_weights(model)) == 160


def test_state_dict_holds_the_masks_and_a_tied_matrix_under_both_names():
    from gptcourse import state_dict_numel

    model = build_on_meta(GPT_CONFIG_124M)
    assert state_dict_numel(model) == 163_009_536 + 12 * 1024 * 1024 == 175_592_448
    tie_weights(model)
    # tied: the parameters count the shared matrix once, the state_dict under both names
    assert count_parameters(model) == 124_412_160
    assert state_dict_numel(model) == 175_592_448


def test_module_tree_shows_one_block_its_shapes_and_the_mask_as_a_buffer():
    from gptcourse import module_tree

    tree = module_tree(build_on_meta(GPT_CONFIG_124M)).splitlines()
    assert tree[0] == "GPTModel"
    assert "        weight [50257, 768]" in tree  # tok_emb and out_head
    assert "                mask [1024, 1024]  (buffer)" in tree
    assert "                W_query: Linear" in tree
    assert "                        weight [3072, 768]" in tree
    assert "        ... 11 more blocks like the one above (1 to 11)" in tree
    assert sum(line.strip() == "0: TransformerBlock" for line in tree) == 1
    assert "bias" not in "\n".join(tree[tree.index("                W_query: Linear"):][:2])
