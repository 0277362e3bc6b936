"""The course's assignments, one row each: what the tests know of every folder of solutions/.

A row holds the reference values the tests compare the grader with: the notebook's name,
the points of every graded cell, the model students and what each earns, the expected
values no failure message may show, what the notebook may import from the package, and
what the students of the whole loop write (all, some, typed-in numbers, answers written
against a grader that ran the checks in the student's process) with what each earns.
`tests/units/settings/test_course.py` checks that every folder of solutions/ has a row and
every row a folder: a new assignment is tested once its row is written.
"""

from dataclasses import dataclass, field

from testsupport.assignment_students import (LOGITS_HIDDEN_VALUES, LOGITS_POINTS,
                                             LOGITS_STUDENTS, PARAMETERS_HIDDEN_VALUES,
                                             PARAMETERS_POINTS, PARAMETERS_STUDENTS)
from testsupport.bad_submissions import leak_by_exception


@dataclass(frozen=True)
class AssignmentRow:
    """What the tests know of one assignment (the folder solutions/<name>/)."""

    name: str  # the folder of solutions/ and exercises/
    notebook: str  # its notebook's name, without .ipynb
    points: dict  # {grade_id: points} of every graded cell, in the notebook's order
    students: dict  # {name: Student} model students and what each earns (assignment_students)
    hidden_values: dict  # {grade_id: [text]} what a failure message must never show
    allowed_imports: frozenset  # what the notebook may take from the package
    package_answers: tuple  # answer cells asking for a function the package also provides
    partial: tuple  # the answer cells a partial student of the whole loop answers ...
    partial_score: float  # ... and what that student earns
    typed: dict = field(default_factory=dict)  # {answer grade_id: source} typed-in numbers ...
    typed_score: float = 0.0  # ... and what they earn
    function_tests: tuple = ()  # checks of functions on inputs a typed-in value cannot know
    oracle: dict = field(default_factory=dict)  # {answer grade_id: source} against an old grader
    oracle_score: float = 0.0  # what the honest rest of such a notebook earns

    @property
    def file_name(self) -> str:
        return self.notebook + ".ipynb"

    @property
    def max_score(self) -> float:
        return float(sum(self.points.values()))


PARAMETERS = AssignmentRow(
    name="parameters",
    notebook="parameters",
    points=PARAMETERS_POINTS,
    students=PARAMETERS_STUDENTS,
    hidden_values=PARAMETERS_HIDDEN_VALUES,
    allowed_imports=frozenset({"GPT2_CONFIGS", "GPT_CONFIG_124M", "GPTModel", "get_tokenizer",
                               "tie_weights", "larger_configs", "student_config"}),
    package_answers=("count_parameters_answer", "count_tied_parameters_answer",
                     "model_size_mib_answer", "count_on_meta_answer"),
    # output_shape (0.5) and count_parameters (1.5 + 1.5)
    partial=("output_shape_answer", "count_parameters_answer"),
    partial_score=3.5,
    typed={
        "output_shape_answer": "output_shape = (2, 4, 50257)\n",
        "count_parameters_answer": "def count_parameters(model):\n    return 163009536\n",
        "values_answer": "total_params = 163009536\nout_head_params = 38597376\n"
                         "tied_params = 124412160\n",
        "count_tied_parameters_answer": "def count_tied_parameters(model):\n    return 124412160\n",
        "model_size_mib_answer": "def model_size_mib(model):\n    return 621.83\n",
        "gpt2_totals_answer": "gpt2_totals = {'gpt2-medium': 406212608, 'gpt2-large': 838220800,"
                              " 'gpt2-xl': 1637792000}\n",
    },
    # the value questions are about each student's own model, not the 124M model whose
    # numbers these are
    typed_score=0.0,
    function_tests=("count_parameters_unseen_configs", "count_parameters_shared_once",
                    "count_tied_parameters_unseen_configs", "count_tied_parameters_tied_models",
                    "model_size_mib_any_model"),
    oracle={
        "count_parameters_answer": (
            "import sys\nimport torch\n\n"
            "def count_parameters(model):\n"
            "    frame = sys._getframe(1)\n"
            "    while frame is not None:\n"
            "        if frame.f_globals.get('unseen_cfg') == getattr(model, 'cfg', None):\n"
            "            return frame.f_globals['unseen_count']\n"
            "        frame = frame.f_back\n"
            "    if isinstance(model, torch.nn.Sequential):\n"
            "        return 38\n"
            "    return 296 if model.out_head.weight is model.tok_emb.weight else 336\n"),
        "count_tied_parameters_answer": leak_by_exception("count_tied_parameters"),
    },
    # output_shape and out_head_params (0.5 each), and count_on_meta (1.5) and
    # model_size_mib (1), whose checks put the reference count_parameters in place of
    # the oracle
    oracle_score=3.5,
)

LOGITS_TO_TEXT = AssignmentRow(
    name="logits-to-text",
    notebook="logits_to_text",
    points=LOGITS_POINTS,
    students=LOGITS_STUDENTS,
    hidden_values=LOGITS_HIDDEN_VALUES,
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
)

ASSIGNMENTS = {row.name: row for row in (PARAMETERS, LOGITS_TO_TEXT)}
