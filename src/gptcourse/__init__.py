"""gptcourse: the GPT-2 model, parameter counting, weight tying, tokenizer, text generation,
the model of each student's own (variants), and GPT-2's own weights loaded and inspected."""

from .checkpoints import CheckpointError, load_gpt2, read_safetensors
from .counting import (
    MIB,
    build_on_meta,
    config_by_name,
    count_output_head,
    count_parameter_tensors,
    count_parameters,
    count_tied_parameters,
    is_tied,
    model_size_bytes,
    model_size_mib,
    module_tree,
    parameter_breakdown,
    parameter_summary,
    state_dict_numel,
)
from .doctor import format_report, inspect_checkpoint
from .generation import generate_text_simple, sample_next_token
from .model import GPT2_CONFIGS, GPT_CONFIG_124M, GPTModel, tie_weights, validate_config
from .tokenizer import TokenizerFileError, get_tokenizer, text_to_token_ids, token_ids_to_text
from .variants import larger_configs, student_config, student_logits

__all__ = [
    "CheckpointError",
    "GPT2_CONFIGS",
    "GPT_CONFIG_124M",
    "GPTModel",
    "MIB",
    "TokenizerFileError",
    "build_on_meta",
    "config_by_name",
    "count_output_head",
    "count_parameter_tensors",
    "count_parameters",
    "count_tied_parameters",
    "format_report",
    "generate_text_simple",
    "get_tokenizer",
    "inspect_checkpoint",
    "is_tied",
    "larger_configs",
    "load_gpt2",
    "model_size_bytes",
    "model_size_mib",
    "module_tree",
    "parameter_breakdown",
    "parameter_summary",
    "read_safetensors",
    "sample_next_token",
    "state_dict_numel",
    "student_config",
    "student_logits",
    "text_to_token_ids",
    "tie_weights",
    "token_ids_to_text",
    "validate_config",
]
