"""Model students for the two assignments: what each writes, and what grading must give.

Each student is the instructor's solution with some answer cells replaced
(``answers``: {answer cell grade_id: source}). ``failures`` names the test cells
that must score 0, each with words its failure message must contain (``None``:
the failure is expected, its message is not checked); every other test cell
must earn its full points. ``total`` is the score the student must get.
Students whose mistakes sit in unrelated cells share one notebook: the
per-cell scores keep them apart. At the end: what the partial student of the
whole-loop tests answers and earns.
"""

from dataclasses import dataclass, field
from textwrap import dedent


@dataclass
class Student:
    total: float
    answers: dict = field(default_factory=dict)
    failures: dict = field(default_factory=dict)
    fill_solutions: bool = True


def _src(text):
    return dedent(text).strip("\n")


# --- assignment "parameters" -------------------------------------------------------

PARAMETERS_POINTS = {
    "output_shape": 0.5,
    "count_parameters_unseen_configs": 1.5,
    "count_parameters_shared_once": 1.5,
    "total_params_value": 0.5,
    "out_head_params_value": 0.5,
    "tied_params_value": 0.5,
    "count_tied_parameters_unseen_configs": 1,
    "count_tied_parameters_tied_models": 1,
    "model_size_mib_any_model": 1,
    "count_on_meta_any_config": 1.5,
    "gpt2_totals_values": 0.5,
}

# An untouched notebook: every check says so plainly.
_NOT_ANSWERED = "not answered yet"

