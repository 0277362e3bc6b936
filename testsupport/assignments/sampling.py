"""The assignment `sampling` (solutions/sampling/sampling.ipynb): its row of the registry.

What the tests know of it: the points of its checks, its model students (each the
instructor's solution with some answer cells replaced, and what grading must give
them), the hidden values no failure message may show, the students of the whole loop,
and its honest students: styles of its own, a Colab student's changes, and the
package's sample_next_token handed in wrapped.
"""

from testsupport.assignment_row import AssignmentRow, Student, source, untouched
from testsupport.notebook_changes import (Style, answer, code, in_place, insert_after,
                                          insert_before, moved, typed_id)

NAME = "sampling"

# --- the checks and the model students ---------------------------------------------

POINTS = {
    "softmax_with_temperature_probabilities": 1,
    "softmax_with_temperature_divides": 1,
    "top_k_filter_keeps_the_largest": 1,
    "top_k_filter_ties_and_large_k": 1,
    "top_p_filter_smallest_nucleus": 1.5,
    "top_p_filter_each_row": 1,
    "sample_next_token_seeded_draws": 1,
    "sample_next_token_greedy_limit": 0.5,
    "my_favourite_probas_values": 1,
    "my_kept_ids_values": 1,
}

# The checks of sample_next_token run with correct filters, so a broken top_k_filter or
# top_p_filter costs its own checks only; the values of section 5 are computed with the
# student's own softmax_with_temperature and top_p_filter, and a broken one costs them too.
STUDENTS = {
    "solution": Student(total=10),
    "untouched": untouched(POINTS),
    # correct, written differently: softmax by hand, top-k by sorting and torch.where,
    # top-p row by row in a loop, the draw as a tensor method, the values with numpy
    "by_hand_and_row_by_row": Student(total=10, answers={
        "softmax_with_temperature_answer": source("""
            def softmax_with_temperature(logits, temperature):
                scaled = logits / temperature
                exps = torch.exp(scaled - scaled.max(dim=-1, keepdim=True).values)
                return exps / exps.sum(dim=-1, keepdim=True)
            """),
        "top_k_filter_answer": source("""
            def top_k_filter(logits, top_k):
                ordered = torch.sort(logits, dim=-1, descending=True).values
                kth = ordered[:, min(top_k, logits.shape[-1]) - 1].unsqueeze(-1)
                return torch.where(logits >= kth, logits, torch.full_like(logits, float("-inf")))
            """),
        "top_p_filter_answer": source("""
            def top_p_filter(logits, top_p):
                result = torch.full_like(logits, float("-inf"))
                for row in range(logits.shape[0]):
                    probas = torch.softmax(logits[row], dim=-1)
                    order = torch.argsort(probas, descending=True)
                    total = 0.0
                    for i in order.tolist():
                        result[row, i] = logits[row, i]
                        total += probas[i].item()
                        if total >= top_p:
                            break
                return result
            """),
        "sample_next_token_answer": source("""
            def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
                if temperature <= 0:
                    raise ValueError("the temperature must be positive")
                scores = logits / temperature
                scores = scores if top_k is None else top_k_filter(scores, top_k)
                scores = scores if top_p is None else top_p_filter(scores, top_p)
                return scores.softmax(dim=-1).multinomial(1, generator=generator)
            """),
        "own_values_answer": source("""
            import numpy as np

            my_favourite_probas = []
            for t in [1, 0.5, 0.1, 0.01]:
                my_favourite_probas.append(float(softmax_with_temperature(my_logits, t)[0].max()))
            kept = top_p_filter(my_logits / 0.5, 0.9).numpy()
            my_kept_ids = [[int(i) for i in np.flatnonzero(np.isfinite(row))] for row in kept]
            """),
    }),
    # a correct softmax computed in float64: the checks compare it as float32
    "softmax_in_float64": Student(total=10, answers={
        "softmax_with_temperature_answer": source("""
            def softmax_with_temperature(logits, temperature):
                return torch.softmax(logits.double() / temperature, dim=-1)
            """),
    }),
    # the scores multiplied by the temperature: the probabilities still sum to 1
    "temperature_multiplied": Student(total=8, answers={
        "softmax_with_temperature_answer": source("""
            def softmax_with_temperature(logits, temperature):
                return torch.softmax(logits * temperature, dim=-1)
            """),
    }, failures={
        "softmax_with_temperature_divides": "times the temperature",
        "my_favourite_probas_values": "times the temperature",
    }),
    # softmax over the batch: the columns sum to 1, not the rows
    "softmax_over_the_batch": Student(total=7, answers={
        "softmax_with_temperature_answer": source("""
            def softmax_with_temperature(logits, temperature):
                return torch.softmax(logits / temperature, dim=0)
            """),
    }, failures={
        "softmax_with_temperature_probabilities": "softmax over the batch",
        "softmax_with_temperature_divides": None,
        "my_favourite_probas_values": None,
    }),
    # the cut scores set to 0, which softmax still gives a probability
    "top_k_zero_not_minus_infinity": Student(total=8, answers={
        "top_k_filter_answer": source("""
            def top_k_filter(logits, top_k):
                kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[:, -1:]
                return torch.where(logits < kth, torch.zeros_like(logits), logits)
            """),
    }, failures={
        "top_k_filter_keeps_the_largest": "the cut scores are 0",
        "top_k_filter_ties_and_large_k": "the cut score is 0",
    }),
    # one threshold for the whole batch: right on one text, wrong on a batch
    "top_k_one_threshold_for_the_batch": Student(total=8, answers={
        "top_k_filter_answer": source("""
            def top_k_filter(logits, top_k):
                kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[:, -1].min()
                return logits.masked_fill(logits < kth, float("-inf"))
            """),
    }, failures={
        "top_k_filter_keeps_the_largest": "each row has its own k-th score",
        "top_k_filter_ties_and_large_k": "not every score tied with the k-th",
    }),
    # exactly k ids by their indices: a tie with the k-th loses one of its ids
    "top_k_exactly_k_ids": Student(total=9, answers={
        "top_k_filter_answer": source("""
            def top_k_filter(logits, top_k):
                ids = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).indices
                result = torch.full_like(logits, float("-inf"))
                return result.scatter(-1, ids, logits.gather(-1, ids))
            """),
    }, failures={
        "top_k_filter_ties_and_large_k": "tied with the k-th is kept too",
    }),
    # the nucleus stops before the id that reaches top_p: the values lose their nucleus too
    "top_p_one_id_short": Student(total=6.5, answers={
        "top_p_filter_answer": source("""
            def top_p_filter(logits, top_p):
                sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
                cumulative = torch.softmax(sorted_logits, dim=-1).cumsum(dim=-1)
                drop_sorted = cumulative >= top_p
                drop = drop_sorted.scatter(-1, order, drop_sorted)
                return logits.masked_fill(drop, float("-inf"))
            """),
    }, failures={
        "top_p_filter_smallest_nucleus": "stops one id short",
        "top_p_filter_each_row": "the sure text keeps 0 ids",
        "my_kept_ids_values": "stops one id short",
    }),
    # the cut made in sorted order and handed back sorted
    "top_p_in_sorted_order": Student(total=6.5, answers={
        "top_p_filter_answer": source("""
            def top_p_filter(logits, top_p):
                sorted_logits, _ = torch.sort(logits, dim=-1, descending=True)
                sorted_probas = torch.softmax(sorted_logits, dim=-1)
                drop = sorted_probas.cumsum(dim=-1) - sorted_probas >= top_p
                return sorted_logits.masked_fill(drop, float("-inf"))
            """),
    }, failures={
        "top_p_filter_smallest_nucleus": "in sorted order",
        "top_p_filter_each_row": None,
        "my_kept_ids_values": None,
    }),
    # greedy in place of a draw, and no refusal of a temperature of 0
    "argmax_not_a_draw": Student(total=8.5, answers={
        "sample_next_token_answer": source("""
            def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
                return torch.argmax(logits, dim=-1, keepdim=True)
            """),
    }, failures={
        "sample_next_token_seeded_draws": "every draw is the favourite",
        "sample_next_token_greedy_limit": "temperature 0 must raise ValueError",
    }),
    # the generator never reaches torch.multinomial: the same seed draws other ids
    "draws_ignore_the_generator": Student(total=9, answers={
        "sample_next_token_answer": source("""
            def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
                if temperature <= 0:
                    raise ValueError("temperature must be above 0")
                scores = logits / temperature
                if top_k is not None:
                    scores = top_k_filter(scores, top_k)
                if top_p is not None:
                    scores = top_p_filter(scores, top_p)
                return torch.multinomial(torch.softmax(scores, dim=-1), num_samples=1)
            """),
    }, failures={
        "sample_next_token_seeded_draws": "the same seed gave other draws",
    }),
    # top-p measured before the temperature, and a temperature of 0 let through
    "top_p_before_the_temperature": Student(total=8.5, answers={
        "sample_next_token_answer": source("""
            def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
                scores = logits
                if top_k is not None:
                    scores = top_k_filter(scores, top_k)
                if top_p is not None:
                    scores = top_p_filter(scores, top_p)
                probas = torch.softmax(scores / temperature, dim=-1)
                return torch.multinomial(probas, num_samples=1, generator=generator)
            """),
    }, failures={
        "sample_next_token_seeded_draws": "top-p was measured before the temperature",
        "sample_next_token_greedy_limit": "temperature 0 must raise ValueError",
    }),
    # the values: the favourite of the last text, not the first, and the nucleus at
    # temperature 1
    "own_values_untempered": Student(total=8, answers={
        "own_values_answer": source("""
            my_favourite_probas = [softmax_with_temperature(my_logits, t)[-1].max().item()
                                   for t in (1.0, 0.5, 0.1, 0.01)]
            kept = top_p_filter(my_logits, 0.9)
            my_kept_ids = [torch.nonzero(row > float("-inf")).flatten().tolist() for row in kept]
            """),
    }, failures={
        "my_favourite_probas_values": "your second text's",
        "my_kept_ids_values": "nucleus at temperature 1",
    }),
    # my_logits divided in place, and the favourites taken after it: the nucleus at 0.5
    # is right, the favourites are of other scores
    "divides_my_logits_in_place": Student(total=9, answers={
        "own_values_answer": source("""
            my_logits /= 0.5  # tempered once, in place
            kept = top_p_filter(my_logits, 0.9)
            my_kept_ids = [torch.nonzero(row > float("-inf")).flatten().tolist() for row in kept]
            my_favourite_probas = [softmax_with_temperature(my_logits, t)[0].max().item()
                                   for t in (1.0, 0.5, 0.1, 0.01)]
            """),
    }, failures={
        # (the checks of the course's grader see the set-up's my_logits and say that the
        # values are not the student's; in Jupyter they name the in-place division)
        "my_favourite_probas_values": None,
    }),
    # typed-in results: functions that return fixed tensors, values from the site
    "typed_in": Student(total=0, answers={
        "softmax_with_temperature_answer": source("""
            def softmax_with_temperature(logits, temperature):
                return torch.tensor([[0.4, 0.3, 0.2, 0.1]])
            """),
        "top_k_filter_answer": source("""
            def top_k_filter(logits, top_k):
                return torch.tensor([[2.0, float("-inf"), float("-inf"), 3.0, float("-inf")]])
            """),
        "top_p_filter_answer": source("""
            def top_p_filter(logits, top_p):
                return torch.tensor([[float("-inf"), -0.6931, float("-inf"), -1.204, float("-inf")]])
            """),
        "sample_next_token_answer": source("""
            def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
                return torch.full((logits.shape[0], 1), 3)
            """),
        "own_values_answer": source("""
            my_favourite_probas = [0.0002, 0.0004, 0.05, 0.99]
            my_kept_ids = [[0, 1, 2], [3, 4]]
            """),
    }, failures={
        "softmax_with_temperature_probabilities": "it must stay [2, 4]",
        "softmax_with_temperature_divides": None,
        "top_k_filter_keeps_the_largest": None,
        "top_k_filter_ties_and_large_k": None,
        "top_p_filter_smallest_nucleus": None,
        "top_p_filter_each_row": None,
        "sample_next_token_seeded_draws": None,
        "sample_next_token_greedy_limit": None,
        "my_favourite_probas_values": None,
        "my_kept_ids_values": None,
    }),
}

