// Checks the trainpkg commands of the CI-pipeline samples against the built
// trainpkg. The commands are taken from the GitHub workflow's `run:` scripts
// and from the Cloud Build steps that run in the trainpkg runner image (their
// args, or their `bash -c` script). In each file:
//   - every verb exists and every flag appears in `trainpkg VERB... --help`;
//   - `build -t`, `push` and every `container-image-uri=` of `run` name one
//     image (the one built is the one pushed and run);
//   - each `run`, its variables replaced by example values, passes
//     `trainpkg run ... --validate-only` (the job is valid for Vertex AI).
//
//   node check_trainpkg_commands.cjs TRAINPKG GITHUB_WORKFLOW.yml CLOUDBUILD.yaml
//
// First a made-up flag, a misspelled verb, a mismatched image and an invalid
// job must be reported, so a checker that finds nothing fails. Exits 77
// (ctest's skip) when the npm package yaml is not installed, 1 on any problem.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const {execFileSync, spawnSync} = require("child_process");

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

// [where, argv] of every trainpkg command of a workflow / a Cloud Build file.
function githubCommands(file) {
  const out = [];
  const workflow = YAML.parse(fs.readFileSync(file, "utf8"), {version: "1.2"});
  for (const job of Object.values(workflow.jobs)) {
    for (const s of job.steps) {
      if (typeof s.run === "string") {
        for (const argv of commandsInScript(s.run)) out.push([`${file} step "${s.name || s.id}"`, argv]);
      }
    }
  }
  return out;
}
function cloudbuildCommands(file) {
  const out = [];
  const build = YAML.parse(fs.readFileSync(file, "utf8"), {version: "1.2"});
  for (const s of build.steps.filter((x) => x.name === "trainpkg-runner")) {
    const where = `${file} step ${s.id}`;
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

// The image `build -t`, `push` and `run` name, which must be one; problems
// as strings.
function imageProblems(commands) {
  const named = [];
  for (const [, argv] of commands) {
    if (argv[0] === "build") {
      argv.forEach((a, i) => { if (a === "-t" || a === "--tag") named.push(["build -t", argv[i + 1]]); });
    } else if (argv[0] === "push") {
      named.push(["push", argv.filter((a) => !a.startsWith("-")).slice(-1)[0]]);
    } else if (argv[0] === "run") {
      for (const a of argv) {
        const m = /(?:^|,)container-image-uri=([^,]*)/.exec(a);
        if (m) named.push(["run container-image-uri", m[1]]);
      }
    }
  }
  const kinds = new Set(named.map(([k]) => k));
  const out = ["build -t", "push", "run container-image-uri"].filter((k) => !kinds.has(k))
                  .map((k) => `no ${k} found`);
  const images = new Set(named.map(([, image]) => image));
  if (images.size > 1) out.push(`different images: ${named.map(([k, i]) => `${k} ${i}`).join(", ")}`);
  return out;
}

// Example values for the variables the `run` commands use: GitHub's
// (workflow env, github context) and Cloud Build's (substitutions, built-ins).
const examples = {
  PROJECT: "my-project", REGION: "us-central1", PROJECT_ID: "my-project", _REGION: "us-central1",
  IMAGE: "us-central1-docker.pkg.dev/my-project/trainers/pytorch-ddp-digits:4f1c2d9",
  _AR_REGISTRY: "us-central1-docker.pkg.dev", _AR_REPOSITORY: "trainers",
  OUTPUT_DIR: "gs://my-bucket/pytorch-ddp-digits/1234567890",
  _GCS_OUTPUT_DIR: "gs://my-bucket/pytorch-ddp-digits",
  GITHUB_RUN_ID: "1234567890", BUILD_ID: "8f2b7c1e-3d4a-4b5c-9e6f-0a1b2c3d4e5f",
};
// An empty configuration, so no config.yaml or gcloud setting of this
// machine fills in what the command leaves out.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "samples-ci-"));
process.on("exit", () => fs.rmSync(scratch, {recursive: true, force: true}));
const isolated = {...process.env, TRAINPKG_HOME: path.join(scratch, "home"), HOME: scratch,
                  XDG_CONFIG_HOME: path.join(scratch, "config"), CLOUDSDK_CONFIG: path.join(scratch, "gcloud")};
for (const name of ["CLOUDSDK_CORE_PROJECT", "CLOUDSDK_AI_REGION", "CLOUDSDK_AUTH_ACCESS_TOKEN",
                    "GOOGLE_APPLICATION_CREDENTIALS"]) delete isolated[name];

// Problems of `trainpkg run ARGV --validate-only` with the variables
// replaced; [] when the job is valid.
function validateRun(argv) {
  const missing = new Set();
  const expanded = argv.map((a) => a.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (all, name) => {
    if (!(name in examples)) missing.add(name);
    return examples[name] ?? all;
  }));
  if (missing.size > 0) return [`no example value for ${[...missing].join(", ")}`];
  const r = spawnSync(trainpkg, [...expanded, "--validate-only"], {encoding: "utf8", env: isolated});
  if (r.status !== 0) return [`--validate-only exited ${r.status}: ${(r.stderr || "").trim()}`];
  const job = JSON.parse(r.stdout);
  return job.jobSpec.workerPoolSpecs.length > 0 ? [] : ["--validate-only printed no worker pool"];
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
{
  const found = imageProblems([["", ["build", "-t", "r/a:1", "."]], ["", ["push", "r/a:1"]],
                               ["", ["run", "--worker-pool-spec", "replica-count=1,container-image-uri=r/b:1"]]]);
  expect(`negative check "run names another image": not reported`,
         found.some((p) => p.startsWith("different images")), found.join("; ") || "accepted");
}
{
  const found = validateRun(["run", "--project", "$PROJECT", "--region", "$REGION", "--labels", "Run=1",
                             "--worker-pool-spec", "machine-type=n1-standard-4,replica-count=1,container-image-uri=$IMAGE"]);
  expect(`negative check "run with an invalid label": not reported`,
         found.some((p) => p.includes("labels.Run")), found.join("; ") || "accepted");
}
for (const [file, commands] of [[githubFile, githubCommands(githubFile)],
                                [cloudbuildFile, cloudbuildCommands(cloudbuildFile)]]) {
  // login, build, push, run and jobs describe.
  expect(`${file}: 5 trainpkg commands found`, commands.length === 5, `${commands.length} found`);
  for (const [where, argv] of commands) {
    const found = problems(argv);
    if (found.length === 0 && argv[0] === "run") found.push(...validateRun(argv));
    expect(`${where}: trainpkg ${argv.join(" ")}`, found.length === 0, found.join("; "));
  }
  const images = imageProblems(commands);
  expect(`${file}: one image built, pushed and run`, images.length === 0, images.join("; "));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
