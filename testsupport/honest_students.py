"""Honest notebooks in many ordinary styles, for the real assignments.

Each style is how some student really works in Jupyter: an imports cell at the
top, helpers in cells of their own, `display()` and magics, every function in
one cell, a helper module beside the notebook, notes between cells, an old
notebook format, ... Every one earns full marks when run top to bottom in
Jupyter, so the grader must give each exactly its full marks. A style starts
from the released notebook with the instructor's solutions filled in and then
changes what that student would change.
`tests/submissions/test_honest_students.py` grades them all in one run.
"""

import json
from dataclasses import dataclass, field

from testsupport.assignments import ASSIGNMENTS
from testsupport.course import assignments, read_notebook, solution_answers


def grade_id(cell):
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta.get("grade_id") if isinstance(meta, dict) else None


def solved(assignment):
    """The released notebook with every answer cell holding the instructor's solution."""
    nb = read_notebook("exercises", assignment)
    answers = solution_answers(assignment)
    for cell in nb["cells"]:
        if grade_id(cell) in answers:
            cell["source"] = answers[grade_id(cell)]
    return nb


def code(source):
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
            "execution_count": None}


def markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def position(nb, wanted):
    return next(i for i, cell in enumerate(nb["cells"]) if grade_id(cell) == wanted)


def insert_before(wanted, *cells):
    def change(nb):
        at = position(nb, wanted)
        nb["cells"][at:at] = list(cells)
    return change


def insert_after(wanted, *cells):
    def change(nb):
        at = position(nb, wanted) + 1
        nb["cells"][at:at] = list(cells)
    return change


def at_top(*cells):
    def change(nb):
        nb["cells"][0:0] = list(cells)
    return change


def answer(wanted, source):
    def change(nb):
        nb["cells"][position(nb, wanted)]["source"] = source
    return change


def in_place(wanted, edit):
    """The answer's solution source changed by `edit(source) -> source`."""
    def change(nb):
        cell = nb["cells"][position(nb, wanted)]
        cell["source"] = edit("".join(cell["source"]))
    return change


def moved(wanted, distance):
    """The cell `wanted` dragged `distance` places up (negative) or down, as a student drags
    a markdown cell to read it first."""
    def change(nb):
        at = position(nb, wanted)
        cell = nb["cells"].pop(at)
        nb["cells"].insert(min(max(0, at + distance), len(nb["cells"])), cell)
    return change


@dataclass
class Style:
    name: str
    assignment: str
    changes: list
    files: dict = field(default_factory=dict)  # other files handed in beside the notebook
    old_format: bool = False  # written as nbformat 3, as an old Jupyter saves it

    def notebook(self):
        nb = solved(self.assignment)
        for change in self.changes:
            change(nb)
        return nb

    def handed_in(self):
        """{file name: bytes} the student submits."""
        nb = self.notebook()
        if self.old_format:
            import nbformat

            current = nbformat.reads(json.dumps(nb), as_version=4)  # sources as one string
            text = nbformat.writes(nbformat.convert(current, 3), version=3)
        else:
            text = json.dumps(nb, indent=1, ensure_ascii=False)
        files = {assignments()[self.assignment] + ".ipynb": text.encode("utf-8")}
        files.update({name: content.encode("utf-8") for name, content in self.files.items()})
        return files


