"""Which names of the solution cells are the answers a check asks the kernel for."""


def test_answer_names_are_the_top_level_names_of_the_solution_cells():
    from grader.checks import answer_names

    names = answer_names(["def f(x):\n    inner = 1\n    return x\n",
                          "with open('a') as h:\n    total = 3\nfor name in []:\n    pass\n",
                          "import numpy as np\nclass C:\n    attr = 1\n", "%matplotlib inline\nz = 1"])
    assert names == {"f", "h", "total", "name", "C", "z"}  # imports are not answers
