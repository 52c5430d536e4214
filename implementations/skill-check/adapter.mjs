#!/usr/bin/env node
// Runs skill-check's own command line (`skill-check check DIR`, npm package skill-check) on
// one corpus input.
//
// skill-check validates the SKILL.md files it finds under a path and requires a skill's
// `name` to equal its directory's name (its "slug"). A corpus input is a bare SKILL.md or
// a skill directory under a name of the harness's choosing, so this adapter does the one
// thing a user would do first: it makes a fresh directory named after the skill (the name
// as skill-check's own frontmatter reader and name normaliser read it) that links to the
// input (the skill directory itself, or its SKILL.md), and runs the unmodified command line
// (its dist/cli/main.js `runCli`, what bin/skill-check.js calls) on it, in this process,
// with `--no-security-scan` (the scan needs tools from outside the registries, and without
// them skill-check stops with exit code 2) and `--format json`. When the name cannot be
// read or is not one plain path segment, the directory is called `skill`. Exit codes and
// output are skill-check's.
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
const dist = path.join(path.resolve(modules), "skill-check", "dist");
const { parseFrontmatter } = await import(pathToFileURL(path.join(dist, "core", "frontmatter.js")));
const { runCli } = await import(pathToFileURL(path.join(dist, "cli", "main.js")));

function skillName(source, isDirectory) {
    let content;
    try {
        content = readFileSync(isDirectory ? path.join(source, "SKILL.md") : source, "utf8");
    } catch {
        return null;
    }
    const { frontmatter } = parseFrontmatter(content);
    // skill-check's normaliser (rules/core/frontmatter.js): quotes at either end and
    // surrounding white space go.
    let name = frontmatter?.name;
    if (typeof name !== "string") {
        return null;
    }
    name = name.replace(/^['"]|['"]$/g, "").trim();
    const plain = !["", ".", ".."].includes(name) && !/[/\0]/.test(name) && name !== "skills";
    return plain && Buffer.byteLength(name) <= 255 && name.isWellFormed() ? name : null;
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
// Not under a folder named `skills`: skill-check would take the folder below it as the slug.
const work = mkdtempSync(path.join(tmpdir(), "skill-check-"));
let root;
try {
    root = place(work, skillName(source, isDirectory) ?? "skill", source, isDirectory);
} catch {
    root = place(work, "skill", source, isDirectory);
}
let code = 2;
try {
    code = await runCli(["check", root, "--no-security-scan", "--format", "json"]);
} finally {
    rmSync(work, { recursive: true, force: true });
}
process.exit(code);