HIDDEN_VALUES = {}


# --- honest students --------------------------------------------------------------

HELPER_ABOVE_THE_FILTER = [
    insert_before("top_p_filter_answer", code(
        "def sorted_probabilities(logits):\n"
        "    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)\n"
        "    return torch.softmax(sorted_logits, dim=-1), order")),
    answer("top_p_filter_answer",
           "def top_p_filter(logits, top_p):\n"
           "    probas, order = sorted_probabilities(logits)\n"
           "    drop_sorted = probas.cumsum(dim=-1) - probas >= top_p\n"
           "    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)\n"
           "    return logits.masked_fill(drop, float('-inf'))\n")]

STYLES = [
    Style("sampling-markdown-dragged-up", NAME, [moved("top-p-intro", -2)]),
    Style("sampling-helper-above-the-filter", NAME, HELPER_ABOVE_THE_FILTER),
    Style("sampling-every-function-in-one-cell", NAME, [
        answer("softmax_with_temperature_answer",
               "def softmax_with_temperature(logits, temperature):\n"
               "    return torch.softmax(logits / temperature, dim=-1)\n\n\n"
               "def top_k_filter(logits, top_k):\n"
               "    kth = logits.topk(min(top_k, logits.size(-1)), dim=-1).values[..., -1:]\n"
               "    return logits.masked_fill(logits < kth, -float('inf'))\n"),
        answer("top_k_filter_answer", "# top_k_filter is written with softmax_with_temperature\n")]),
    Style("sampling-clone-then-in-place", NAME, [
        answer("top_k_filter_answer",
               "def top_k_filter(logits, top_k):\n"
               "    result = logits.clone()\n"
               "    kth = torch.topk(result, min(top_k, result.shape[-1]), dim=-1).values[:, -1:]\n"
               "    result[result < kth] = float('-inf')\n"
               "    return result\n")]),
    Style("sampling-display-and-timing-magics", NAME, [
        in_place("own_values_answer", lambda s: "%%time\n" + s.rstrip() + "\ndisplay(my_kept_ids)\n"),
        insert_after("sample_next_token_answer", code(
            "%timeit -n 1 -r 1 sample_next_token(my_logits, top_p=0.9)"))]),
    Style("sampling-global-seed-in-a-scratch-cell", NAME, [
        insert_after("sample_next_token_answer", code(
            "torch.manual_seed(0)\n"
            "print([sample_next_token(my_logits, temperature=0.7).flatten().tolist()"
            " for _ in range(3)])"))]),
    Style("sampling-typed-own-id-on-a-laptop", NAME, [
        typed_id("sampling-typed-own-id-on-a-laptop"),
        insert_after("own-logits", code("print(my_logits.shape)\nmy_logits"))]),
    Style("sampling-type-hints-and-docstrings", NAME, [
        answer("softmax_with_temperature_answer",
               "def softmax_with_temperature(logits: torch.Tensor, temperature: float) -> torch.Tensor:\n"
               "    \"\"\"Probabilities of each row at this temperature.\"\"\"\n"
               "    return (logits / temperature).softmax(dim=-1)\n")]),
]


