"""The copy of the course package a sandbox imports (grader.sandbox.package_copy)."""

import os


def test_the_sandboxed_package_has_stubs_for_the_answers_and_the_rest_unchanged(tmp_path):
    import gptcourse
    from grader.sandbox import sandboxed_package

    copy = sandboxed_package("gptcourse", ("count_parameters", "generate_text_simple"),
                             root=str(tmp_path))
    with open(os.path.join(copy, "counting.py"), encoding="utf-8") as handle:
        counting = handle.read()
    assert "p.numel()" not in counting.split("def count_parameters")[1].split("def ")[0]
    assert ("raise RuntimeError('gptcourse.count_parameters is not available while your "
            "homework is graded: write your own count_parameters')") in counting
    with open(os.path.join(os.path.dirname(gptcourse.__file__), "model.py"),
              encoding="utf-8") as handle:
        model = handle.read()
    with open(os.path.join(copy, "model.py"), encoding="utf-8") as handle:
        assert handle.read() == model  # no answer in it: byte for byte the package's
    assert os.path.isfile(os.path.join(copy, "assets", "gpt2.tiktoken"))
