"""What the browser tests share: Debian's Chromium through Playwright, and axe-core's check.

axe-core comes from npm into .book-deps/ (`make test` installs the Makefile's
AXE_VERSION) and is injected into each page from that file, so nothing is fetched; a
copy of another version is reported as missing, since its rules differ. A page is checked against
the WCAG 2.0 and 2.1 A and AA rules; a rule is switched off only by name, with
the reason beside it, in the test that does so.
"""

import contextlib
import json
import re
from pathlib import Path

from testsupport.course import ROOT as COURSE_ROOT

ROOT = Path(COURSE_ROOT).resolve()
AXE = ROOT / ".book-deps" / "node_modules" / "axe-core" / "axe.min.js"
AXE_PACKAGE = AXE.parent / "package.json"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# How long a browser test waits for what happens when the page works: long, so that a busy
# machine makes a test slower, never failed. A wait that must not succeed checks at once.
WAIT_MS = 60_000

_RUN_AXE = """async ([tags, disabled]) => {
  const rules = Object.fromEntries(disabled.map(id => [id, {enabled: false}]));
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}, rules});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "),
                              summary: (n.failureSummary || "").split("\\n").slice(1, 3)
                                       .map(s => s.trim()).join(" ")})),
  }));
}"""


def pinned_axe_version() -> str:
    """AXE_VERSION in the Makefile: the axe-core release the checks run."""
    found = re.search(r"^AXE_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, "the Makefile sets no AXE_VERSION"
    return found.group(1)


def installed_axe_version() -> str | None:
    """The version of the axe-core copy in .book-deps/, or None when there is none."""
    if not AXE.exists() or not AXE_PACKAGE.exists():
        return None
    return json.loads(AXE_PACKAGE.read_text(encoding="utf-8")).get("version")


def missing_tools() -> str | None:
    """Why the browser check cannot run here (Chromium or the pinned axe-core missing),
    or None."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing: `make system` installs Debian's chromium"
    installed, pinned = installed_axe_version(), pinned_axe_version()
    if installed is None:
        return f"{AXE.relative_to(ROOT)} is missing: `make test` installs axe-core {pinned}"
    if installed != pinned:
        return (f"{AXE.relative_to(ROOT)} is axe-core {installed}, not the Makefile's "
                f"{pinned}: `make test` installs it")
    return None


@contextlib.contextmanager
def chromium(profile: str):
    """Debian's Chromium, headless, with a fresh profile in the folder `profile`, driven
    through Playwright: a browser context whose pages open at desktop size."""
    from playwright.sync_api import sync_playwright  # imports slowly: only for browser tests

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport=DESKTOP,
        )
        context.set_default_timeout(WAIT_MS)
        context.set_default_navigation_timeout(WAIT_MS)
        try:
            yield context
        finally:
            context.close()


def axe_violations(page, disabled=()) -> list:
    """axe-core's WCAG 2.1 A and AA violations on the page, with the rules in `disabled` off:
    [{id, impact, help, nodes: [{target, summary}]}]."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(_RUN_AXE, [WCAG_TAGS, list(disabled)])


def violations_report(violations: list) -> str:
    """Each violation: rule id, impact, what it asks, and the first few elements."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} [{len(v['nodes'])} elements]")
        for node in v["nodes"][:6]:
            lines.append(f"    {node['target']}: {node['summary'][:200]}")
        if len(v["nodes"]) > 6:
            lines.append(f"    ... and {len(v['nodes']) - 6} more")
    return "\n".join(lines)
