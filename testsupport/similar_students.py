"""A synthetic class for the similarity report: honest students and planted copies.

Each answer cell of `parameters` has seven honest ways to write it (VARIANTS),
each one how some student really writes it: a comprehension or a loop, an
identity set or a dict, numpy or torch, a helper of one's own, prints while
working. Honest student i writes cell c in way ``(a * c + b) mod 7`` with
``(a, b) = divmod(i, 7)``: two honest students then write at most one of the
seven cells the same way, as two people who work apart do. Each also has one of
the ordinary notebook habits of the honest corpus (an imports cell, scratch
cells, notes). A planted copy takes another student's answers and renames every
name of their own, rewrites the comments and the spacing, puts the functions in
one cell in another order, and (one of them) adds dead code.
"""

import io
import re
import tokenize
from textwrap import dedent

from testsupport.course import assignments, read_notebook
from testsupport.hand_in import hand_in

ASSIGNMENT = "parameters"
DOC = {
    "count_parameters": '"""Number of learnable values in ``model``, each distinct parameter tensor '
                        'counted once."""',
    "count_tied_parameters": '"""Parameters of ``model`` with weight tying: the total minus the '
                             'output head, unless already tied."""',
    "model_size_mib": '"""Memory the distinct parameters of ``model`` take as float32, in MiB '
                      '(2**20 bytes)."""',
    "count_on_meta": '"""Parameters of ``GPTModel(config)``, built on the meta device: no memory, '
                     'no random draws."""',
}
# the names the notebook's checks read: a copier cannot rename them
REQUIRED = {"output_shape", "count_parameters", "total_params", "out_head_params", "tied_params",
            "count_tied_parameters", "model_size_mib", "count_on_meta", "gpt2_totals", "model",
            "batch", "torch", "GPTModel", "GPT2_CONFIGS", "GPT_CONFIG_124M", "tie_weights",
            "tokenizer", "print", "sum", "len", "int", "float", "set", "dict", "list", "tuple",
            "id", "map", "range", "isinstance", "any", "all", "zip", "sorted", "enumerate",
            "display", "copy", "math", "np", "numpy", "functools", "operator", "reduce",
            "warnings", "prod"}


def _cells(*sources):
    return [dedent(s).strip("\n") + "\n" for s in sources]


