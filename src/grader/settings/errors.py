"""The two errors that are the instructor's to fix, never a student's."""


class CourseError(Exception):
    """The course set-up is wrong: the configuration, a name, the gradebook, a missing file."""


class SandboxError(RuntimeError):
    """The sandbox itself could not be started: the grading machine's set-up."""