P, L = "parameters", "logits-to-text"

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
    # ------------------------------------------------------------ every assignment
    *[Style(f"{a}-as-written", a, []) for a in ASSIGNMENTS],
    *[Style(f"{a}-imports-cell-at-top", a, [at_top(code(
        "import math\nimport numpy as np\nimport torch\nfrom gptcourse import GPTModel"))])
      for a in ASSIGNMENTS],
    *[Style(f"{a}-imports-cell-after-setup", a, [insert_after("setup", code(
        "import collections\nimport functools\nimport numpy as np"))]) for a in ASSIGNMENTS],
    *[Style(f"{a}-autoreload-and-inline-plots", a, [at_top(code(
        "%load_ext autoreload\n%autoreload 2\n%matplotlib inline"))]) for a in ASSIGNMENTS],
    *[Style(f"{a}-notes-between-cells", a, [
        at_top(markdown("My notes: run the set-up cell first.")),
        insert_after("setup", markdown("*The model is untied here.*")),
        lambda nb: nb["cells"].append(markdown("Done! Questions for office hours: none."))])
      for a in ASSIGNMENTS],
    *[Style(f"{a}-saved-with-outputs", a, [lambda nb: [
        cell.update(outputs=[{"output_type": "stream", "name": "stdout", "text": "ran\n"}],
                    execution_count=number)
        for number, cell in enumerate(nb["cells"], 1) if cell["cell_type"] == "code"]])
      for a in ASSIGNMENTS],
    *[Style(f"{a}-old-notebook-format", a, [], old_format=True) for a in ASSIGNMENTS],
    *[Style(f"{a}-scratch-cells-after-the-checks", a, [lambda nb: nb["cells"].extend([
        code("print('all checks above ran')"), code("x = [i * i for i in range(10)]\nx[-1]"),
        code("!echo done")])]) for a in ASSIGNMENTS],
    # markdown cells dragged up and down: the run and the score are the same
    Style("parameters-markdown-dragged-up-three-cells", P, [moved("size-intro", -3)]),
    Style("parameters-markdown-dragged-up-two-cells", P, [moved("tied-intro", -2)]),
    Style("parameters-later-section-read-first", P, [moved("size-intro", -17)]),
    Style("parameters-markdown-dragged-up-one-cell", P, [moved("meta-task", -1)]),
    Style("parameters-markdown-dragged-down", P, [moved("count-parameters-intro", 4)]),
    Style("parameters-markdown-dragged-to-the-end", P, [moved("values-intro", 40)]),
    Style("logits-to-text-markdown-dragged-up", L, [moved("generate-intro", -7)]),
    # ------------------------------------------------------------ parameters
    Style("parameters-star-import-in-a-scratch-cell", P, [insert_after("tied_params_value", code(
        "from gptcourse import *  # to try tie_weights\nprint(tie_weights.__doc__)"))]),
    Style("parameters-helper-above-the-answer", P, HELPER_ABOVE_THE_ANSWER),
    Style("parameters-helper-below-the-answer", P, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n    return sum(size_of(p) for p in model.parameters())\n"),
        insert_after("count_parameters_answer", code(
            "def size_of(tensor):\n    n = 1\n    for d in tensor.shape:\n        n *= d\n    return n"))]),
    Style("parameters-display-and-timing-magics", P, [
        in_place("output_shape_answer", lambda s: "%%time\n" + s.rstrip() + "\ndisplay(output_shape)\n"),
        in_place("values_answer", lambda s: s.rstrip() + "\n%time total_params = count_parameters(my_model)\n"
                                                "display(total_params, out_head_params)\n"),
        insert_after("values_answer", code("%timeit -n 1 -r 1 count_parameters(model)"))]),
    Style("parameters-every-function-in-one-cell", P, [
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
    Style("parameters-explicit-loops", P, [
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
    Style("parameters-numpy-and-torch-numel", P, [
        insert_after("setup", code("import numpy as np")),
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    return int(sum(np.prod(p.shape) for p in model.parameters()))\n"),
        answer("model_size_mib_answer",
               "def model_size_mib(model):\n"
               "    return float(count_parameters(model) * np.float32().itemsize / (1024 * 1024))\n")]),
    Style("parameters-torch-numel-and-map", P, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    return sum(map(torch.numel, model.parameters()))\n")]),
    Style("parameters-rebuilds-the-model-with-the-same-seed", P, [
        insert_before("values_answer", code(
            "torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval();"))]),
    Style("parameters-underscore-and-get-ipython", P, [
        answer("values_answer",
               "count_parameters(my_model)\n"),
        insert_after("values_answer", code(
            "total_params = _\n"
            "out_head_params = my_model.out_head.weight.numel()\n"
            "tied_params = total_params - out_head_params\n"
            "get_ipython().run_line_magic('time', 'x = total_params + 1')"))]),
    Style("parameters-type-hints-and-docstrings", P, [
        answer("count_tied_parameters_answer",
               "def count_tied_parameters(model: torch.nn.Module) -> int:\n"
               "    \"\"\"Parameters with the output head tied to the token embedding.\"\"\"\n"
               "    head = model.out_head.weight\n"
               "    already_tied = head is model.tok_emb.weight\n"
               "    return count_parameters(model) - (0 if already_tied else head.numel())\n")]),
    Style("parameters-helper-module-beside-the-notebook", P, [
        insert_before("count_parameters_answer", code("from my_helpers import unique_numel")),
        answer("count_parameters_answer",
               "def count_parameters(model):\n    return unique_numel(model.parameters())\n")],
          files={"my_helpers.py": "def unique_numel(parameters):\n"
                                  "    unique = {id(p): p.numel() for p in parameters}\n"
                                  "    return sum(unique.values())\n"}),
    # on Colab or a laptop: the student types their own id, and looks at their model
    Style("parameters-typed-own-id-on-a-laptop", P, [
        lambda nb: nb["cells"][position(nb, "student_id")].update(
            source='STUDENT_ID = "parameters-typed-own-id-on-a-laptop"\n'),
        insert_after("own-model", code("print(my_config)\nmy_model"))]),
    # tying my_model in place once it is counted (the task says not to, but the counts
    # were taken first): the checks count from my_config, so nothing is lost
    Style("parameters-ties-my-model-after-counting", P, [
        answer("values_answer",
               "total_params = count_parameters(my_model)\n"
               "out_head_params = my_model.out_head.weight.numel()\n"
               "tied_params = count_parameters(tie_weights(my_model))  # my_model tied from here\n"
               "print(my_model.out_head.weight is my_model.tok_emb.weight)\n")]),
    Style("parameters-prints-while-counting", P, [
        answer("count_parameters_answer",
               "def count_parameters(model):\n"
               "    total = sum(p.numel() for p in model.parameters())\n"
               "    print(f'counted {total:,} parameters')\n"
               "    return total\n")]),
    # ------------------------------------------------------------ logits-to-text
    Style("logits-to-text-helper-above-the-answer", L, [
        insert_before("next_token_ids_answer", code(
            "def last_position(logits):\n    return logits[:, -1, :]")),
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    return torch.argmax(last_position(logits), dim=-1, keepdim=True)\n")]),
    Style("logits-to-text-softmax-before-argmax", L, [
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    probas = torch.softmax(logits[:, -1, :], dim=-1)\n"
               "    return torch.argmax(probas, dim=-1, keepdim=True)\n")]),
    Style("logits-to-text-display-and-timing-magics", L, [
        in_place("generated_text_answer", lambda s: "%%time\n" + s.rstrip() + "\ndisplay(generated_text)\n"),
        insert_after("next_token_ids_answer", code("%time next_token_ids(prompt_logits)"))]),
    Style("logits-to-text-list-and-tensor-variants", L, [
        answer("text_to_token_ids_answer",
               "def text_to_token_ids(text, tokenizer):\n"
               "    return torch.tensor([tokenizer.encode(text)], dtype=torch.long)\n"),
        answer("token_ids_to_text_answer",
               "def token_ids_to_text(token_ids, tokenizer):\n"
               "    return tokenizer.decode(token_ids[0].tolist())\n")]),
    Style("logits-to-text-while-loop-and-inference-mode", L, [
        answer("generate_text_simple_answer",
               "def generate_text_simple(model, idx, max_new_tokens, context_size):\n"
               "    steps = 0\n"
               "    while steps < max_new_tokens:\n"
               "        with torch.inference_mode():\n"
               "            logits = model(idx[:, -context_size:])\n"
               "        idx = torch.cat((idx, next_token_ids(logits)), dim=1)\n"
               "        steps += 1\n"
               "    return idx\n")]),
    Style("logits-to-text-every-function-in-one-cell", L, [
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    return logits[:, -1, :].argmax(dim=-1, keepdim=True)\n\n\n"
               "def text_to_token_ids(text, tokenizer):\n"
               "    return torch.tensor(tokenizer.encode(text)).unsqueeze(0)\n\n\n"
               "def token_ids_to_text(token_ids, tokenizer):\n"
               "    return tokenizer.decode(token_ids.squeeze(0).tolist())\n"),
        answer("text_to_token_ids_answer", "# all three functions are in the first answer cell\n"),
        answer("token_ids_to_text_answer", "pass\n")]),
    Style("logits-to-text-reseeds-before-generating", L, [
        insert_before("generated_text_answer", code(
            "torch.manual_seed(123)\nmodel = GPTModel(GPT_CONFIG_124M)\nmodel.eval()\nprint('rebuilt')"))]),
]

CASES = {style.name: style for style in STYLES}

# Colab students on the release with a model of each student's own: each types their id,
# looks at what they compute, keeps a helper or a scratch cell beside an answer, and
# pastes every cell into a fresh Colab notebook, which drops nbgrader's metadata
# (testsupport.editors.colab_saved); each answer still stands between the released cells
# around it
COLAB_CHANGES = {
    P: lambda student: [
        lambda nb: nb["cells"][position(nb, "student_id")].update(
            source=f'STUDENT_ID = "{student}"  # typed in Colab\n'),
        insert_after("own-model", code("print(my_config)\nmy_model")),
        *HELPER_ABOVE_THE_ANSWER,
        insert_before("values_answer", code("first = next(my_model.parameters())\nfirst.shape"))],
    L: lambda student: [
        insert_before("next_token_ids_answer", code(
            "def last_position(logits):\n    return logits[:, -1, :]")),
        answer("next_token_ids_answer",
               "def next_token_ids(logits):\n"
               "    return torch.argmax(last_position(logits), dim=-1, keepdim=True)\n"),
        insert_before("generated_text_answer", code(
            "out_ids = text_to_token_ids('Hello, I am', tokenizer)  # the prompt first\n"
            "print(out_ids.shape)"))],
}


def colab_notebook(assignment, student):
    """The solved notebook of `assignment` changed as `student` works in Colab
    (COLAB_CHANGES), its nbgrader metadata still in it."""
    nb = solved(assignment)
    for change in COLAB_CHANGES[assignment](student):
        change(nb)
    return nb


def colab_student(assignment, student):
    """The notebook `student` saves from Colab for `assignment`: `colab_notebook`'s cells
    pasted into a fresh Colab notebook, without nbgrader's metadata."""
    from testsupport.editors import colab_saved

    return colab_saved(colab_notebook(assignment, student))
