// Checks that every trainpkg command in the CI-pipeline samples names a verb
// and flags the trainpkg binary has: the commands are taken from the GitHub
// workflow's `run:` scripts and from the Cloud Build steps that run in the
// trainpkg runner image (their args, or their `bash -c` script), and each
// flag must appear in `trainpkg VERB... --help`.
//
//   node check_trainpkg_commands.cjs TRAINPKG GITHUB_WORKFLOW.yml CLOUDBUILD.yaml
//
// First a made-up flag and a misspelled verb must be reported, so a checker
// that finds nothing fails. Exits 77 (ctest's skip) when the npm package yaml
// is not installed, 1 on any problem.
"use strict";
const fs = require("fs");
const {execFileSync} = require("child_process");

let YAML;
try {
  YAML = require("yaml");
} catch (e) {
  console.log(`SKIP: npm packages missing (${e.message.split("\n")[0]}); ` +
              "run scripts/install-deps.sh (npm ci in tests/samples/ci)");
  process.exit(77);
}

const [trainpkg, githubFile, cloudbuildFile] = process.argv.slice(2);
if (!trainpkg || !githubFile || !cloudbuildFile) {
  console.log("usage: node check_trainpkg_commands.cjs TRAINPKG GITHUB_WORKFLOW.yml CLOUDBUILD.yaml");
  process.exit(2);
}

// Words of a shell command line, quotes removed, nothing expanded; stops at
// the first |, ;, &&, || or redirection.
function words(line) {
  const out = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([|;&<>]+)|((?:[^\s"'|;&<>]|"(?:[^"\\]|\\.)*")+))/y;
  let m;
  while ((m = re.exec(line)) !== null) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[4].replace(/"/g, ""));
  }
  return out;
}

// The argv after `trainpkg` of every trainpkg command in a shell script.
function commandsInScript(script) {
  const out = [];
  for (const line of script.replace(/\\\n/g, " ").split("\n")) {
    for (const segment of line.split(/\|\||&&|[|;]/)) {
      const w = words(segment);
      const at = w.indexOf("trainpkg");
      if (at >= 0 && w.slice(0, at).every((x) => /^[A-Z_][A-Z0-9_]*=/.test(x))) out.push(w.slice(at + 1));
    }
  }
  return out;
}

function commandsOf(githubText, cloudbuildText) {
  const out = [];
  const workflow = YAML.parse(githubText, {version: "1.2"});
  for (const job of Object.values(workflow.jobs)) {
    for (const s of job.steps) {
      if (typeof s.run === "string") {
        for (const argv of commandsInScript(s.run)) out.push([`${githubFile} step "${s.name || s.id}"`, argv]);
      }
    }
  }
  const build = YAML.parse(cloudbuildText, {version: "1.2"});
  for (const s of build.steps.filter((x) => x.name === "trainpkg-runner")) {
    const where = `${cloudbuildFile} step ${s.id}`;
    if (s.entrypoint === undefined) {
      out.push([where, s.args]);
    } else if (s.entrypoint === "bash" && s.args[0] === "-c") {
      for (const argv of commandsInScript(s.args[1])) out.push([where, argv]);
    }
  }
  return out;
}

const helpCache = new Map();
function help(path) {
  const key = path.join(" ");
  if (!helpCache.has(key)) {
    try {
      helpCache.set(key, execFileSync(trainpkg, [...path, "--help"], {encoding: "utf8",
                                                                      env: {...process.env, COLUMNS: "200"}}));
    } catch (e) {
      helpCache.set(key, null);
    }
  }
  return helpCache.get(key);
}
const subcommands = (text) => {
  const section = text.split(/^Subcommands:$/m)[1];
  if (!section) return [];
  return [...section.split(/\n\n/)[0].matchAll(/^  (\S+)/gm)].map((m) => m[1]);
};
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Problems of one trainpkg argv, as strings; [] when fine.
function problems(argv) {
  const path = [];
  let text = help(path);
  if (text === null) return [`${trainpkg} --help failed`];
  let i = 0;
  for (; i < argv.length && !argv[i].startsWith("-"); i++) {
    if (!subcommands(text).includes(argv[i])) break;
    path.push(argv[i]);
    text = help(path);
    if (text === null) return [`trainpkg ${path.join(" ")} --help failed`];
  }
  if (path.length === 0) return [`no trainpkg verb "${argv[0]}"`];
  const out = [];
  if (subcommands(text).length > 0) out.push(`trainpkg ${path.join(" ")} needs a subcommand`);
  for (const arg of argv.slice(i)) {
    if (!arg.startsWith("-") || arg === "-" || arg === "--") continue;
    const flag = arg.split("=")[0];
    if (!new RegExp(`(^|[\\s,])${escape(flag)}([\\s,=]|$)`, "m").test(text)) {
      out.push(`trainpkg ${path.join(" ")} has no flag ${flag}`);
    }
  }
  return out;
}

let passed = 0, failed = 0;
function expect(name, ok, detail) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}${detail ? ": " + detail : ""}`);
  }
}

for (const [argv, expected] of [[["run", "--confg", "job.yaml"], "has no flag --confg"],
                                [["bulid", "-t", "x", "."], "no trainpkg verb"],
                                [["jobs", "describ", "latest"], "needs a subcommand"]]) {
  const found = problems(argv);
  expect(`negative check "trainpkg ${argv.join(" ")}": no problem mentions "${expected}"`,
         found.some((p) => p.includes(expected)), found.join("; ") || "accepted");
}
const commands = commandsOf(fs.readFileSync(githubFile, "utf8"), fs.readFileSync(cloudbuildFile, "utf8"));
// login, build, push, run and jobs describe in each file.
expect("at least 10 trainpkg commands found", commands.length >= 10, `${commands.length} found`);
for (const [where, argv] of commands) {
  const found = problems(argv);
  expect(`${where}: trainpkg ${argv.join(" ")}`, found.length === 0, found.join("; "));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
