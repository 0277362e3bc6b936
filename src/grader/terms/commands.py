"""The term commands, added to ``python -m grader`` by cli.py (docs/terms.md):

    python -m grader new-term TARGET --term NAME (--start YYYY-MM-DD | --weeks N) [--zone ZONE]
                              [--course-id ID]
                                         next term's course, in a new folder (make new-term)
    python -m grader archive-term [--purge [--archive PATH] [--confirm]]
                                         the term's data in one archive with its checksum;
                                         with --purge the students' files removed after it
    python -m grader restore-term ARCHIVE
                                         an archived term back in the course folder
"""

import argparse
import datetime
import os

from ..settings import CourseError, load
from .archive import write_archive
from .new_term import start_new_term
from .retention import purge_term, restore_term


def start_date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"START={text!r}: give the new term's first day as "
                                         f"YYYY-MM-DD, e.g. 2027-01-18") from None


def add_term_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    new = commands.add_parser("new-term", help="next term's course from this one, in a new "
                              "folder: due dates moved by whole weeks, a new salt, no students")
    new.add_argument("target", help="the new course's folder (must not exist)")
    new.add_argument("--term", required=True, help="the new term's name, e.g. 2027-spring")
    new.add_argument("--start", type=start_date, default=None,
                     help="the new term's first day: the first due date moves to it or the "
                          "first of its weekday after it, the others by as many weeks")
    new.add_argument("--weeks", type=int, default=None,
                     help="move every due date by this many weeks instead")
    new.add_argument("--zone", default="UTC", help="the IANA time zone whose clocks the due "
                     "dates keep (default UTC), e.g. Europe/Berlin")
    new.add_argument("--course-id", default="", help="the new course's id (default: this "
                     "one's with the term replaced, or with the term added where it names none)")
    archive = commands.add_parser("archive-term", help="the term's course data in one "
                                  "archive with a SHA-256 checksum file; --purge removes "
                                  "the students' files after the grace period")
    archive.add_argument("--purge", action="store_true",
                         help="remove every file of the students' work or values (kept: "
                              "grades, item analysis) instead of archiving")
    archive.add_argument("--archive", default="",
                         help="with --purge: the archive that holds them (default: the "
                              "newest in term-archives/)")
    archive.add_argument("--confirm", action="store_true", help="with --purge: do remove")
    restore = commands.add_parser("restore-term", help="an archived term back in the course "
                                  "folder, its checksum checked")
    restore.add_argument("archive")


def run_new_term(args: argparse.Namespace) -> int:
    made = start_new_term(load(args.course), args.target, args.term, args.start, args.zone,
                          args.weeks, args.course_id)
    how = "given" if args.course_id else "named after the term"
    print(f"{made.folder}: next term's course")
    print(f"  course id: {made.course_id} ({how}; this term's is {made.old_course_id})"
          if made.course_id != made.old_course_id else
          f"  course id: {made.course_id}, this term's (given; the new course's exchange is "
          f"its own)")
    print(f"  salt: {made.salt!r}")
    print("  " + (f"due dates moved by {made.weeks} week(s):" if made.due_dates else
                  "no due dates (this term's gradebook holds none; make release DUEDATE=... "
                  "there)"))
    for name, due in made.due_dates.items():
        print(f"  {name}: due {due:%Y-%m-%d %H:%M} UTC")
    tops = sorted({name.split(os.sep)[0] for name in made.carried})
    print(f"  carried: {len(made.carried)} file(s) of {', '.join(tops)}")
    print(f"  left behind: {', '.join(made.left_behind) or 'nothing'}")
    print("no students, grades, reports, queue, released solutions or other state of this "
          "term were carried over; next, in that folder: make setup, then make release (the "
          "students' notebooks with the new salt)")
    return 0


def run_archive_term(args: argparse.Namespace) -> int:
    settings = load(args.course)
    if args.purge:
        for line in purge_term(settings, args.archive, args.confirm):
            print(line)
        return 0
    if args.archive or args.confirm:
        raise CourseError("--archive and --confirm go with --purge (make archive-term PURGE=1)")
    made = write_archive(settings)
    print(f"{made.path}: {len(made.files)} file(s), sha256 {made.sha256}")
    print(f"checksum in {os.path.basename(made.path)}.sha256 (sha256sum -c reads it); keep "
          f"both somewhere other than this machine")
    return 0


def run_restore_term(args: argparse.Namespace) -> int:
    archive, written, kept = restore_term(args.course, args.archive)
    print(f"{archive.path}: checksum {archive.sha256} checked; {len(written)} file(s) "
          f"restored, {len(archive.files) - len(written) - len(kept)} already there")
    for name in kept:
        print(f"kept as it is here (the archive's differs): {name}")
    return 0


TERM_COMMANDS = {"new-term": run_new_term, "archive-term": run_archive_term,
                 "restore-term": run_restore_term}