VARIANTS = {
    "output_shape_answer": _cells(
        """
        with torch.no_grad():
            out = model(batch)
        output_shape = tuple(out.shape)
        print(output_shape)
        """,
        """
        model.eval()
        with torch.inference_mode():
            result = model(batch)
        batch_size, num_tokens, vocab = result.size()
        output_shape = (batch_size, num_tokens, vocab)
        print(output_shape)
        """,
        """
        torch.set_grad_enabled(False)
        logits_here = model(batch)
        torch.set_grad_enabled(True)
        output_shape = tuple(int(d) for d in logits_here.shape)
        print(output_shape)
        """,
        """
        def run_once(m, x):
            with torch.no_grad():
                return m(x)

        y = run_once(model, batch)
        output_shape = tuple(list(y.shape))
        print("shape is", output_shape)
        """,
        """
        with torch.no_grad():
            output_shape = tuple(model(batch).shape)
        assert len(output_shape) == 3, "expected batch, tokens, vocabulary"
        print(output_shape)
        """,
        """
        with torch.no_grad():
            scores = model(batch).detach()
        dims = []
        for i in range(scores.dim()):
            dims.append(scores.shape[i])
        output_shape = tuple(dims)
        print(output_shape)
        """,
        """
        grad_mode = torch.no_grad()
        grad_mode.__enter__()
        out_tensor = model.forward(batch)
        grad_mode.__exit__(None, None, None)
        output_shape = (out_tensor.shape[0], out_tensor.shape[1], out_tensor.shape[2])
        print(output_shape)
        """,
    ),
    "count_parameters_answer": _cells(
        f"""
        def count_parameters(model):
            {DOC["count_parameters"]}
            seen = set()
            total = 0
            for p in model.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    total += p.numel()
            return total
        """,
        f"""
        def count_parameters(model):
            {DOC["count_parameters"]}
            unique = {{id(p): p for p in model.parameters()}}
            return sum(t.numel() for t in unique.values())
        """,
        f"""
        def count_parameters(model):
            {DOC["count_parameters"]}
            n = 0
            for name, param in model.named_parameters():
                size = 1
                for dim in param.shape:
                    size = size * dim
                n = n + size
            return n
        """,
        f"""
        import numpy as np

        def count_parameters(model):
            {DOC["count_parameters"]}
            sizes = [np.prod(list(w.shape)) for w in model.parameters()]
            return int(np.sum(sizes))
        """,
        f"""
        def count_parameters(model):
            {DOC["count_parameters"]}
            counts = list(map(lambda t: t.numel(), model.parameters()))
            answer = 0
            while counts:
                answer += counts.pop()
            return answer
        """,
        f"""
        from functools import reduce
        import operator

        def count_parameters(model):
            {DOC["count_parameters"]}
            return sum(reduce(operator.mul, w.size(), 1) for w in model.parameters())
        """,
        f"""
        def count_parameters(model):
            {DOC["count_parameters"]}
            by_pointer = dict()
            for module in model.modules():
                for param in module.parameters(recurse=False):
                    by_pointer[param.data_ptr() if not param.is_meta else id(param)] = param.numel()
            return sum(by_pointer.values())
        """,
    ),
    "values_answer": _cells(
        """
        total_params = count_parameters(model)
        out_head_params = model.out_head.weight.numel()
        tied_params = total_params - out_head_params
        print(f"total {total_params:,}   output head {out_head_params:,}   tied {tied_params:,}")
        """,
        """
        total_params = count_parameters(model)
        vocab_size, emb_dim = model.out_head.weight.shape
        out_head_params = vocab_size * emb_dim
        tied_params = total_params - out_head_params
        print(total_params, out_head_params, tied_params)
        """,
        """
        numbers = {}
        numbers["total"] = count_parameters(model)
        numbers["head"] = sum(p.numel() for p in model.out_head.parameters())
        total_params, out_head_params = numbers["total"], numbers["head"]
        tied_params = numbers["total"] - numbers["head"]
        for key, value in numbers.items():
            print(key, value)
        """,
        """
        total_params = count_parameters(model)
        out_head_params = count_parameters(model.out_head)
        tied_params = count_tied_parameters(model) if "count_tied_parameters" in globals() else total_params - out_head_params
        print("total", total_params)
        print("head", out_head_params)
        """,
        """
        head_weight = model.out_head.weight
        out_head_params = head_weight.shape[0] * head_weight.shape[1]
        total_params = count_parameters(model)
        tied_params = total_params - model.tok_emb.weight.numel()
        assert out_head_params == model.tok_emb.weight.numel()
        """,
        """
        total_params, out_head_params = count_parameters(model), model.out_head.weight.nelement()
        tied_params = total_params - out_head_params
        print(f"{total_params=} {out_head_params=} {tied_params=}")
        """,
        """
        import math
        total_params = count_parameters(model)
        out_head_params = math.prod(model.out_head.weight.size())
        tied_params = total_params
        tied_params -= out_head_params
        print("tied model has", tied_params, "parameters")
        """,
    ),
    "count_tied_parameters_answer": _cells(
        f"""
        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            if model.out_head.weight is model.tok_emb.weight:
                return count_parameters(model)
            return count_parameters(model) - model.out_head.weight.numel()
        """,
        f"""
        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            everything = count_parameters(model)
            head = model.out_head.weight
            emb = model.tok_emb.weight
            already = head.data_ptr() == emb.data_ptr() if not head.is_meta else head is emb
            if already:
                return everything
            else:
                return everything - head.numel()
        """,
        f"""
        import copy

        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            clone = copy.deepcopy(model)
            tie_weights(clone)
            return count_parameters(clone)
        """,
        f"""
        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            shared = any(p is model.out_head.weight for p in model.tok_emb.parameters())
            minus = 0 if shared else model.out_head.weight.numel()
            return count_parameters(model) - minus
        """,
        f"""
        def is_tied(m):
            return id(m.out_head.weight) == id(m.tok_emb.weight)

        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            total = count_parameters(model)
            return total if is_tied(model) else total - model.out_head.weight.numel()
        """,
        f"""
        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            kept = [p for name, p in model.named_parameters() if not name.startswith("out_head")]
            if model.out_head.weight is model.tok_emb.weight:
                kept = list(model.parameters())
            return sum(p.numel() for p in kept)
        """,
        f"""
        def count_tied_parameters(model):
            {DOC["count_tied_parameters"]}
            params = {{id(p): p.numel() for p in model.parameters()}}
            params.pop(id(model.out_head.weight), None)
            params[id(model.tok_emb.weight)] = model.tok_emb.weight.numel()
            return sum(params.values())
        """,
    ),
    "model_size_mib_answer": _cells(
        f"""
        def model_size_mib(model):
            {DOC["model_size_mib"]}
            return count_parameters(model) * 4 / (1024 * 1024)
        print(f"{{model_size_mib(model):.2f}} MiB")
        """,
        f"""
        BYTES_PER_FLOAT = 4
        MIB = 2 ** 20

        def model_size_mib(model):
            {DOC["model_size_mib"]}
            size_in_bytes = count_parameters(model) * BYTES_PER_FLOAT
            return size_in_bytes / MIB
        print(round(model_size_mib(model), 2), "MiB")
        """,
        f"""
        def model_size_mib(model):
            {DOC["model_size_mib"]}
            bits = count_parameters(model) * 32
            byte_count = bits // 8
            return byte_count / 1024 / 1024
        """,
        f"""
        import torch

        def model_size_mib(model):
            {DOC["model_size_mib"]}
            one = torch.tensor(0.0, dtype=torch.float32).element_size()
            return float(count_parameters(model) * one) / float(2 ** 20)
        """,
        f"""
        def model_size_mib(model):
            {DOC["model_size_mib"]}
            kib = count_parameters(model) * 4 / 1024
            mib = kib / 1024
            return mib
        size = model_size_mib(model)
        print("model size:", size)
        """,
        f"""
        def model_size_mib(model):
            {DOC["model_size_mib"]}
            return sum(4 * p.numel() for p in {{id(q): q for q in model.parameters()}}.values()) / 2 ** 20
        """,
        f"""
        def model_size_mib(model):
            {DOC["model_size_mib"]}
            n_params = count_parameters(model)
            mebibyte = 1 << 20
            return (n_params << 2) / mebibyte
        for label in ["124M"]:
            print(label, model_size_mib(model))
        """,
    ),
    "count_on_meta_answer": _cells(
        f"""
        def count_on_meta(config):
            {DOC["count_on_meta"]}
            with torch.device("meta"):
                m = GPTModel(config)
            return int(count_parameters(m))
        """,
        f"""
        def count_on_meta(config):
            {DOC["count_on_meta"]}
            previous = torch.get_default_device()
            torch.set_default_device("meta")
            try:
                built = GPTModel(config)
            finally:
                torch.set_default_device(previous)
            return count_parameters(built)
        """,
        f"""
        def count_on_meta(config):
            {DOC["count_on_meta"]}
            device = torch.device("meta")
            with device:
                skeleton = GPTModel(dict(config))
            n = count_parameters(skeleton)
            del skeleton
            return n
        """,
        f"""
        def build_on_meta(cfg):
            with torch.device("meta"):
                return GPTModel(cfg)

        def count_on_meta(config):
            {DOC["count_on_meta"]}
            return count_parameters(build_on_meta(config))
        """,
        f"""
        def count_on_meta(config):
            {DOC["count_on_meta"]}
            with torch.device("meta"):
                meta_model = GPTModel(config)
            assert all(p.is_meta for p in meta_model.parameters())
            result = count_parameters(meta_model)
            return int(result)
        """,
        f"""
        def count_on_meta(config):
            {DOC["count_on_meta"]}
            ctx = torch.device("meta")
            ctx.__enter__()
            try:
                net = GPTModel(config)
            finally:
                ctx.__exit__(None, None, None)
            return count_parameters(net)
        """,
        f"""
        def count_on_meta(config):
            {DOC["count_on_meta"]}
            counts = []
            with torch.device("meta"):
                counts.append(count_parameters(GPTModel(config)))
            return counts[0]
        """,
    ),
    "gpt2_totals_answer": _cells(
        """
        gpt2_totals = {}
        for name in ["gpt2-medium", "gpt2-large", "gpt2-xl"]:
            gpt2_totals[name] = count_on_meta(GPT2_CONFIGS[name])
        print(gpt2_totals)
        """,
        """
        names = ("gpt2-medium", "gpt2-large", "gpt2-xl")
        gpt2_totals = dict(zip(names, [count_on_meta(GPT2_CONFIGS[n]) for n in names]))
        print(gpt2_totals)
        """,
        """
        gpt2_totals = {key: count_on_meta(cfg) for key, cfg in GPT2_CONFIGS.items() if key != "gpt2-small"}
        for key in sorted(gpt2_totals):
            print(key, f"{gpt2_totals[key]:,}")
        """,
        """
        wanted = "gpt2-medium gpt2-large gpt2-xl".split()
        gpt2_totals = dict()
        i = 0
        while i < len(wanted):
            gpt2_totals[wanted[i]] = count_on_meta(GPT2_CONFIGS[wanted[i]])
            i += 1
        print(gpt2_totals)
        """,
        """
        def totals_for(model_names):
            return {n: int(count_on_meta(GPT2_CONFIGS[n])) for n in model_names}

        gpt2_totals = totals_for(["gpt2-medium", "gpt2-large", "gpt2-xl"])
        print(gpt2_totals)
        """,
        """
        gpt2_totals = {}
        for size in ["medium", "large", "xl"]:
            key = "gpt2-" + size
            total = count_on_meta(GPT2_CONFIGS[key])
            print(key, total)
            gpt2_totals[key] = total
        """,
        """
        pairs = [(n, count_on_meta(c)) for n, c in GPT2_CONFIGS.items()]
        gpt2_totals = {n: t for n, t in pairs if n in ("gpt2-medium", "gpt2-large", "gpt2-xl")}
        assert len(gpt2_totals) == 3
        print(gpt2_totals)
        """,
    ),
}
CELLS = list(VARIANTS)  # in notebook order