PARAMETERS_STUDENTS = {
    "solution": Student(total=10),
    "untouched": Student(total=0, fill_solutions=False,
                         failures={grade_id: _NOT_ANSWERED for grade_id in PARAMETERS_POINTS}),
    # correct, written differently: torch.Size, identity set over named_parameters
    # without de-duplication, a tied deep copy, element_size(), a dict comprehension
    "identity_and_deepcopy": Student(total=10, answers={
        "output_shape_answer": _src("""
            logits = my_model(batch.to("meta"))
            output_shape = logits.shape
            """),
        "count_parameters_answer": _src("""
            def count_parameters(model):
                seen = set()
                total = 0
                for _, tensor in model.named_parameters(remove_duplicate=False):
                    if id(tensor) not in seen:
                        seen.add(id(tensor))
                        total += tensor.numel()
                return total
            """),
        "values_answer": _src("""
            total_params = count_parameters(my_model)
            rows, columns = my_model.out_head.weight.shape
            out_head_params = rows * columns
            tied_params = total_params - my_model.tok_emb.weight.numel()
            """),
        "count_tied_parameters_answer": _src("""
            import copy

            def count_tied_parameters(model):
                return count_parameters(tie_weights(copy.deepcopy(model)))
            """),
        "model_size_mib_answer": _src("""
            def model_size_mib(model):
                return sum(p.numel() * p.element_size() for p in set(model.parameters())) / 1024 / 1024
            """),
        "count_on_meta_answer": _src("""
            def count_on_meta(config):
                with torch.device("meta"):
                    meta_model = GPTModel(dict(config))
                return int(count_parameters(meta_model))
            """),
        "gpt2_totals_answer": _src("""
            def untied_total(name):
                with torch.device("meta"):
                    return count_parameters(GPTModel(my_larger_configs[name]))

            gpt2_totals = {name: untied_total(name) for name in ("gpt2-xl", "gpt2-large", "gpt2-medium")}
            """),
    }),
    # correct, by storage address (identity on the meta device), and noisy: every
    # count prints a UserWarning and the size a numpy RuntimeWarning on stderr
    "data_ptr_with_warnings": Student(total=10, answers={
        "output_shape_answer": _src("""
            with torch.no_grad():
                output_shape = tuple(my_model(batch.to("meta")).size())
            """),
        "count_parameters_answer": _src("""
            import warnings

            def count_parameters(model):
                warnings.warn("counting parameters by storage address")
                by_storage = {}
                for p in model.parameters():
                    key = id(p) if p.is_meta else p.data_ptr()
                    by_storage[key] = p.numel()
                return sum(by_storage.values())
            """),
        "count_tied_parameters_answer": _src("""
            def count_tied_parameters(model):
                head = model.out_head.weight
                shared = any(head is p for p in model.tok_emb.parameters())
                return count_parameters(model) - (0 if shared else head.numel())
            """),
        "model_size_mib_answer": _src("""
            import numpy as np

            def model_size_mib(model):
                np.log(np.zeros(1))  # RuntimeWarning: divide by zero
                return float(count_parameters(model) * 32 / 8 / 2**20)
            """),
    }),
    # known wrong numbers, tying that also drops the position embedding, sizes in MB
    "wrong_values": Student(total=5, answers={
        "values_answer": _src("""
            total_params = 124_439_808
            out_head_params = my_model.out_head.weight.numel() + my_config["vocab_size"]
            tied_params = count_parameters(my_model)
            """),
        "count_tied_parameters_answer": _src("""
            def count_tied_parameters(model):
                return count_parameters(model) - model.out_head.weight.numel() - model.pos_emb.weight.numel()
            """),
        "model_size_mib_answer": _src("""
            def model_size_mib(model):
                return count_parameters(model) * 4 / 1e6
            """),
        "gpt2_totals_answer": _src("""
            gpt2_totals = {}
            for name in ["gpt2-medium", "gpt2-large", "gpt2-xl"]:
                with torch.device("meta"):
                    meta_model = GPTModel(my_larger_configs[name])
                gpt2_totals[name] = count_parameters(meta_model) - meta_model.out_head.weight.numel()
            """),
    }, failures={
        "total_params_value": "124M model",
        "out_head_params_value": "no bias",
        "tied_params_value": "that is the untied total",
        "count_tied_parameters_unseen_configs": "position embedding",
        "count_tied_parameters_tied_models": None,
        "model_size_mib_any_model": "MB",
        "gpt2_totals_values": "tied count",
    }),
    # my_model tied before it is counted: the total is then the tied count, and taking the
    # head away from a tied count takes it twice. Each check names the tie.
    "tied_my_model_first": Student(total=9, answers={
        "values_answer": _src("""
            tie_weights(my_model)
            total_params = count_parameters(my_model)
            out_head_params = my_model.out_head.weight.numel()
            tied_params = total_params - out_head_params
            """),
    }, failures={
        # (in the course's grader the checks see the set-up's my_model, untied, and say
        # the same in the words of a tied count)
        "total_params_value": "the tied count",
        "tied_params_value": "already leaves the head out",
    }),
    # my_model tied in place after it was counted: every value was taken first, and the
    # checks count from my_config, so nothing is lost (in plain Jupyter too)
    "ties_my_model_after_counting": Student(total=10, answers={
        "values_answer": _src("""
            total_params = count_parameters(my_model)
            out_head_params = my_model.out_head.weight.numel()
            tied_params = count_parameters(tie_weights(my_model))
            """),
    }),
    # counting the state dict: the attention masks (buffers) and a tied matrix twice.
    # The checks of count_tied_parameters, model_size_mib and count_on_meta use a
    # correct count_parameters, so only count_parameters' own checks and the three
    # values computed with it (total, tied, gpt2_totals) are lost.
    "state_dict": Student(total=5.5, answers={
        "count_parameters_answer": _src("""
            def count_parameters(model):
                return sum(tensor.numel() for tensor in model.state_dict().values())
            """),
    }, failures={
        "count_parameters_unseen_configs": "attention mask, a buffer",
        "count_parameters_shared_once": None,
        "total_params_value": "attention masks",
        "tied_params_value": None,
        "gpt2_totals_values": None,
    }),
    # a count that misses the q/k/v biases (a formula for one configuration): the
    # functions built on count_parameters still earn their points
    "formula_count": Student(total=7, answers={
        "count_parameters_answer": _src("""
            def count_parameters(model):
                cfg = model.cfg
                d, v, c, n = cfg["emb_dim"], cfg["vocab_size"], cfg["context_length"], cfg["n_layers"]
                block = 4 * d * d + d + 8 * d * d + 5 * d + 4 * d
                head = 0 if model.out_head.weight is model.tok_emb.weight else v * d
                return v * d + c * d + n * block + 2 * d + head
            """),
    }, failures={
        "count_parameters_unseen_configs": "query/key/value biases are missing",
        "count_parameters_shared_once": "unseen tied model",
    }),
    # typed-in numbers everywhere, the 124M model's from the site (the tied one without
    # the position embedding), functions that return them: nothing scores, since the
    # values are about each student's own model
    "typed_in": Student(total=0, answers={
        "output_shape_answer": "output_shape = (2, 4, 50257)",
        "count_parameters_answer": _src("""
            def count_parameters(model):
                return 163_009_536
            """),
        "values_answer": _src("""
            total_params = 163_009_536
            out_head_params = 38_597_376
            tied_params = 123_625_728
            """),
        "count_tied_parameters_answer": _src("""
            def count_tied_parameters(model):
                return 124_412_160
            """),
        "model_size_mib_answer": _src("""
            def model_size_mib(model):
                return 621.83
            """),
        "count_on_meta_answer": _src("""
            def count_on_meta(config):
                return 1_637_792_000
            """),
        "gpt2_totals_answer": _src("""
            gpt2_totals = {"gpt2-medium": 406_212_608, "gpt2-large": 838_220_800, "gpt2-xl": 1_637_792_000}
            """),
    }, failures={
        "output_shape": "the 124M model's vocabulary",
        "count_parameters_unseen_configs": "gives 163,009,536 for the one-block model",
        "count_parameters_shared_once": "gives 163,009,536 for the tied one-block model",
        "total_params_value": "a count of the 124M model",
        "out_head_params_value": "the 124M model's output head",
        "tied_params_value": "another configuration than yours",
        "count_tied_parameters_unseen_configs": "gives 124,412,160 for the one-block model",
        "count_tied_parameters_tied_models": "gives 124,412,160 for the tied one-block model",
        "model_size_mib_any_model": "gives 621.83 for the one-block model",
        "count_on_meta_any_config": "gives 1,637,792,000 for an unseen configuration",
        "gpt2_totals_values": "is GPT-2's own",
    }),
}

