"""Settings that moved to the class that reads them: their old names still work, with a warning.

An nbgrader_config.py written before the move sets ``c.SandboxGrader.variant_salt``;
`check_config` validates such a value as the new setting, says the new name
(`renamed_warning`), and then moves it there (`move_renamed`), the way nbgrader's
own applications move their outdated settings before anything reads them. So
every reader sees only the new names.
"""

from traitlets.config import Config

# (old class, old name) -> (new class, new name)
RENAMED = {
    ("SandboxGrader", "reports_directory"): ("Reports", "directory"),
    ("SandboxGrader", "variant_salt"): ("StudentVariants", "salt"),
    ("SandboxGrader", "similarity_threshold"): ("SimilarityReport", "threshold"),
    ("SandboxGrader", "similarity_common_fraction"): ("SimilarityReport", "common_fraction"),
}


def is_set(config: Config, section: str, name: str) -> bool:
    """Whether `config` sets ``c.<section>.<name>`` (without adding the section)."""
    return section in config and name in config[section]


def renamed_warning(config: Config, section: str, name: str) -> str:
    """What is said of ``c.<section>.<name>``, an old name in `RENAMED`."""
    new_section, new_name = RENAMED[section, name]
    if is_set(config, new_section, new_name):
        return (f"c.{section}.{name} is deprecated and ignored: c.{new_section}.{new_name} "
                "is set too, and counts")
    return (f"c.{section}.{name} is deprecated: it is c.{new_section}.{new_name} now "
            "(the value is used; rename the line)")


def move_renamed(config: Config) -> None:
    """Move every old name of `config` to its new one, unless the new one is set too."""
    for (section, name), (new_section, new_name) in RENAMED.items():
        if not is_set(config, section, name):
            continue
        value = config[section].pop(name)
        if not is_set(config, new_section, new_name):
            config[new_section][new_name] = value
