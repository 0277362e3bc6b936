"""The assignment `logits-to-text` (solutions/logits-to-text/logits_to_text.ipynb): its row of
the registry.

What the tests know of it: the points of its checks, its model students (each the
instructor's solution with some answer cells replaced, and what grading must give
them), the hidden values no failure message may show, the students of the whole loop,
and its honest students: styles of its own and a Colab student's changes.
"""

from testsupport.assignment_row import AssignmentRow, Student, source, untouched
from testsupport.notebook_changes import (Style, answer, code, in_place, insert_after,
                                          insert_before, moved)

NAME = "logits-to-text"

# --- the checks and the model students ---------------------------------------------

POINTS = {
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

STUDENTS = {
    "solution": Student(total=10),
    "untouched": untouched(POINTS),
    # correct, written differently: max over softmax, an explicit dtype, indexing
    # the batch, a loop of its own with inference_mode and a computed crop start
    "max_and_own_loop": Student(total=10, answers={
        "next_token_ids_answer": source("""
            def next_token_ids(logits):
                probas = torch.softmax(logits[:, -1, :], dim=-1)
                return probas.max(dim=-1, keepdim=True).indices
            """),
        "text_to_token_ids_answer": source("""
            def text_to_token_ids(text, tokenizer):
                return torch.tensor([tokenizer.encode(text)], dtype=torch.long)
            """),
        "token_ids_to_text_answer": source("""
            def token_ids_to_text(token_ids, tokenizer):
                return tokenizer.decode(token_ids[0].tolist())
            """),
        "generate_text_simple_answer": source("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    start = max(0, idx.shape[1] - context_size)
                    with torch.inference_mode():
                        last = model(idx[:, start:])[:, -1]
                    idx = torch.cat([idx, last.argmax(-1).unsqueeze(-1)], dim=-1)
                return idx
            """),
        "generated_text_answer": source("""
            prompt = text_to_token_ids("Hello, I am", tokenizer)
            generated_text = token_ids_to_text(
                generate_text_simple(model, prompt, 6, model.pos_emb.weight.shape[0]), tokenizer)
            """),
    }),
    # correct, and noisy on stderr: a copy-constructed tensor (UserWarning), a
    # DeprecationWarning raised from the notebook's own code, topk for the argmax
    "topk_with_warnings": Student(total=10, answers={
        "next_token_ids_answer": source("""
            import warnings

            def next_token_ids(logits):
                warnings.warn("next_token_ids: old interface", DeprecationWarning)
                return logits[:, -1:, :].argmax(dim=-1)
            """),
        "text_to_token_ids_answer": source("""
            def text_to_token_ids(text, tokenizer):
                ids = torch.tensor(tokenizer.encode(text))
                return torch.tensor(ids)[None, :]
            """),
        "token_ids_to_text_answer": source("""
            def token_ids_to_text(token_ids, tokenizer):
                return tokenizer.decode([int(token) for token in token_ids.flatten()])
            """),
        "generate_text_simple_answer": source("""
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
        "next_token_ids_answer": source("""
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
        "next_token_ids_answer": source("""
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
        "next_token_ids_answer": source("""
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
        "next_token_ids_answer": source("""
            def next_token_ids(logits):
                return logits[:, 0, :].argmax(dim=-1, keepdim=True)
            """),
    }, failures={
        "next_token_ids_known_argmax": "first position",
        **_TEXT_LOST,
    }),
    # no crop at all; the text keeps only the new tokens
    "no_crop_and_new_tokens_only": Student(total=8, answers={
        "generate_text_simple_answer": source("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    with torch.no_grad():
                        logits = model(idx)
                    idx = torch.cat((idx, next_token_ids(logits)), dim=1)
                return idx
            """),
        "generated_text_answer": source("""
            out_ids = generate_text_simple(model, text_to_token_ids("Hello, I am", tokenizer), 6, 1024)
            generated_text = token_ids_to_text(out_ids[:, 4:], tokenizer)
            """),
    }, failures={
        "generate_text_simple_crops_context": "more ids than its context length",
        "generated_text_value": "start with the prompt",
    }),
    # a crop that keeps the oldest ids; one new token too few
    "front_crop_and_five_tokens": Student(total=8, answers={
        "generate_text_simple_answer": source("""
            def generate_text_simple(model, idx, max_new_tokens, context_size):
                for _ in range(max_new_tokens):
                    with torch.no_grad():
                        logits = model(idx[:, :context_size])
                    idx = torch.cat((idx, next_token_ids(logits)), dim=1)
                return idx
            """),
        "generated_text_answer": source("""
            out_ids = generate_text_simple(model, text_to_token_ids("Hello, I am", tokenizer), 5, 1024)
            generated_text = token_ids_to_text(out_ids, tokenizer)
            """),
    }, failures={
        "generate_text_simple_crops_context": "keeps the first context_size ids",
        "generated_text_value": "is not the text the chapters show",
    }),
    # typed-in results: only the typed text can score
    "typed_in": Student(total=1, answers={
        "next_token_ids_answer": source("""
            def next_token_ids(logits):
                return torch.tensor([[4]])
            """),
        "generate_until_answer": source("""
            def generate_until(model, idx, max_new_tokens, context_size, stop_id):
                return idx
            """),
        "text_to_token_ids_answer": source("""
            def text_to_token_ids(text, tokenizer):
                return torch.tensor([[15496, 11, 314, 716]])
            """),
        "token_ids_to_text_answer": source("""
            def token_ids_to_text(token_ids, tokenizer):
                return "Hello, I am"
            """),
        "generate_text_simple_answer": source("""
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
        "generate_until_answer": source("""
            def generate_until(model, idx, max_new_tokens, context_size, stop_id):
                return generate_text_simple(model, idx, max_new_tokens, context_size)
            """),
    }, failures={
        "generate_until_stops_at_stop_id": "the loop ran all 5 steps",
    }),
    # a batch stops as soon as any one text has generated stop_id
    "until_stops_at_the_first_text": Student(total=8.5, answers={
        "generate_until_answer": source("""
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

HIDDEN_VALUES = {
    "next_token_ids_known_argmax": ["50256"],
}


# --- honest students --------------------------------------------------------------

STYLES = [
    Style("logits-to-text-markdown-dragged-up", NAME, [moved("generate-intro", -7)]),
    Style("logits-to-text-helper-above-the-answer", NAME, [
        insert_before("next_token_ids_answer", code(
            "def last_position(logits):\n    return logits[:, -1, :]")),
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    return torch.argmax(last_position(logits), dim=-1, keepdim=True)\n")]),
    Style("logits-to-text-softmax-before-argmax", NAME, [
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    probas = torch.softmax(logits[:, -1, :], dim=-1)\n"
               "    return torch.argmax(probas, dim=-1, keepdim=True)\n")]),
    Style("logits-to-text-display-and-timing-magics", NAME, [
        in_place("generated_text_answer", lambda s: "%%time\n" + s.rstrip() + "\ndisplay(generated_text)\n"),
        insert_after("next_token_ids_answer", code("%time next_token_ids(prompt_logits)"))]),
    Style("logits-to-text-list-and-tensor-variants", NAME, [
        answer("text_to_token_ids_answer",
               "def text_to_token_ids(text, tokenizer):\n"
               "    return torch.tensor([tokenizer.encode(text)], dtype=torch.long)\n"),
        answer("token_ids_to_text_answer",
               "def token_ids_to_text(token_ids, tokenizer):\n"
               "    return tokenizer.decode(token_ids[0].tolist())\n")]),
    Style("logits-to-text-while-loop-and-inference-mode", NAME, [
        answer("generate_text_simple_answer",
               "def generate_text_simple(model, idx, max_new_tokens, context_size):\n"
               "    steps = 0\n"
               "    while steps < max_new_tokens:\n"
               "        with torch.inference_mode():\n"
               "            logits = model(idx[:, -context_size:])\n"
               "        idx = torch.cat((idx, next_token_ids(logits)), dim=1)\n"
               "        steps += 1\n"
               "    return idx\n")]),
    Style("logits-to-text-every-function-in-one-cell", NAME, [
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    return logits[:, -1, :].argmax(dim=-1, keepdim=True)\n\n\n"
               "def text_to_token_ids(text, tokenizer):\n"
               "    return torch.tensor(tokenizer.encode(text)).unsqueeze(0)\n\n\n"
               "def token_ids_to_text(token_ids, tokenizer):\n"
               "    return tokenizer.decode(token_ids.squeeze(0).tolist())\n"),
        answer("text_to_token_ids_answer", "# all three functions are in the first answer cell\n"),
        answer("token_ids_to_text_answer", "pass\n")]),
    Style("logits-to-text-reseeds-before-generating", NAME, [
        insert_before("generated_text_answer", code(
            "torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval()\nprint('rebuilt')"))]),
]


def colab_changes(student):
    """A Colab student keeps a helper above the first answer and a scratch cell above the
    text they generate."""
    return [
        insert_before("next_token_ids_answer", code(
            "def last_position(logits):\n    return logits[:, -1, :]")),
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    return torch.argmax(last_position(logits), dim=-1, keepdim=True)\n"),
        insert_before("generated_text_answer", code(
            "out_ids = text_to_token_ids('Hello, I am', tokenizer)  # the prompt first\n"
            "print(out_ids.shape)"))]


ROW = AssignmentRow(
    name=NAME,
    notebook="logits_to_text",
    explain={"explain_greedy": 2},
    points=POINTS,
    students=STUDENTS,
    hidden_values=HIDDEN_VALUES,
    allowed_imports=frozenset({"GPT_CONFIG_124M", "GPTModel", "get_tokenizer"}),
    package_answers=("text_to_token_ids_answer", "token_ids_to_text_answer",
                     "generate_text_simple_answer"),
    # next_token_ids (1 + 1.5)
    partial=("next_token_ids_answer",),
    partial_score=2.5,
    typed={
        "next_token_ids_answer": "def next_token_ids(logits):\n"
                                 "    return torch.tensor([[257]])\n",
        "text_to_token_ids_answer": "def text_to_token_ids(text, tokenizer):\n"
                                    "    return torch.tensor([[15496, 11, 314, 716]])\n",
        "generated_text_answer": "generated_text = 'Hello, I am Featureiman Byeswickattribute argue'\n",
    },
    typed_score=1.0,  # generated_text only
    function_tests=("next_token_ids_known_argmax", "text_to_token_ids_any_text",
                    "generate_text_simple_batches", "generate_text_simple_greedy_values",
                    "generate_text_simple_crops_context"),
    oracle={
        "generate_text_simple_answer": (
            "def generate_text_simple(model, idx, max_new_tokens, context_size):\n"
            "    helper = globals().get('greedy_reference')\n"
            "    if helper is not None:\n"
            "        return torch.tensor(helper(model, idx, max_new_tokens, context_size))\n"
            "    zeros = torch.zeros(idx.shape[0], max_new_tokens, dtype=torch.long)\n"
            "    return torch.cat([idx, zeros], dim=1)\n"),
    },
    # next_token_ids (2.5), the two text functions (2), the shape check of
    # generate_text_simple (1) and generate_until (1.5)
    oracle_score=7.0,
    styles=tuple(STYLES),
    colab_changes=colab_changes,
)
