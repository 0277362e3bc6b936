"""nbgrader settings of every student's server: the course and the shared exchange."""

c = get_config()  # noqa: F821 (nbgrader defines get_config when it loads this file)

c.CourseDirectory.course_id = "gptcourse"
c.Exchange.root = "/srv/nbgrader/exchange"