HABITS = [  # extra cells an honest student adds, as in testsupport/honest_students.py
    [("top", "import math\nimport numpy as np\nimport torch\nfrom gptcourse import GPTModel\n")],
    [("end", "print('all checks above ran')\n"), ("end", "x = [i * i for i in range(10)]\nx[-1]\n")],
    [("top", "%load_ext autoreload\n%autoreload 2\n%matplotlib inline\n")],
    [],
    [("end", "!echo done\n")],
]


def honest_answers(index):
    """{grade_id: source} of honest student `index` (0 to 342): the way of writing cell c
    is (q c^2 + a c + b) mod 7 with (q, a, b) the digits of `index` in base 7, so two of the
    first 49 students (q = 0) share at most one cell, and any two at most two."""
    q, rest = divmod(index, 49)
    a, b = divmod(rest, 7)
    return {cell: VARIANTS[cell][(q * at * at + a * at + b) % 7] for at, cell in enumerate(CELLS)}


def _code(source, grade_id=None):
    meta = {"nbgrader": {"grade_id": grade_id, "solution": True, "grade": False,
                         "locked": False, "schema_version": 3}} if grade_id else {}
    return {"cell_type": "code", "metadata": meta, "source": source, "outputs": [],
            "execution_count": None}


def notebook(answers, habits=()):
    """The released notebook with `answers` ({grade_id: source}) filled in and `habits`
    ([(where, source)]) added: where is "top" or "end"."""
    nb = read_notebook("exercises", ASSIGNMENT)
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell["source"] = answers[grade_id]
    for where, source in habits:
        if where == "top":
            nb["cells"].insert(0, _code(source))
        else:
            nb["cells"].append(_code(source))
    return nb


