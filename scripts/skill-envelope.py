#!/usr/bin/env python3
"""Runs a validator of skill *directories* on a skill package envelope: unpacks the
envelope's files into a temporary directory named `skill` and runs COMMAND with `{dir}`
replaced by it. The implementations' own adapters (implementations/*/adapter.*) then name
the directory after the skill, as they do for a corpus case.

    soulcheck fuzz --format skill-package --validator 'python3 scripts/skill-envelope.py \
        {path} python3 implementations/skills-ref-rs/adapter.py target/implementations/skills-ref-rs/bin/skills-ref {dir}'

The validator's exit code, or 1 when the envelope cannot be unpacked (said on stderr, so a
disagreement shows which). The adaptor checks only what it needs to unpack (a files array
of string paths and contents, no path twice, a string headPath); the rest of the envelope
(version, kind, content types) is nobody's to check here, so findings about those rules
are the adaptor's, not the validator's. Used for the campaigns in docs/fuzzing.md.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile


def refuse(reason: str) -> int:
    print(f"envelope not unpacked: {reason}", file=sys.stderr)
    return 1


def main(path: str, command: list) -> int:
    try:
        with open(path, encoding="utf-8") as handle:
            envelope = json.load(handle)
    except (OSError, ValueError) as error:
        return refuse(f"not JSON: {error}")
    if not isinstance(envelope, dict) or not isinstance(envelope.get("files"), list):
        return refuse("no files array")
    head = envelope.get("headPath", "SKILL.md")
    if not isinstance(head, str):
        return refuse("headPath is not a string")
    files = {}
    for entry in envelope["files"]:
        if not isinstance(entry, dict):
            return refuse("a file entry is not an object")
        name, content = entry.get("path"), entry.get("content")
        if not isinstance(name, str) or not isinstance(content, str):
            return refuse("a file entry without a string path and content")
        parts = name.split("/")
        if name.startswith("/") or any(part in ("", ".", "..") for part in parts):
            return refuse(f"path {name!r} cannot be unpacked")
        if name in files:
            return refuse(f"path {name!r} twice")
        files[name] = content
    if head not in files:
        return refuse(f"no file at the head path {head!r}")
    work = tempfile.mkdtemp(prefix="skill-envelope-")
    try:
        root = os.path.join(work, "skill")
        os.mkdir(root)
        for name, content in files.items():
            target = os.path.join(root, *name.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="") as handle:
                handle.write(content)
        if head != "SKILL.md":
            shutil.copyfile(os.path.join(root, *head.split("/")), os.path.join(root, "SKILL.md"))
        return subprocess.run([word.replace("{dir}", root) for word in command]).returncode
    except (OSError, ValueError) as error:
        # A name the file system cannot hold (a NUL, an over-long segment).
        return refuse(str(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
