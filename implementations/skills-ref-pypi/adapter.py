#!/usr/bin/env python3
"""Runs skills-ref's own `agentskills validate` on one corpus input.

skills-ref validates a skill *directory* and requires the directory's name to equal the
skill's `name` (a user names the folder after the skill). A corpus input is a bare SKILL.md
or a skill directory under a name of the harness's choosing, so this adapter does the one
thing a user would do first: it copies the input into a fresh directory named after the
skill, then hands that directory to the unmodified command line (`skills_ref.cli.main`, what
the `agentskills` script calls), in this process. The directory holds a symbolic link to the
input (its SKILL.md, or the whole skill directory), so nothing is copied and every file
reaches skills-ref as the harness wrote it; skills-ref takes the directory's name as given
(`Path.name`, not resolved). The name is read with skills-ref's own parser; when it cannot
be read, or is not one plain path segment the file system takes, the directory is called
`skill` and skills-ref reports whatever it reports. Nothing else is checked or changed:
exit codes, output and uncaught errors (a traceback, which soulcheck grades as a crash) are
skills-ref's.

    adapter.py PATH      PATH: a SKILL.md file or a skill directory
"""

import os
import shutil
import sys
import tempfile
from pathlib import Path

from skills_ref import cli, parser


def skill_name(source: Path):
    """The `name` skills-ref reads from the input's SKILL.md, or None."""
    head = source if source.is_file() else parser.find_skill_md(source)
    if head is None:
        return None
    try:
        metadata, _ = parser.parse_frontmatter(head.read_text(encoding="utf-8"))
    except Exception:  # what skills-ref refuses, it refuses again below, in its own words
        return None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str):
        return None
    name = name.strip()
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate: no file name holds it
        return None
    plain = name not in ("", ".", "..") and "/" not in name and "\0" not in name
    return name if plain and size <= 255 else None


def place(work: Path, name: str, source: Path) -> Path:
    """`work/name`: a link to the skill directory, or a directory linking its SKILL.md."""
    root = work / name
    if source.is_dir():
        root.symlink_to(source, target_is_directory=True)
    else:
        root.mkdir()
        (root / "SKILL.md").symlink_to(source)
    return root


def main(argument: str) -> int:
    source = Path(argument)
    work = tempfile.mkdtemp(prefix="skills-ref-")
    try:
        source = source.absolute()
        try:
            root = place(Path(work), skill_name(source) or "skill", source)
        except OSError:  # a name this file system refuses (too long in its encoding, say)
            root = place(Path(work), "skill", source)
        try:
            cli.main(args=["validate", str(root)], prog_name="agentskills")
        except SystemExit as exit:
            code = exit.code
            return code if isinstance(code, int) else (0 if code is None else 1)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