# --- a copier's changes ------------------------------------------------------------

SYNONYMS = ["thing", "acc", "stuff", "tmp", "val", "item", "holder", "piece", "elem", "bucket"]


def own_names(sources):
    """Names bound in `sources` that the checks do not read: the ones a copier renames."""
    found = set()
    for source in sources:
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        except (tokenize.TokenError, IndentationError):
            continue
        for at, token in enumerate(tokens[:-1]):
            following = tokens[at + 1].string
            before = tokens[at - 1].string if at else ""
            if token.type == tokenize.NAME and before != "." and (
                    following in ("=", "+=", "-=", ",", "in", ")", ":") or before in ("def", "for", "as")):
                found.add(token.string)
    keywords = {"for", "in", "if", "else", "return", "def", "with", "as", "not", "is", "and",
                "or", "None", "True", "False", "while", "try", "finally", "import", "from",
                "lambda", "del", "assert", "recurse"}
    return sorted(found - REQUIRED - keywords)


def renamed(source, mapping):
    """`source` with each NAME token in `mapping` renamed (attributes left alone)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    out = []
    for at, token in enumerate(tokens):
        before = tokens[at - 1].string if at else ""
        if token.type == tokenize.NAME and token.string in mapping and before != ".":
            token = token._replace(string=mapping[token.string])
        out.append(token)
    return tokenize.untokenize(out)


def recommented(source, note):
    """Comments and docstrings rewritten, two-space indents, blank lines moved."""
    lines = []
    for line in source.splitlines():
        if line.strip().startswith("#"):
            continue
        line = re.sub(r'"""[^"]*"""', f'"""{note}"""', line)
        line = re.sub(r"  #.*$", "", line)
        indent = len(line) - len(line.lstrip(" "))
        stripped = line.lstrip(" ")
        line = " " * (indent // 2) + stripped.replace(" = ", "=").replace(", ", ",")
        if stripped.startswith(("return", "for ")):
            lines.append(" " * (indent // 2) + f"# {note}")
        lines.append(line)
    return "\n".join(lines) + "\n\n"


DEAD_CODE = (
    "def unused_check(values):\n"
    "    for v in values:\n"
    "        if v < 0:\n"
    "            print('negative', v)\n"
    "    return len(values)\n\n"
    "if False:\n"
    "    print(sum(range(100)))\n"
    "debug_counter = 0\n"
)


def planted_copy(original, seed, dead_code=False):
    """{grade_id: source}: `original`'s answers renamed, re-commented, re-spaced, with the
    functions moved into the first function cell in reverse order (and dead code)."""
    sources = list(original.values())
    names = own_names(sources)
    mapping = {name: f"{SYNONYMS[(at + seed) % len(SYNONYMS)]}_{at}" for at, name in enumerate(names)}
    copied = {cell: recommented(renamed(source, mapping), f"my answer, step {at + seed}")
              for at, (cell, source) in enumerate(original.items())}
    functions = ["count_parameters_answer", "count_tied_parameters_answer",
                 "model_size_mib_answer", "count_on_meta_answer"]
    together = "".join(copied[cell] for cell in reversed(functions))
    for cell in functions:
        copied[cell] = "# written above\n"
    copied[functions[0]] = together + (DEAD_CODE if dead_code else "")
    return copied


COPIED = {"copier-1": 9, "copier-2": 12, "copier-3": 16, "copier-4": 24, "copier-5": 32,
          "copier-6": 39}  # {copier: the honest student copied}
HONEST = 40


def synthetic_class(honest=HONEST):
    """{student: notebook JSON}: `honest` honest students and the planted copies, and
    [(copier, original)] pairs."""
    students = {}
    for index in range(honest):
        students[f"student-{index:02d}"] = notebook(honest_answers(index),
                                                    HABITS[index % len(HABITS)])
    planted = []
    for number, (copier, index) in enumerate(sorted(COPIED.items())):
        answers = planted_copy(honest_answers(index), number, dead_code=number == 0)
        students[copier] = notebook(answers, HABITS[(index + 2) % len(HABITS)])
        planted.append((copier, f"student-{index:02d}"))
    return students, planted


def hand_in_each(course, students, assignment=ASSIGNMENT):
    """Each student's notebook handed in (testsupport.hand_in) in ``course``: {student:
    notebook JSON}, written to course-data/submitted/<student>/<assignment>/."""
    name = assignments(course)[assignment] + ".ipynb"
    for student, nb in students.items():
        hand_in(course, student, assignment, {name: nb}, timestamp=None)
    return course


def notebook_at_the_caps(cells=300, chars=88_000):
    """A notebook as large as the similarity report's caps let one student's be: `cells`
    added code cells of about `chars` characters each (300 of 88,000 make 27 MB of JSON,
    under the grader's 64 MiB), each a long run of assignments that the next one reads."""
    sources = []
    for cell in range(cells):
        lines, size, at = [], 0, 0
        while size < chars:
            line = f"value_{cell}_{at} = value_{cell}_{max(at - 1, 0)} * {at % 7} + {at}\n"
            lines.append(line)
            size += len(line)
            at += 1
        sources.append(f"value_{cell}_0 = {cell}\n" + "".join(lines) + f"print(value_{cell}_{at - 1})\n")
    return {"cells": [{"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                       "execution_count": None} for source in sources],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def timed_comparison(course, assignment=ASSIGNMENT):
    """The similarity of a course's class of `assignment`, timed as the report computes it:
    (the class's answers, the comparison, seconds to read them, seconds to compare)."""
    import time

    from grader.settings import load
    from grader.similarity import compare_class, read_class

    settings = load(course)
    start = time.perf_counter()
    answers = read_class(settings, assignment)
    read = time.perf_counter()
    comparison = compare_class(answers, settings.similarity_threshold,
                               settings.similarity_common_fraction)
    return answers, comparison, read - start, time.perf_counter() - read