# What a failure message of each test cell must never show: its hidden expected values.
PARAMETERS_HIDDEN_VALUES = {
    "count_parameters_unseen_configs": ["6144", "6,144", "13360", "13,360", "22368", "22,368"],
    "count_parameters_shared_once": ["4980", "4,980", "11744", "11,744"],
    "count_tied_parameters_unseen_configs": ["4980", "4,980", "11744", "11,744", "15168", "15,168"],
    "count_tied_parameters_tied_models": ["4980", "4,980", "11744", "11,744"],
    "model_size_mib_any_model": ["0.0234375", "0.0189971923828125", "0.8857421875"],
    "count_on_meta_any_config": ["6144", "6,144", "9945161728", "9,945,161,728"],
}


# --- assignment "logits-to-text" ---------------------------------------------------

LOGITS_POINTS = {
    "next_token_ids_shape_and_dtype": 1,
    "next_token_ids_known_argmax": 1.5,
    "text_to_token_ids_any_text": 1,
    "token_ids_to_text_round_trip": 1,
    "generate_text_simple_batches": 1,
    "generate_text_simple_greedy_values": 1,
    "generate_text_simple_crops_context": 1,
    "generated_text_value": 1,
    "generate_until_stops_at_stop_id": 1.5,
}

# A broken next_token_ids no longer breaks the checks of the generation loops:
# they run with a correct greedy step. Only the text, a value the broken step
# computes, is lost with it. These students type a guess for generated_text
# rather than run their broken loop on the 124M model.
_GUESSED_TEXT = {"generated_text_answer": 'generated_text = "Hello, I am a student"'}
_TEXT_LOST = {"generated_text_value": "is not the text the chapters show"}

