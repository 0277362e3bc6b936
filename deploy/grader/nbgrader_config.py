"""nbgrader settings of a grader's server: the shared exchange and the course folder.

The course folder is the repository cloned into the grader's home as ~/gptcourse;
its own nbgrader_config.py (gradebook, sandboxed grading, feedback) is loaded
too, so formgrader and the terminal's nbgrader commands use the same settings.
"""

import os

c = get_config()  # noqa: F821 (nbgrader defines get_config when it loads this file)

COURSE = os.path.expanduser("~/gptcourse")

c.CourseDirectory.course_id = "gptcourse"
c.Exchange.root = "/srv/nbgrader/exchange"
c.CourseDirectory.root = COURSE
load_subconfig(os.path.join(COURSE, "nbgrader_config.py"))  # noqa: F821
