"""LMS downloads made here, named as Canvas and Moodle name their files.

Canvas's *Download Submissions*: `{name}_{late_}{user id}_{attachment id}_{file name}`,
the name being the sortable name ("Doe, Jane") in lower case, letters only; a file
uploaded again under a name already used gets `-1`. Moodle's *Download all
submissions*: `{full name}_{participant id}_assignsubmission_file_{file name}`, or in
folders `{full name}_{participant id}_assignsubmission_file_/{file name}`. Also
Canvas's gradebook export, and zips that try to escape where they are unpacked.
"""

import datetime
import io
import struct
import warnings
import zipfile

from testsupport.hand_in import file_bytes


def canvas_name(first, last, user_id, attachment_id, file_name, late=False):
    sortable = "".join(c for c in f"{last}{first}".lower() if c.isalnum())
    return f"{sortable}_{'late_' if late else ''}{user_id}_{attachment_id}_{file_name}"


def moodle_name(first, last, participant_id, file_name, folders=False):
    return (f"{first} {last}_{participant_id}_assignsubmission_file_"
            f"{'/' if folders else ''}{file_name}")


def utc_extra(moment):
    """The zip extra field 0x5455 (extended timestamp) holding `moment`'s Unix time."""
    seconds = int(moment.replace(tzinfo=datetime.timezone.utc).timestamp())
    return struct.pack("<HHBi", 0x5455, 5, 1, seconds)


def write_zip(path, entries):
    """A zip at `path` of `entries` [(name, content, naive UTC time)]; each entry's date and
    time is its UTC time, as an LMS server writes them; content as hand_in writes files."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content, moment in entries:
            info = zipfile.ZipInfo(name, moment.timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, file_bytes(content))
    return path


def canvas_gradebook_export(students, assignment="tiny", assignment_id=4242):
    """Canvas's "Export Entire Gradebook" CSV for `students` [(first, last, canvas id,
    sis user id, sis login id, section)]: the Points Possible row first, the test student
    last, and the score columns Canvas adds."""
    column = f"{assignment} ({assignment_id})"
    lines = ["Student,ID,SIS User ID,SIS Login ID,Section," + column +
             ",Current Score,Unposted Current Score,Final Score",
             f"    Points Possible,,,,,6.00,(read only),(read only),(read only)"]
    for first, last, canvas_id, sis_user, sis_login, section in students:
        lines.append(f'"{last}, {first}",{canvas_id},{sis_user},{sis_login},{section},,,,')
    lines.append('"Student, Test",999999,,,Section A,,,,')
    return "\n".join(lines) + "\n"


# --- zips that must be refused whole ------------------------------------------------

def raw_zip(infos_and_data):
    """Zip bytes of [(ZipInfo, bytes)] written as they are."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a name written twice is what some tests want
        for info, data in infos_and_data:
            archive.writestr(info, data)
    return buffer.getvalue()


def with_info(name, data=b"{}", **fields):
    info = zipfile.ZipInfo(name, (2026, 1, 15, 12, 0, 0))
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


def symlink_entry(name, target="/etc/passwd"):
    info = zipfile.ZipInfo(name, (2026, 1, 15, 12, 0, 0))
    info.create_system = 3
    info.external_attr = (0o120777 << 16)
    return info, target.encode()


def bomb_zip(size):
    """A zip whose one entry is `size` zero bytes, a few kilobytes compressed."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("doejane_12345_67890_tiny.ipynb", "w", force_zip64=True) as handle:
            chunk = b"\0" * 2**20
            for _ in range(size // len(chunk)):
                handle.write(chunk)
    return buffer.getvalue()


def encrypted_zip(good):
    """`good` zip bytes with the first entry's 'encrypted' flag set, in both headers."""
    data = bytearray(good)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        data[at + offset] |= 0x1
    return bytes(data)


# --- a class graded, then collected again -----------------------------------------

def graded_as_handed_in(settings, assignment, student, page="tiny.html"):
    """Records the submission of `student` in submitted/ as graded, as an autograde would
    (the gradebook's timestamp is its timestamp.txt's), and writes its feedback page, as
    make feedback would, saying when it was handed in; returns that time."""
    import os

    from nbgrader.api import Gradebook

    from grader.recording import read_timestamp

    moment, _ = read_timestamp(os.path.join(settings.submitted, student, assignment))
    with Gradebook(settings.db_url, settings.course_id) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's own update warns of its session
        gb.update_or_create_submission(assignment, student, timestamp=moment)
    folder = os.path.join(settings.feedback, student, assignment)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, page), "w", encoding="utf-8") as handle:
        handle.write(f"the page of {student}'s notebook of {moment}")
    return moment


def two_canvas_students_collected(tmp_path, handed_in):
    """A tiny course with Alice and Bob on its roster (a Canvas export), each with a correct
    notebook collected from a Canvas zip at `handed_in` (a naive UTC datetime), not graded;
    returns (course folder, settings)."""
    from grader.intake import collect_zip
    from grader.reports import import_roster
    from grader.settings import load
    from testsupport.tiny_course import ASSIGNMENT, correct, make_course, released

    course = make_course(str(tmp_path / "course"))
    export = tmp_path / "export.csv"
    export.write_text(canvas_gradebook_export([("Alice", "Liddell", 101, "S-1", "alice", "A"),
                                               ("Bob", "Builder", 102, "S-2", "bob", "B")]),
                      encoding="utf-8")
    settings = load(course)
    import_roster(settings, str(export))
    notebook = correct(released(course))
    collect_zip(settings, ASSIGNMENT, write_zip(str(tmp_path / "first.zip"), [
        (canvas_name("Alice", "Liddell", 101, 1, "tiny.ipynb"), notebook, handed_in),
        (canvas_name("Bob", "Builder", 102, 2, "tiny.ipynb"), notebook, handed_in)]))
    return course, settings


def two_canvas_students_graded(tmp_path, handed_in):
    """`two_canvas_students_collected`, each student's notebook then graded as handed in."""
    from testsupport.tiny_course import ASSIGNMENT

    course, settings = two_canvas_students_collected(tmp_path, handed_in)
    for student in ("alice", "bob"):
        graded_as_handed_in(settings, ASSIGNMENT, student)
    return course, settings