LOGITS_STUDENTS = {
    "solution": Student(total=10),
    "untouched": Student(total=0, fill_solutions=False,
                         failures={grade_id: _NOT_ANSWERED for grade_id in LOGITS_POINTS}),
    # correct, written differently: max over softmax, an explicit dtype, indexing
    # the batch, a loop of its own with inference_mode and a computed crop start
    "max_and_own_loop": Student(total=10, answers={
        "next_token_ids_answer": _src("""
            def next_token_ids(logits):
                probas = torch.softmax(logits[:, -1, :], dim=-1)
                return probas.max(dim=-1, keepdim=True).indices
            """),
        "text_to_token_ids_answer": _src("""
            def text_to_token_ids(text, tokenizer):
                return torch.tensor([tokenizer.encode(text)], dtype=torch.long)
            """),
        "token_ids_to_text_answer": _src("""
            def token_ids_to_text(token_ids, tokenizer):
                return tokenizer.decode(token_ids[0].tolist())
            """),
        "generate_text_simple_answer": _src("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    start = max(0, idx.shape[1] - context_size)
                    with torch.inference_mode():
                        last = model(idx[:, start:])[:, -1]
                    idx = torch.cat([idx, last.argmax(-1).unsqueeze(-1)], dim=-1)
                return idx
            """),
        "generated_text_answer": _src("""
            prompt = text_to_token_ids("Hello, I am", tokenizer)
            generated_text = token_ids_to_text(
                generate_text_simple(model, prompt, 6, model.pos_emb.weight.shape[0]), tokenizer)
            """),
    }),
    # correct, and noisy on stderr: a copy-constructed tensor (UserWarning), a
    # DeprecationWarning raised from the notebook's own code, topk for the argmax
    "topk_with_warnings": Student(total=10, answers={
        "next_token_ids_answer": _src("""
            import warnings

            def next_token_ids(logits):
                warnings.warn("next_token_ids: old interface", DeprecationWarning)
                return logits[:, -1:, :].argmax(dim=-1)
            """),
        "text_to_token_ids_answer": _src("""
            def text_to_token_ids(text, tokenizer):
                ids = torch.tensor(tokenizer.encode(text))
                return torch.tensor(ids)[None, :]
            """),
        "token_ids_to_text_answer": _src("""
            def token_ids_to_text(token_ids, tokenizer):
                return tokenizer.decode([int(token) for token in token_ids.flatten()])
            """),
        "generate_text_simple_answer": _src("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    logits = model(idx[:, -context_size:]).detach()
                    idx_next = logits[:, -1, :].topk(1, dim=-1).indices
                    idx = torch.cat((idx, idx_next), dim=1)
                return idx
            """),
    }),
    # argmax over the positions (dim=1) instead of the vocabulary
    "argmax_over_positions": Student(total=6.5, answers={
        **_GUESSED_TEXT,
        "next_token_ids_answer": _src("""
            def next_token_ids(logits):
                return torch.argmax(logits, dim=1)
            """),
    }, failures={
        "next_token_ids_shape_and_dtype": "wrong dimension",
        "next_token_ids_known_argmax": None,
        **_TEXT_LOST,
    }),
    # an id for every position: the last position is never taken
    "every_position": Student(total=6.5, answers={
        **_GUESSED_TEXT,
        "next_token_ids_answer": _src("""
            def next_token_ids(logits):
                return torch.argmax(logits, dim=-1)
            """),
    }, failures={
        "next_token_ids_shape_and_dtype": "only the last one predicts",
        "next_token_ids_known_argmax": None,
        **_TEXT_LOST,
    }),
    # the logits of the last position handed back as if they were ids
    "returns_logits": Student(total=6.5, answers={
        **_GUESSED_TEXT,
        "next_token_ids_answer": _src("""
            def next_token_ids(logits):
                return logits[:, -1, :]
            """),
    }, failures={
        "next_token_ids_shape_and_dtype": "not ids",
        "next_token_ids_known_argmax": None,
        **_TEXT_LOST,
    }),
    # the first position's best id, in the right shape
    "first_position": Student(total=7.5, answers={
        **_GUESSED_TEXT,
        "next_token_ids_answer": _src("""
            def next_token_ids(logits):
                return logits[:, 0, :].argmax(dim=-1, keepdim=True)
            """),
    }, failures={
        "next_token_ids_known_argmax": "first position",
        **_TEXT_LOST,
    }),
    # no crop at all; the text keeps only the new tokens
    "no_crop_and_new_tokens_only": Student(total=8, answers={
        "generate_text_simple_answer": _src("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    with torch.no_grad():
                        logits = model(idx)
                    idx = torch.cat((idx, next_token_ids(logits)), dim=1)
                return idx
            """),
        "generated_text_answer": _src("""
            out_ids = generate_text_simple(model, text_to_token_ids("Hello, I am", tokenizer), 6, 1024)
            generated_text = token_ids_to_text(out_ids[:, 4:], tokenizer)
            """),
    }, failures={
        "generate_text_simple_crops_context": "more ids than its context length",
        "generated_text_value": "start with the prompt",
    }),
    # a crop that keeps the oldest ids; one new token too few
    "front_crop_and_five_tokens": Student(total=8, answers={
        "generate_text_simple_answer": _src("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    with torch.no_grad():
                        logits = model(idx[:, :context_size])
                    idx = torch.cat((idx, next_token_ids(logits)), dim=1)
                return idx
            """),
        "generated_text_answer": _src("""
            out_ids = generate_text_simple(model, text_to_token_ids("Hello, I am", tokenizer), 5, 1024)
            generated_text = token_ids_to_text(out_ids, tokenizer)
            """),
    }, failures={
        "generate_text_simple_crops_context": "keeps the first context_size ids",
        "generated_text_value": "is not the text the chapters show",
    }),
    # typed-in results: only the typed text can score
    "typed_in": Student(total=1, answers={
        "next_token_ids_answer": _src("""
            def next_token_ids(logits):
                return torch.tensor([[4]])
            """),
        "generate_until_answer": _src("""
            def generate_until(model, idx, max_new_tokens, context_size, stop_id):
                return idx
            """),
        "text_to_token_ids_answer": _src("""
            def text_to_token_ids(text, tokenizer):
                return torch.tensor([[15496, 11, 314, 716]])
            """),
        "token_ids_to_text_answer": _src("""
            def token_ids_to_text(token_ids, tokenizer):
                return "Hello, I am"
            """),
        "generate_text_simple_answer": _src("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                return torch.tensor([[3, 14, 15, 0, 0]])
            """),
        "generated_text_answer": 'generated_text = "Hello, I am Featureiman Byeswickattribute argue"',
    }, failures={
        "next_token_ids_shape_and_dtype": "it must be [3, 1]",
        "next_token_ids_known_argmax": "for any batch",
        "text_to_token_ids_any_text": "for an unseen text",
        "token_ids_to_text_round_trip": "of an unseen [1, num_tokens] tensor",
        "generate_text_simple_batches": "is shape [3, 7]",
        "generate_text_simple_greedy_values": None,
        "generate_text_simple_crops_context": None,
        "generate_until_stops_at_stop_id": "the prompt and the one stop id",
    }),
    # a stop condition that is never checked: all max_new_tokens steps, always
    "until_never_stops": Student(total=8.5, answers={
        "generate_until_answer": _src("""
            def generate_until(model, idx, max_new_tokens, context_size, stop_id):
                return generate_text_simple(model, idx, max_new_tokens, context_size)
            """),
    }, failures={
        "generate_until_stops_at_stop_id": "the loop ran all 5 steps",
    }),
    # a batch stops as soon as any one text has generated stop_id
    "until_stops_at_the_first_text": Student(total=8.5, answers={
        "generate_until_answer": _src("""
            def generate_until(model, idx, max_new_tokens, context_size, stop_id):
                for _ in range(max_new_tokens):
                    with torch.no_grad():
                        next_ids = next_token_ids(model(idx[:, -context_size:]))
                    idx = torch.cat((idx, next_ids), dim=1)
                    if (next_ids == stop_id).any():
                        break
                return idx
            """),
    }, failures={
        "generate_until_stops_at_stop_id": "stop when every text has generated stop_id",
    }),
}

LOGITS_HIDDEN_VALUES = {
    "next_token_ids_known_argmax": ["50256"],
}
