#!/usr/bin/env python3
"""Runs skills-ref-rs's own `skills-ref validate` (crates.io `skills-ref-rs`) on one input.

skills-ref-rs validates a skill *directory* and requires the directory's name to equal the
skill's `name` (a user names the folder after the skill). A corpus input is a bare SKILL.md
or a skill directory under a name of the harness's choosing, so this adapter does the one
thing a user would do first: it makes a fresh directory named after the skill that links to
the input (the skill directory itself, or its SKILL.md), so every file reaches the tool as
the harness wrote it, then runs the unmodified binary on it. The name is what the tool's own
`skills-ref read-properties` reads; when it reads none, or one that is not a plain path
segment the file system takes, the directory is called `skill` and the tool reports
whatever it reports. Exit codes and output are the tool's.

    adapter.py BINARY PATH      BINARY: the installed skills-ref; PATH: a SKILL.md or a skill directory
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def place(work: Path, name: str, source: Path) -> Path:
    """`work/name`: a link to the skill directory, or a directory linking its SKILL.md."""
    root = work / name
    if source.is_dir():
        root.symlink_to(source, target_is_directory=True)
    else:
        root.mkdir()
        (root / "SKILL.md").symlink_to(source)
    return root


def skill_name(binary: str, root: Path):
    """The `name` the tool reads from the skill at `root`, or None."""
    run = subprocess.run([binary, "read-properties", str(root)], capture_output=True)
    if run.returncode != 0:
        return None
    try:
        name = json.loads(run.stdout).get("name")
    except (ValueError, AttributeError):
        return None
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\0" in name:
        return None
    return name if len(name.encode("utf-8", "surrogatepass")) <= 255 else None


def main(binary: str, argument: str) -> int:
    source = Path(argument).absolute()
    work = Path(tempfile.mkdtemp(prefix="skills-ref-rs-"))
    try:
        root = place(work, "skill", source)
        name = skill_name(binary, root)
        if name is not None and name != "skill":
            try:
                root = place(work, name, source)
            except (OSError, UnicodeEncodeError):  # a name this file system refuses
                pass
        return subprocess.run([binary, "validate", str(root)]).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
