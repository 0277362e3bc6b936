"""The feedback's commands, added to ``python -m grader`` by cli.py:

    python -m grader release-feedback ASSIGNMENT
    python -m grader feedback-zip ASSIGNMENT
"""

import argparse

from ..settings import lines_of_one_assignment
from .exchange import release_feedback
from .lms_zip import write_feedback_zip


def add_handback_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                          ) -> None:
    for name, what in (("release-feedback", "feedback through the exchange, and who needs "
                                            "another way"),
                       ("feedback-zip", "the feedback of students collected from an LMS, "
                                        "zipped for it")):
        command = commands.add_parser(name, help=what)
        command.add_argument("assignment")


HANDBACK_COMMANDS = {"release-feedback": lines_of_one_assignment(release_feedback),
                     "feedback-zip": lines_of_one_assignment(write_feedback_zip)}
