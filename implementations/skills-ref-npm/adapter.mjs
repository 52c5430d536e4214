#!/usr/bin/env node
// Runs skills-ref's own `skills-ref validate` (npm package skills-ref) on one corpus input.
//
// skills-ref validates a skill directory and requires the directory's name to equal the
// skill's `name` (a user names the folder after the skill). A corpus input is a bare
// SKILL.md or a skill directory under a name of the harness's choosing, so this adapter does
// the one thing a user would do first: it makes a fresh directory named after the skill that
// links to the input (the skill directory itself, or its SKILL.md), so every file reaches
// skills-ref as the harness wrote it, and runs the unmodified command line (the package's
// dist/cli.js) on it, in this process. The name is read with skills-ref's own parser; when
// it cannot be read, or is not one plain path segment the file system takes, the directory
// is called `skill` and skills-ref reports whatever it reports. Exit codes, output and
// uncaught errors are skills-ref's.
//
//     node adapter.mjs MODULES PATH
//
// MODULES: the node_modules folder `npm ci` made from this folder's package-lock.json
// (install.sh); PATH: a SKILL.md file or a skill directory.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, input] = process.argv.slice(2);
const dist = path.join(path.resolve(modules), "skills-ref", "dist");
const { findSkillMd, parseFrontmatter } = await import(pathToFileURL(path.join(dist, "index.js")));
const cli = path.join(dist, "cli.js");

async function skillName(source, isDirectory) {
    const head = isDirectory ? await findSkillMd(source) : source;
    if (head === null) {
        return null;
    }
    let name;
    try {
        // skills-ref reads with fs.readFile(..., "utf-8"), which is this.
        [{ name }] = parseFrontmatter(readFileSync(head, "utf-8"));
    } catch {
        return null; // what skills-ref refuses, it refuses again below, in its own words
    }
    if (typeof name !== "string") {
        return null;
    }
    name = name.trim();
    const plain = !["", ".", ".."].includes(name) && !name.includes("/") && !name.includes("\0");
    return plain && Buffer.byteLength(name) <= 255 && name.isWellFormed?.() !== false ? name : null;
}

function place(work, name, source, isDirectory) {
    const root = path.join(work, name);
    if (isDirectory) {
        symlinkSync(source, root, "dir");
    } else {
        mkdirSync(root);
        symlinkSync(source, path.join(root, "SKILL.md"));
    }
    return root;
}

const source = path.resolve(input);
const isDirectory = statSync(source).isDirectory();
const work = mkdtempSync(path.join(tmpdir(), "skills-ref-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
let root;
try {
    root = place(work, (await skillName(source, isDirectory)) ?? "skill", source, isDirectory);
} catch {
    root = place(work, "skill", source, isDirectory);
}
process.argv = [process.argv[0], cli, "validate", root];
await import(pathToFileURL(cli));
