// Validates trainpkg's rendered Kubernetes manifests offline (no cluster):
// core kinds (Secret, Service) and the workloads' embedded batch/v1
// JobTemplateSpec / core/v1 PodTemplateSpec against the Kubernetes OpenAPI
// schemas that the npm package kubernetes-models carries; JobSet, TFJob and
// PyTorchJob against the CRD schema subsets in schemas/ (ajv).
//
//   node validate_manifests.cjs FILE.json...   (each file a "v1" List)
//
// Before the files, it checks that each validator rejects a broken object,
// so a validator that accepts everything fails the run. Exits 77 (ctest's
// skip) when the npm packages are not installed, 1 on any invalid object.
"use strict";
const fs = require("fs");
const path = require("path");

let Ajv, models;
try {
  Ajv = require("ajv");
  models = {
    Secret: require("kubernetes-models/v1/Secret").Secret,
    Service: require("kubernetes-models/v1/Service").Service,
    PodTemplateSpec: require("kubernetes-models/v1/PodTemplateSpec").PodTemplateSpec,
    JobTemplateSpec: require("kubernetes-models/batch/v1/JobTemplateSpec").JobTemplateSpec,
  };
} catch (e) {
  console.log(`SKIP: npm packages missing (${e.message.split("\n")[0]}); ` +
              "run scripts/install-deps.sh (npm ci in tests/sdk/k8s)");
  process.exit(77);
}

const ajv = new Ajv({allErrors: true, strict: false});
const schema = (file) => ajv.compile(
    JSON.parse(fs.readFileSync(path.join(__dirname, "schemas", file), "utf8")));
const crds = {
  JobSet: {validate: schema("jobset.x-k8s.io_v1alpha2_JobSet.json"),
           templates: (o) => (o.spec.replicatedJobs || []).map(
               (j, i) => [`spec.replicatedJobs[${i}].template`, j.template, models.JobTemplateSpec])},
  TFJob: {validate: schema("kubeflow.org_v1_TFJob.json"),
          templates: (o) => Object.entries(o.spec.tfReplicaSpecs || {}).map(
              ([t, r]) => [`spec.tfReplicaSpecs.${t}.template`, r.template, models.PodTemplateSpec])},
  PyTorchJob: {validate: schema("kubeflow.org_v1_PyTorchJob.json"),
               templates: (o) => Object.entries(o.spec.pytorchReplicaSpecs || {}).map(
                   ([t, r]) => [`spec.pytorchReplicaSpecs.${t}.template`, r.template,
                                models.PodTemplateSpec])},
};

// Problems with `object`, as strings; [] when valid.
function problems(object) {
  const out = [];
  const model = (Model, value, where) => {
    try {
      new Model(value).validate();
    } catch (e) {
      out.push(`${where}: ${e.message}`);
    }
  };
  if (object.kind === "Secret" || object.kind === "Service") {
    model(models[object.kind], object, object.kind);
  } else if (crds[object.kind]) {
    const crd = crds[object.kind];
    if (!crd.validate(object)) {
      for (const e of crd.validate.errors) out.push(`${object.kind}${e.instancePath}: ${e.message}`);
    } else {
      for (const [where, template, Model] of crd.templates(object)) model(Model, template, where);
    }
  } else {
    out.push(`unexpected kind ${object.kind}`);
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

// The validators must be able to fail.
const clone = (o) => JSON.parse(JSON.stringify(o));
const broken = [
  ["Service with a string port", (o) => o.kind === "Service",
   (o) => { o.spec.ports[0].port = "2222"; }],
  ["Secret with numeric data", (o) => o.kind === "Secret",
   (o) => { o.data[".dockerconfigjson"] = 1; }],
  ["JobSet with a misspelled field", (o) => o.kind === "JobSet",
   (o) => { o.spec.replicatedJob = o.spec.replicatedJobs; }],
  ["JobSet with a string containerPort", (o) => o.kind === "JobSet",
   (o) => { o.spec.replicatedJobs[0].template.spec.template.spec.containers[0].ports[0].containerPort = "x"; }],
  ["TFJob with an unknown replica type", (o) => o.kind === "TFJob",
   (o) => { o.spec.tfReplicaSpecs.Chef = o.spec.tfReplicaSpecs.Chief; }],
  ["PyTorchJob container without a name", (o) => o.kind === "PyTorchJob",
   (o) => { delete o.spec.pytorchReplicaSpecs.Master.template.spec.containers[0].name; }],
];

const files = process.argv.slice(2);
const objects = [];
for (const file of files) {
  const list = JSON.parse(fs.readFileSync(file, "utf8"));
  for (const item of list.items) objects.push([path.basename(file), item]);
}
for (const [name, matches, breakIt] of broken) {
  const found = objects.find(([, o]) => matches(o));
  if (!found) {
    expect(`negative check "${name}" found no object to break`, false);
    continue;
  }
  const copy = clone(found[1]);
  breakIt(copy);
  expect(`negative check "${name}" was accepted`, problems(copy).length > 0);
}
for (const [file, object] of objects) {
  const found = problems(object);
  expect(`${file} ${object.kind} ${object.metadata && object.metadata.name}`, found.length === 0,
         found.join("; "));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
