#!/usr/bin/env node
// trainpkg serve's dashboard in a real browser (issue 22): Debian's Chromium
// driven by playwright-core (package-lock.json here). It starts the built
// `trainpkg serve` on a free loopback port, runs the digits sample (chief and
// two workers, local: executables), a 4-trial tuning job of hptune_digits and
// a job it cancels from the page, and asserts on the pages' DOM: job rows and
// their states, three replicas, log lines arriving while the job runs, curves
// with a point per epoch, the tuning page's best trial = results.json, cancel
// from the page, and the refusals (no token; a page of another origin). It
// saves screenshots of each page at 360 and 1440 px.
//
// usage: node dashboard_browser_test.cjs TRAINPKG DIGITS_SAMPLE HPTUNE_SAMPLE DIGITS_DATA ARTIFACT_DIR
// Exit 77 (skipped) without Chromium or playwright-core.
'use strict';

const childProcess = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const SKIP = 77;
const CHROMIUM = '/usr/bin/chromium';
const [trainpkg, digits, hptune, data, artifacts] = process.argv.slice(2);
if (!artifacts) {
  console.error('usage: dashboard_browser_test.cjs TRAINPKG DIGITS_SAMPLE HPTUNE_SAMPLE DIGITS_DATA ARTIFACT_DIR');
  process.exit(2);
}
let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch (e) {
  console.log('SKIP: playwright-core is not installed here; run scripts/install-deps.sh');
  process.exit(SKIP);
}
if (!fs.existsSync(CHROMIUM)) {
  console.log(`SKIP: ${CHROMIUM} not found; run scripts/install-deps.sh (Debian's chromium package)`);
  process.exit(SKIP);
}
for (const file of [trainpkg, digits, hptune, data]) {
  if (!fs.existsSync(file)) {
    console.error(`missing ${file}${file === data ? ' (scripts/fetch-digits.sh)' : ''}`);
    process.exit(1);
  }
}