def colab_changes(student):
    """A Colab student types their id, looks at their scores, keeps a helper above the top-p
    answer and a scratch cell of draws beside the sampling answer."""
    return [
        typed_id(student, "  # typed in Colab"),
        insert_after("own-logits", code("my_logits.shape")),
        *HELPER_ABOVE_THE_FILTER,
        insert_after("sample_next_token_answer", code(
            "g = torch.Generator().manual_seed(1)\n"
            "sample_next_token(my_logits, top_k=3, generator=g)"))]


# The package's own sample_next_token handed in, wrapped: it earns nothing for its checks.
WRAPPERS = {
    "sampling-wrapper-import": ("sample_next_token_answer", "from gptcourse import sample_next_token\n"),
    "sampling-wrapper-def": ("sample_next_token_answer",
                    "import gptcourse.generation\n\n"
                    "def sample_next_token(logits, temperature=1.0, top_k=None, top_p=None,"
                    " generator=None):\n"
                    "    return gptcourse.generation.sample_next_token(\n"
                    "        logits, temperature, top_k, top_p, generator)\n"),
}
WRAPPED_CHECKS = {"sample_next_token_answer": {"sample_next_token_seeded_draws",
                                               "sample_next_token_greedy_limit"}}


ROW = AssignmentRow(
    name=NAME,
    notebook="sampling",
    explain={"explain_temperature": 2},
    points=POINTS,
    students=STUDENTS,
    hidden_values=HIDDEN_VALUES,
    allowed_imports=frozenset({"student_logits"}),
    package_answers=("sample_next_token_answer",),
    # softmax_with_temperature (1 + 1) and top_k_filter (1 + 1)
    partial=("softmax_with_temperature_answer", "top_k_filter_answer"),
    partial_score=4.0,
    typed={
        "top_k_filter_answer": "def top_k_filter(logits, top_k):\n"
                               "    return torch.tensor([[2.0, float('-inf'), float('-inf'), 3.0,"
                               " float('-inf')]])\n",
        "own_values_answer": "my_favourite_probas = [0.0002, 0.0004, 0.05, 0.99]\n"
                             "my_kept_ids = [[0, 1, 2], [3, 4]]\n",
    },
    # the values are about each student's own scores; the typed filter fits one example
    typed_score=0.0,
    function_tests=("softmax_with_temperature_divides", "top_k_filter_keeps_the_largest",
                    "top_k_filter_ties_and_large_k", "top_p_filter_smallest_nucleus",
                    "top_p_filter_each_row", "sample_next_token_seeded_draws"),
    oracle={
        "top_p_filter_answer": (
            "def top_p_filter(logits, top_p):\n"
            "    helper = globals().get('nucleus_reference')\n"
            "    if helper is not None:\n"
            "        return helper(logits, top_p)\n"
            "    return logits.clone()\n"),
    },
    # everything but top_p_filter (1.5 + 1) and my_kept_ids (1), which it computes
    oracle_score=6.5,
    styles=tuple(STYLES),
    colab_changes=colab_changes,
    wrappers=WRAPPERS,
    wrapped_checks=WRAPPED_CHECKS,
)
