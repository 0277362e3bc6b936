"""The assignment `parameters` (solutions/parameters/parameters.ipynb): its row of the registry.

What the tests know of it: the points of its checks, its model students (each the
instructor's solution with some answer cells replaced, and what grading must give
them), the hidden values no failure message may show, the students of the whole loop,
and its honest students: styles of its own, a Colab student's changes, and the
package's functions handed in wrapped or changing the model they are given.
"""

from testsupport.assignment_row import AssignmentRow, Student, source, untouched
from testsupport.bad_submissions import leak_by_exception
from testsupport.notebook_changes import (Style, answer, code, in_place, insert_after,
                                          insert_before, moved, typed_id)

NAME = "parameters"

# --- the checks and the model students ---------------------------------------------

POINTS = {
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

STUDENTS = {
    "solution": Student(total=10),
    "untouched": untouched(POINTS),
    # correct, written differently: torch.Size, identity set over named_parameters
    # without de-duplication, a tied deep copy, element_size(), a dict comprehension
    "identity_and_deepcopy": Student(total=10, answers={
        "output_shape_answer": source("""
            logits = my_model(batch.to("meta"))
            output_shape = logits.shape
            """),
        "count_parameters_answer": source("""
            def count_parameters(model):
                seen = set()
                total = 0
                for _, tensor in model.named_parameters(remove_duplicate=False):
                    if id(tensor) not in seen:
                        seen.add(id(tensor))
                        total += tensor.numel()
                return total
            """),
        "values_answer": source("""
            total_params = count_parameters(my_model)
            rows, columns = my_model.out_head.weight.shape
            out_head_params = rows * columns
            tied_params = total_params - my_model.tok_emb.weight.numel()
            """),
        "count_tied_parameters_answer": source("""
            import copy

            def count_tied_parameters(model):
                return count_parameters(tie_weights(copy.deepcopy(model)))
            """),
        "model_size_mib_answer": source("""
            def model_size_mib(model):
                return sum(p.numel() * p.element_size() for p in set(model.parameters())) / 1024 / 1024
            """),
        "count_on_meta_answer": source("""
            def count_on_meta(config):
                with torch.device("meta"):
                    meta_model = GPTModel(dict(config))
                return int(count_parameters(meta_model))
            """),
        "gpt2_totals_answer": source("""
            def untied_total(name):
                with torch.device("meta"):
                    return count_parameters(GPTModel(my_larger_configs[name]))

            gpt2_totals = {name: untied_total(name) for name in ("gpt2-xl", "gpt2-large", "gpt2-medium")}
            """),
    }),
    # correct, by storage address (identity on the meta device), and noisy: every
    # count prints a UserWarning and the size a numpy RuntimeWarning on stderr
    "data_ptr_with_warnings": Student(total=10, answers={
        "output_shape_answer": source("""
            with torch.no_grad():
                output_shape = tuple(my_model(batch.to("meta")).size())
            """),
        "count_parameters_answer": source("""
            import warnings

            def count_parameters(model):
                warnings.warn("counting parameters by storage address")
                by_storage = {}
                for p in model.parameters():
                    key = id(p) if p.is_meta else p.data_ptr()
                    by_storage[key] = p.numel()
                return sum(by_storage.values())
            """),
        "count_tied_parameters_answer": source("""
            def count_tied_parameters(model):
                head = model.out_head.weight
                shared = any(head is p for p in model.tok_emb.parameters())
                return count_parameters(model) - (0 if shared else head.numel())
            """),
        "model_size_mib_answer": source("""
            import numpy as np

            def model_size_mib(model):
                np.log(np.zeros(1))  # RuntimeWarning: divide by zero
                return float(count_parameters(model) * 32 / 8 / 2**20)
            """),
    }),
    # known wrong numbers, tying that also drops the position embedding, sizes in MB
    "wrong_values": Student(total=5, answers={
        "values_answer": source("""
            total_params = 124_439_808
            out_head_params = my_model.out_head.weight.numel() + my_config["vocab_size"]
            tied_params = count_parameters(my_model)
            """),
        "count_tied_parameters_answer": source("""
            def count_tied_parameters(model):
                return count_parameters(model) - model.out_head.weight.numel() - model.pos_emb.weight.numel()
            """),
        "model_size_mib_answer": source("""
            def model_size_mib(model):
                return count_parameters(model) * 4 / 1e6
            """),
        "gpt2_totals_answer": source("""
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
        "values_answer": source("""
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
        "values_answer": source("""
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
        "count_parameters_answer": source("""
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
        "count_parameters_answer": source("""
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
        "count_parameters_answer": source("""
            def count_parameters(model):
                return 163_009_536
            """),
        "values_answer": source("""
            total_params = 163_009_536
            out_head_params = 38_597_376
            tied_params = 123_625_728
            """),
        "count_tied_parameters_answer": source("""
            def count_tied_parameters(model):
                return 124_412_160
            """),
        "model_size_mib_answer": source("""
            def model_size_mib(model):
                return 621.83
            """),
        "count_on_meta_answer": source("""
            def count_on_meta(config):
                return 1_637_792_000
            """),
        "gpt2_totals_answer": source("""
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
HIDDEN_VALUES = {
    "count_parameters_unseen_configs": ["6144", "6,144", "13360", "13,360", "22368", "22,368"],
    "count_parameters_shared_once": ["4980", "4,980", "11744", "11,744"],
    "count_tied_parameters_unseen_configs": ["4980", "4,980", "11744", "11,744", "15168", "15,168"],
    "count_tied_parameters_tied_models": ["4980", "4,980", "11744", "11,744"],
    "model_size_mib_any_model": ["0.0234375", "0.0189971923828125", "0.8857421875"],
    "count_on_meta_any_config": ["6144", "6,144", "9945161728", "9,945,161,728"],
}


# --- honest students --------------------------------------------------------------

# a helper of the student's own above the count_parameters answer, which the answer calls
HELPER_ABOVE_THE_ANSWER = [
    insert_before("count_parameters_answer", code(
        "def distinct_parameters(model):\n"
        "    seen = {}\n"
        "    for p in model.parameters():\n"
        "        seen[id(p)] = p\n"
        "    return list(seen.values())")),
    answer("count_parameters_answer",
           "def count_parameters(model):\n"
           "    return sum(p.numel() for p in distinct_parameters(model))\n")]

STYLES = [
    # markdown cells dragged up and down: the run and the score are the same
    Style("parameters-markdown-dragged-up-three-cells", NAME, [moved("size-intro", -3)]),
    Style("parameters-markdown-dragged-up-two-cells", NAME, [moved("tied-intro", -2)]),
    Style("parameters-later-section-read-first", NAME, [moved("size-intro", -17)]),
    Style("parameters-markdown-dragged-up-one-cell", NAME, [moved("meta-task", -1)]),
    Style("parameters-markdown-dragged-down", NAME, [moved("count-parameters-intro", 4)]),
    Style("parameters-markdown-dragged-to-the-end", NAME, [moved("values-intro", 40)]),
    Style("parameters-star-import-in-a-scratch-cell", NAME, [insert_after("tied_params_value", code(
        "from gptcourse import *  # to try tie_weights\nprint(tie_weights.__doc__)"))]),
    Style("parameters-helper-above-the-answer", NAME, HELPER_ABOVE_THE_ANSWER),
    Style("parameters-helper-below-the-answer", NAME, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n    return sum(size_of(p) for p in model.parameters())\n"),
        insert_after("count_parameters_answer", code(
            "def size_of(tensor):\n    n = 1\n    for d in tensor.shape:\n        n *= d\n    return n"))]),
    Style("parameters-display-and-timing-magics", NAME, [
        in_place("output_shape_answer", lambda s: "%%time\n" + s.rstrip() + "\ndisplay(output_shape)\n"),
        in_place("values_answer", lambda s: s.rstrip() + "\n%time total_params = count_parameters(my_model)\n"
                                                "display(total_params, out_head_params)\n"),
        insert_after("values_answer", code("%timeit -n 1 -r 1 count_parameters(model)"))]),
    Style("parameters-every-function-in-one-cell", NAME, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    return sum(p.numel() for p in model.parameters())\n\n\n"
               "def count_tied_parameters(model):\n"
               "    if model.out_head.weight is model.tok_emb.weight:\n"
               "        return count_parameters(model)\n"
               "    return count_parameters(model) - model.out_head.weight.numel()\n\n\n"
               "def model_size_mib(model):\n"
               "    return count_parameters(model) * 4 / 2**20\n"),
        answer("count_tied_parameters_answer", "# written with count_parameters above\n"),
        answer("model_size_mib_answer", "# see above\nprint(model_size_mib(model))\n")]),
    Style("parameters-explicit-loops", NAME, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    total = 0\n"
               "    counted = set()\n"
               "    for name, p in model.named_parameters(remove_duplicate=False):\n"
               "        if id(p) in counted:\n"
               "            continue\n"
               "        counted.add(id(p))\n"
               "        total += p.numel()\n"
               "    return total\n"),
        answer("gpt2_totals_answer",
               "gpt2_totals = {}\n"
               "for name in ['gpt2-medium', 'gpt2-large', 'gpt2-xl']:\n"
               "    cfg = my_larger_configs[name]\n"
               "    with torch.device('meta'):\n"
               "        big_model = GPTModel(cfg)\n"
               "    gpt2_totals[name] = count_parameters(big_model)\n"
               "    del big_model\n"
               "gpt2_totals\n")]),
    Style("parameters-numpy-and-torch-numel", NAME, [
        insert_after("setup", code("import numpy as np")),
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    return int(sum(np.prod(p.shape) for p in model.parameters()))\n"),
        answer("model_size_mib_answer",
               "def model_size_mib(model):\n"
               "    return float(count_parameters(model) * np.float32().itemsize / (1024 * 1024))\n")]),
    Style("parameters-torch-numel-and-map", NAME, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    return sum(map(torch.numel, model.parameters()))\n")]),
    Style("parameters-rebuilds-the-model-with-the-same-seed", NAME, [
        insert_before("values_answer", code(
            "torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval();"))]),
    Style("parameters-underscore-and-get-ipython", NAME, [
        answer("values_answer",
               "count_parameters(my_model)\n"),
        insert_after("values_answer", code(
            "total_params = _\n"
            "out_head_params = my_model.out_head.weight.numel()\n"
            "tied_params = total_params - out_head_params\n"
            "get_ipython().run_line_magic('time', 'x = total_params + 1')"))]),
    Style("parameters-type-hints-and-docstrings", NAME, [
        answer("count_tied_parameters_answer",
               "def count_tied_parameters(model: torch.nn.Module) -> int:\n"
               "    \"\"\"Parameters with the output head tied to the token embedding.\"\"\"\n"
               "    head = model.out_head.weight\n"
               "    already_tied = head is model.tok_emb.weight\n"
               "    return count_parameters(model) - (0 if already_tied else head.numel())\n")]),
    Style("parameters-helper-module-beside-the-notebook", NAME, [
        insert_before("count_parameters_answer", code("from my_helpers import unique_numel")),
        answer("count_parameters_answer",
               "def count_parameters(model):\n    return unique_numel(model.parameters())\n")],
          files={"my_helpers.py": "def unique_numel(parameters):\n"
                                  "    unique = {id(p): p.numel() for p in parameters}\n"
                                  "    return sum(unique.values())\n"}),
    # on Colab or a laptop: the student types their own id, and looks at their model
    Style("parameters-typed-own-id-on-a-laptop", NAME, [
        typed_id("parameters-typed-own-id-on-a-laptop"),
        insert_after("own-model", code("print(my_config)\nmy_model"))]),
    # tying my_model in place once it is counted (the task says not to, but the counts
    # were taken first): the checks count from my_config, so nothing is lost
    Style("parameters-ties-my-model-after-counting", NAME, [
        answer("values_answer",
               "total_params = count_parameters(my_model)\n"
               "out_head_params = my_model.out_head.weight.numel()\n"
               "tied_params = count_parameters(tie_weights(my_model))  # my_model tied from here\n"
               "print(my_model.out_head.weight is my_model.tok_emb.weight)\n")]),
    Style("parameters-prints-while-counting", NAME, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    total = sum(p.numel() for p in model.parameters())\n"
               "    print(f'counted {total:,} parameters')\n"
               "    return total\n")]),
]


def colab_changes(student):
    """A Colab student on the release with a model of each student's own: types their id,
    looks at their model, keeps a helper above an answer and a scratch cell beside another."""
    return [
        typed_id(student, "  # typed in Colab"),
        insert_after("own-model", code("print(my_config)\nmy_model")),
        *HELPER_ABOVE_THE_ANSWER,
        insert_before("values_answer", code("first = next(my_model.parameters())\nfirst.shape"))]


# Answers that hand in the course package's own function in disguise. Each earns
# nothing for the function it wraps; the rest of the notebook is the solution.
WRAPPERS = {
    "wrapper-lambda": ("model_size_mib_answer",
                       "import gptcourse\nmodel_size_mib = lambda m: gptcourse.model_size_mib(m)\n"),
    "wrapper-def": ("count_tied_parameters_answer",
                    "from gptcourse import count_tied_parameters as theirs\n\n"
                    "def count_tied_parameters(model):\n    return theirs(model)\n"),
    "wrapper-partial": ("count_tied_parameters_answer",
                        "import functools\nimport gptcourse.counting\n"
                        "count_tied_parameters = functools.partial("
                        "gptcourse.counting.count_tied_parameters)\n"),
    "wrapper-getattr": ("model_size_mib_answer",
                        "import importlib\n"
                        "model_size_mib = getattr(importlib.import_module('gptcourse'), "
                        "'model_size_mib')\n"),
    "wrapper-reload": ("model_size_mib_answer",
                       "import importlib\nimport gptcourse.counting\n"
                       "fresh = importlib.reload(gptcourse.counting)\n"
                       "def model_size_mib(model):\n    return fresh.model_size_mib(model)\n"),
    "wrapper-relabelled": ("model_size_mib_answer",
                           "from gptcourse import model_size_mib\n"
                           "model_size_mib.__module__ = '__main__'\n"),
    "wrapper-code-object": ("model_size_mib_answer",
                            "import types\nimport gptcourse.counting as counting\n"
                            "model_size_mib = types.FunctionType(counting.model_size_mib.__code__, "
                            "vars(counting), 'model_size_mib')\n"),
    "wrapper-source-file": ("model_size_mib_answer",
                            "import gptcourse.counting\n"
                            "borrowed = {'__name__': 'gptcourse.counting', '__package__': 'gptcourse'}\n"
                            "exec(open(gptcourse.counting.__file__).read(), borrowed)\n"
                            "model_size_mib = borrowed['model_size_mib']\n"),
}
# the checks of the wrapped answers: what each wrapper loses
WRAPPED_CHECKS = {"model_size_mib_answer": {"model_size_mib_any_model"},
                  "count_tied_parameters_answer": {"count_tied_parameters_unseen_configs",
                                                   "count_tied_parameters_tied_models"}}

# Answers that change the model they are given (the task says not to). Each loses exactly
# the check that asserts the model was left as it was, with that check's own words.
ARGUMENT_CHANGERS = {
    "ties-the-model-it-counts": (
        "count_tied_parameters_answer",
        "def count_tied_parameters(model):\n"
        "    tie_weights(model)  # the shared matrix is then counted once\n"
        "    return count_parameters(model)\n",
        "count_tied_parameters_unseen_configs",
        "count_tied_parameters tied the model it was given"),
}


ROW = AssignmentRow(
    name=NAME,
    notebook="parameters",
    explain={"explain_tying": 2},
    points=POINTS,
    students=STUDENTS,
    hidden_values=HIDDEN_VALUES,
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
    styles=tuple(STYLES),
    colab_changes=colab_changes,
    wrappers=WRAPPERS,
    wrapped_checks=WRAPPED_CHECKS,
    argument_changers=ARGUMENT_CHANGERS,
)