let passed = 0;
let failed = 0;
function check(condition, what) {
  if (condition) {
    passed++;
    console.log(`ok: ${what}`);
  } else {
    failed++;
    console.log(`FAILED: ${what}`);
  }
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function waitFor(what, condition, seconds) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${seconds}s waiting for ${what}`);
    await sleep(200);
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trainpkg-dashboard-'));
fs.mkdirSync(artifacts, { recursive: true });
let serve = null;
let browser = null;
let attacker = null;

// `trainpkg serve --port 0`: its endpoint, token and dashboard URL from the banner.
async function startServe() {
  serve = childProcess.spawn(trainpkg, ['serve', '--port', '0', '--allow-local-executables'], {
    env: Object.assign({}, process.env, { TRAINPKG_HOME: path.join(tmp, 'home') }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  serve.stdout.on('data', (chunk) => { out += chunk; });
  serve.stderr.on('data', (chunk) => { out += chunk; });
  const match = await waitFor('the serve banner', () =>
    out.match(/(http:\/\/127\.0\.0\.1:[0-9]+)\/ui\/\?token=([A-Za-z0-9_-]+)/), 15);
  return { endpoint: match[1], token: match[2], url: match[0] };
}

function pool(image, count, args) {
  return {
    machineSpec: { machineType: 'n1-standard-4' },
    replicaCount: String(count),
    containerSpec: { imageUri: 'local:' + image, args, env: [{ name: 'OPENBLAS_NUM_THREADS', value: '1' }] },
  };
}

function digitsJob(name, epochs, output) {
  const args = [`--epochs=${epochs}`, '--global_batch_size=64', '--learning_rate=0.001', '--data=' + data];
  return {
    displayName: name,
    jobSpec: {
      baseOutputDirectory: { outputUriPrefix: output + '/' },
      workerPoolSpecs: [pool(digits, 1, args), pool(digits, 2, args)],
    },
  };
}

async function main() {
  const s = await startServe();
  const api = async (method, p, body, headers) => {
    const res = await fetch(s.endpoint + p, {
      method,
      headers: Object.assign({ Authorization: 'Bearer ' + s.token, 'Content-Type': 'application/json' }, headers || {}),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  const parent = '/v1/projects/local/locations/local';
  const idOf = (reply) => reply.body.name.split('/').pop();

  // Without the token nothing opens; a foreign Origin is refused with it.
  check((await fetch(s.endpoint + '/ui/')).status === 401, 'GET /ui/ without the token is 401');
  check((await fetch(s.endpoint + '/ui/api/jobs')).status === 401, 'GET /ui/api/jobs without the token is 401');
  check((await fetch(s.endpoint + parent + '/customJobs')).status === 401, 'the API without the token is 401');
  check((await api('GET', '/ui/api/jobs', undefined, { Origin: 'http://evil.example' })).status === 403,
    'a foreign Origin is 403 even with the token');

  // The jobs: digits for long enough to watch it, the tuning study, and one to cancel.
  const created = await api('POST', parent + '/customJobs', digitsJob('digits-multiworker', 1500, path.join(tmp, 'digits')));
  check(created.status === 200, `the digits job is created (${created.status})`);
  const digitsId = idOf(created);
  const tuningOut = path.join(tmp, 'tuning');
  const study = await api('POST', parent + '/hyperparameterTuningJobs', {
    displayName: 'hptune-digits',
    maxTrialCount: 4,
    parallelTrialCount: 2,
    maxFailedTrialCount: 2,
    studySpec: {
      metrics: [{ metricId: 'accuracy', goal: 'MAXIMIZE' }],
      parameters: [
        { parameterId: 'learning_rate', doubleValueSpec: { minValue: 0.0001, maxValue: 0.3 }, scaleType: 'UNIT_LOG_SCALE' },
        { parameterId: 'momentum', doubleValueSpec: { minValue: 0, maxValue: 0.95 }, scaleType: 'UNIT_LINEAR_SCALE' },
        { parameterId: 'num_units', integerValueSpec: { minValue: '4', maxValue: '128' }, scaleType: 'UNIT_LOG_SCALE' },
      ],
      measurementSelectionType: 'LAST_MEASUREMENT',
    },
    trialJobSpec: {
      baseOutputDirectory: { outputUriPrefix: tuningOut + '/' },
      workerPoolSpecs: [pool(hptune, 1, ['--epochs=5', '--batch_size=32', '--data=' + data])],
    },
  });
  check(study.status === 200, `the tuning job is created (${study.status})`);
  const studyId = idOf(study);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  // Without the cookie the browser gets the refusal too.
  const stranger = await browser.newContext();
  const refused = await (await stranger.newPage()).goto(s.endpoint + '/ui/');
  check(refused.status() === 401, `a browser without the token gets ${refused.status()} for /ui/`);
  await stranger.close();

  const wide = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await wide.newPage();
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(s.url);
  check(page.url() === s.endpoint + '/ui/', `the token URL lands on ${page.url()} without the token`);
  const cookies = await wide.cookies();
  check(cookies.length === 1 && cookies[0].httpOnly && cookies[0].sameSite === 'Strict' && cookies[0].value !== s.token,
    'one HttpOnly SameSite=Strict cookie, not the token');

  // Jobs list: the digits job and the trials, with their states.
  await page.waitForSelector(`#jobs-body tr[data-job-id="${digitsId}"]`, { timeout: 15000 });
  const rowState = await page.getAttribute(`#jobs-body tr[data-job-id="${digitsId}"]`, 'data-state');
  check(['QUEUED', 'PENDING', 'RUNNING'].includes(rowState), `the digits job's row says ${rowState} while it runs`);
  await page.waitForSelector(`#tuning-body tr[data-tuning-id="${studyId}"]`, { timeout: 15000 });
  check(true, 'the tuning job has a row');

  // The job page: three replicas, live logs, curves.
  await page.goto(`${s.endpoint}/ui/jobs/${digitsId}`);
  await page.waitForFunction(() => document.querySelectorAll('#replicas-body tr').length === 3, null, { timeout: 15000 });
  const replicas = await page.$$eval('#replicas-body tr', (rows) => rows.map((r) => r.dataset.replica));
  check(JSON.stringify(replicas) === JSON.stringify(['workerpool0-0', 'workerpool1-0', 'workerpool1-1']),
    `three replicas: ${replicas.join(', ')}`);
  const chiefLines = () => page.$$eval('pre[data-replica="workerpool0-0"] .line', (lines) => lines.length);
  const epochLines = () => page.$$eval('pre[data-replica="workerpool0-0"] .line',
    (lines) => lines.filter((l) => /^epoch /.test(l.textContent)).length);
  await waitFor('epoch lines in the chief log', async () => (await epochLines()) >= 2, 60);
  const before = await chiefLines();
  const runningThen = (await api('GET', `${parent}/customJobs/${digitsId}`)).body.state;
  await waitFor('more chief log lines', async () => (await chiefLines()) > before + 2, 60);
  const after = await chiefLines();
  const endedYet = await page.getAttribute('[data-log-state="workerpool0-0"]', 'data-ended');
  const runningNow = (await api('GET', `${parent}/customJobs/${digitsId}`)).body.state;
  check(runningThen === 'JOB_STATE_RUNNING' && runningNow === 'JOB_STATE_RUNNING' && endedYet === null,
    `log lines arrive while the job runs (${before} -> ${after} lines, ${runningThen} -> ${runningNow})`);
  for (const tag of ['loss', 'accuracy', 'val_loss', 'val_accuracy']) {
    await page.waitForSelector(`.chart[data-tag="${tag}"]`, { timeout: 20000 });
    const points = await waitFor(`two points of ${tag}`, async () => {
      const n = Number(await page.getAttribute(`.chart[data-tag="${tag}"]`, 'data-points'));
      return n >= 2 ? n : 0;
    }, 20);
    check(points >= 2, `the ${tag} curve has ${points} points while the job runs`);
  }
  await page.screenshot({ path: path.join(artifacts, 'job-1440.png'), fullPage: true });

  // The study and the digits job finish.
  await waitFor('the tuning job to end', async () =>
    ['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED'].includes((await api('GET', `${parent}/hyperparameterTuningJobs/${studyId}`)).body.state), 300);
  await waitFor('the digits job to end', async () =>
    (await api('GET', `${parent}/customJobs/${digitsId}`)).body.state !== 'JOB_STATE_RUNNING', 300);
  await page.waitForSelector('h1 .state[data-state="SUCCEEDED"]', { timeout: 15000 });
  const exited = await page.$$eval('#replicas-body tr', (rows) => rows.map((r) => r.dataset.state));
  check(exited.every((st) => st === 'EXITED'), `the replicas end EXITED: ${exited.join(', ')}`);
  const finalPoints = Number(await page.getAttribute('.chart[data-tag="loss"]', 'data-points'));
  await waitFor('all 1500 epochs on the loss curve', async () =>
    Number(await page.getAttribute('.chart[data-tag="loss"]', 'data-points')) === 1500, 15).catch(() => {});
  check(Number(await page.getAttribute('.chart[data-tag="loss"]', 'data-points')) === 1500,
    `the loss curve ends with one point per epoch (1500; ${finalPoints} seen at the end)`);
  await page.screenshot({ path: path.join(artifacts, 'job-1440.png'), fullPage: true });

  // The tuning page: the trials and the best one, as results.json says.
  const results = JSON.parse(fs.readFileSync(path.join(tuningOut, 'results.json'), 'utf8'));
  await page.goto(`${s.endpoint}/ui/tuning/${studyId}`);
  await page.waitForFunction((n) => document.querySelectorAll('#trials tbody tr').length === n, 4, { timeout: 15000 });
  const best = await page.getAttribute('#best-trial', 'data-trial-id');
  check(best !== '' && best === results.bestTrialId, `the best trial on the page (${best}) is results.json's (${results.bestTrialId})`);
  const highlighted = await page.$$eval('#trials tr.best', (rows) => rows.map((r) => r.dataset.trialId));
  check(JSON.stringify(highlighted) === JSON.stringify([results.bestTrialId]), `the best trial's row is highlighted (${highlighted})`);
  const bestTrial = results.trials.find((t) => t.id === results.bestTrialId);
  const objective = Number(await page.getAttribute(`#trials tr[data-trial-id="${best}"] td[data-objective]`, 'data-objective'));
  check(bestTrial && objective === bestTrial.objective, `its objective ${objective} is results.json's ${bestTrial && bestTrial.objective}`);
  const tuningCharts = await page.$$eval('#tuning-charts .chart', (charts) => charts.map((c) => c.dataset.tag));
  check(tuningCharts.length === 4, `objective per trial and one scatter per parameter: ${tuningCharts.join(', ')}`);
  const trialLink = await page.getAttribute(`#trials tr[data-trial-id="${best}"] a`, 'href');
  check(/^\/ui\/jobs\/[A-Za-z0-9_]+$/.test(trialLink || ''), `the trial links to its job page (${trialLink})`);
  await page.screenshot({ path: path.join(artifacts, 'tuning-1440.png'), fullPage: true });
  await page.goto(s.endpoint + trialLink);
  await page.waitForSelector('.chart[data-tag="hypertune/accuracy"]', { timeout: 15000 });
  const hypertunePoints = Number(await page.getAttribute('.chart[data-tag="hypertune/accuracy"]', 'data-points'));
  check(hypertunePoints === 5, `the trial's page charts its hypertune metric (${hypertunePoints} points for 5 epochs)`);

  await page.goto(s.endpoint + '/ui/');
  await page.waitForSelector(`#jobs-body tr[data-job-id="${digitsId}"][data-state="SUCCEEDED"]`, { timeout: 15000 });
  check(true, 'the jobs list shows the digits job SUCCEEDED');
  const trialRows = await page.$$eval('#jobs-body tr', (rows) => rows.length);
  check(trialRows === 5, `the jobs list has the digits job and 4 trials (${trialRows} rows)`);
  await page.screenshot({ path: path.join(artifacts, 'jobs-1440.png'), fullPage: true });

  // Cancel: a page of another origin on this host (same site, so the
  // cookie goes along) cannot; the dashboard's button can.
  const doomed = await api('POST', parent + '/customJobs', digitsJob('digits-to-cancel', 1000000, path.join(tmp, 'cancel')));
  const doomedId = idOf(doomed);
  await waitFor('the job to cancel to run', async () =>
    (await api('GET', `${parent}/customJobs/${doomedId}`)).body.state === 'JOB_STATE_RUNNING', 30);
  attacker = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<script>fetch(${JSON.stringify(`${s.endpoint}/ui/api/jobs/${doomedId}/cancel`)},
      {method: 'POST', mode: 'no-cors', credentials: 'include'}).finally(() => { document.title = 'sent'; });</script>`);
  });
  await new Promise((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  const evil = await wide.newPage();
  await evil.goto(`http://127.0.0.1:${attacker.address().port}/`);
  await evil.waitForFunction(() => document.title === 'sent', null, { timeout: 10000 });
  await sleep(1000);
  check((await api('GET', `${parent}/customJobs/${doomedId}`)).body.state === 'JOB_STATE_RUNNING',
    'a page on another port of 127.0.0.1 cannot cancel the job');
  await evil.close();
  await page.goto(`${s.endpoint}/ui/jobs/${doomedId}`);
  await page.waitForFunction(() => document.querySelectorAll('#replicas-body tr[data-state="RUNNING"]').length === 3, null, { timeout: 15000 });
  const pids = await page.$$eval('#replicas-body tr', (rows) => rows.map((r) => Number(r.lastElementChild.textContent)));
  await page.click('#cancel');
  await page.waitForSelector('h1 .state[data-state="CANCELLED"]', { timeout: 30000 });
  check(true, 'the page shows the job CANCELLED after its Cancel button');
  const alive = pids.filter((pid) => { try { process.kill(pid, 0); return true; } catch (e) { return false; } });
  check(pids.length === 3 && alive.length === 0, `its replicas (${pids.join(', ')}) are gone`);

  // Narrow screens.
  const narrow = await browser.newContext({ viewport: { width: 360, height: 780 } });
  await narrow.addCookies(await wide.cookies());
  const phone = await narrow.newPage();
  phone.on('pageerror', (e) => consoleErrors.push(String(e)));
  for (const [name, url, ready] of [
    ['jobs', '/ui/', `#jobs-body tr[data-job-id="${digitsId}"]`],
    ['job', `/ui/jobs/${digitsId}`, '.chart[data-tag="loss"]'],
    ['tuning', `/ui/tuning/${studyId}`, '#tuning-charts .chart'],
  ]) {
    await phone.goto(s.endpoint + url);
    await phone.waitForSelector(ready, { timeout: 15000 });
    await sleep(300);
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    check(width <= 360, `the ${name} page fits 360 px (${width} px wide; tables scroll inside their box)`);
    await phone.screenshot({ path: path.join(artifacts, `${name}-360.png`), fullPage: true });
  }
  check(consoleErrors.length === 0, `no script errors (${consoleErrors.join('; ')})`);
}

async function cleanup() {
  if (attacker) attacker.close();
  if (browser) await browser.close().catch(() => {});
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    await new Promise((resolve) => serve.once('exit', resolve));
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

main()
  .catch((e) => {
    failed++;
    console.log('FAILED: ' + (e.stack || e));
  })
  .then(cleanup)
  .then(() => {
    console.log(`screenshots in ${artifacts}`);
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  });
