"""The students' wheel: gptcourse and its assets, nothing of the grader, working on its own.

`pip install gptcourse` on Colab or a laptop installs this wheel: it must bring the
course package and no module of the grader, and work in an environment that holds
only it, torch, numpy and tiktoken.
"""

import os

import pytest

from testsupport.distributions import (build_wheel, fresh_environment, project_copy, run_python,
                                       wheel_files, wheel_metadata)

pytestmark = pytest.mark.slow  # builds a wheel and a venv


@pytest.fixture(scope="module")
def students_wheel(tmp_path_factory):
    """The wheel pip builds of the repository's root project (src/ whole, the grader in it)."""
    folder = tmp_path_factory.mktemp("students-wheel")
    project = project_copy(str(folder / "project"), "pyproject.toml", "README.md", "src")
    return build_wheel(project, str(folder / "dist"))


@pytest.fixture(scope="module")
def students_environment(students_wheel, tmp_path_factory):
    """(python, folder) of a fresh venv with only the students' wheel and its three
    dependencies (linked read-only from this environment)."""
    folder = str(tmp_path_factory.mktemp("students-environment"))
    python, linked = fresh_environment(folder, students_wheel)
    assert {"torch", "numpy", "tiktoken"} <= linked
    assert not linked & {"grader", "gptcourse", "nbgrader", "nbformat", "traitlets"}, linked
    return python, folder


def test_the_students_wheel_holds_gptcourse_and_its_assets_and_no_module_of_the_grader(
        students_wheel):
    files = wheel_files(students_wheel)
    packages = {name.split("/")[0] for name in files if not name.split("/")[0].endswith(
        ".dist-info")}
    assert packages == {"gptcourse"}
    assert "gptcourse/__init__.py" in files and "gptcourse/model.py" in files
    assert any(name.startswith("gptcourse/assets/") for name in files)
    # the small trained GPT of the pages, its text and its losses: pages run anywhere
    assert {"gptcourse/story.py", "gptcourse/assets/small_gpt.pt",
            "gptcourse/assets/small_gpt_losses.json", "gptcourse/assets/the-verdict.txt",
            "gptcourse/assets/the-verdict.txt.LICENSE"} <= set(files)
    assert not [name for name in files if name.startswith("grader/") or "/grader/" in name]


def test_the_students_wheel_needs_torch_tiktoken_and_numpy_only(students_wheel):
    info = wheel_metadata(students_wheel)
    assert info["Name"] == "gptcourse"
    assert sorted(info.get_all("Requires-Dist")) == ["numpy", "tiktoken", "torch"]
    assert info.get_all("Provides-Extra") is None


def test_in_a_fresh_environment_gptcourse_counts_the_124M_model_and_reads_text(
        students_environment):
    python, folder = students_environment
    done = run_python(python, (
        "import gptcourse\n"
        "model = gptcourse.build_on_meta(gptcourse.GPT_CONFIG_124M)\n"
        "print(gptcourse.count_parameters(model), gptcourse.count_tied_parameters(model))\n"
        "tokenizer = gptcourse.get_tokenizer()\n"
        "ids = gptcourse.text_to_token_ids('Hello, I am', tokenizer)\n"
        "print(gptcourse.token_ids_to_text(ids, tokenizer))\n"
        "print(gptcourse.__file__)\n"), folder)
    assert done.returncode == 0, done.stderr[-3000:]
    counts, text, location = done.stdout.splitlines()
    assert counts == "163009536 124412160"
    assert text == "Hello, I am"
    assert location.startswith(os.path.join(folder, "env")), location  # the wheel's copy


def test_in_a_fresh_environment_no_module_of_the_grader_imports(students_environment):
    python, folder = students_environment
    done = run_python(python, (
        "import importlib.util\n"
        "print([importlib.util.find_spec(name) is None for name in "
        "('grader', 'nbgrader', 'nbformat')])\n"
        "import grader\n"), folder)
    assert done.stdout.strip() == "[True, True, True]", done.stdout + done.stderr
    assert done.returncode == 1
    assert "ModuleNotFoundError: No module named 'grader'" in done.stderr


def test_in_a_fresh_environment_gptcourse_loads_and_inspects_a_safetensors_file_by_itself(
        students_environment):
    """Neither safetensors nor transformers is there: the wheel reads the format itself."""
    python, folder = students_environment
    done = run_python(python, (
        "import importlib.util, json, struct, torch, gptcourse\n"
        "print([importlib.util.find_spec(n) is None for n in ('safetensors', 'transformers')])\n"
        "cfg = {'vocab_size': 50, 'context_length': 8, 'emb_dim': 16, 'n_heads': 2,\n"
        "       'n_layers': 2, 'drop_rate': 0.0, 'qkv_bias': True}\n"
        "torch.manual_seed(0)\n"
        "model = gptcourse.tie_weights(gptcourse.GPTModel(cfg)).eval()\n"
        "header, data = {}, b''\n"
        "for name, t in model.state_dict().items():\n"
        "    if name.endswith('.att.mask') or name == 'out_head.weight':\n"
        "        continue\n"
        "    raw = t.contiguous().numpy().tobytes()\n"
        "    header[name] = {'dtype': 'F32', 'shape': list(t.shape),\n"
        "                    'data_offsets': [len(data), len(data) + len(raw)]}\n"
        "    data += raw\n"
        "text = json.dumps(header).encode()\n"
        "with open('tiny.safetensors', 'wb') as f:\n"
        "    f.write(struct.pack('<Q', len(text)) + text + data)\n"
        "loaded = gptcourse.load_gpt2('tiny.safetensors', n_heads=2)\n"
        "ids = torch.tensor([[1, 2, 3, 49]])\n"
        "print(gptcourse.is_tied(loaded), torch.equal(loaded(ids), model(ids)))\n"
        "report = gptcourse.format_report(gptcourse.inspect_checkpoint('tiny.safetensors', 2))\n"
        "print(report.splitlines()[10])\n"), folder)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["[True, True]", "True True",
                                        "parameters: 8,320 untied, 7,520 tied"]
