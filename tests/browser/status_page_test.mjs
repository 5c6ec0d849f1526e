// The status page in a real browser: a headless chromium, driven over the
// DevTools protocol, against a real `lu-host up` of a copy of samples/hello
// (plus a LiveUpdate whose run fails, and one whose name is markup). Opened
// through the secret URL lu-host up prints. Checks what a user sees: in
// sync, a file edit in the list and the log, the trigger button of the
// manual LiveUpdate, a failure's reason, names shown as text, the chart of
// recent updates following real ones; saves screenshots.
//   node status_page_test.mjs LU_HOST SAMPLE_DIR ARTIFACT_DIR
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Cdp, Page } from './cdp.mjs';

const [luHost, sample, artifacts] = process.argv.slice(2);
if (!luHost || !sample || !artifacts) {
  console.error('usage: node status_page_test.mjs LU_HOST SAMPLE_DIR ARTIFACT_DIR');
  process.exit(2);
}
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lu-browser-'));
const children = [];
const markupName = '<img src=x onerror=window.pwned=1>';
let failures = 0;

function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
}

// Waits until fn() is truthy (a guard against hanging, not a timing check).
async function until(fn, what, limitMs = 15000) {
  const end = Date.now() + limitMs;
  for (;;) {
    let value;
    try { value = await fn(); } catch (e) { value = undefined; }
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Starts a process; resolves with the first match of pattern in its output.
function start(command, args, pattern, name) {
  // Its own process group: chromium's helper processes go with it.
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  const log = fs.createWriteStream(path.join(work, `${name}.log`));
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (d) => {
      log.write(d);
      seen += d.toString();
      const m = seen.match(pattern);
      if (m) { resolve({ child, match: m }); seen = ''; }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready; see ${work}/${name}.log`)));
  });
}

function freePort() {
  return new Promise((resolve) => {
    import('node:net').then(({ default: net }) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    });
  });
}

async function main() {
  // A copy of the sample: edits stay out of the checkout; its web server on a free port.
  const app = path.join(work, 'hello');
  fs.cpSync(sample, app, { recursive: true, filter: (p) => !p.includes(`${path.sep}container`) });
  const appPort = await freePort();
  const objects = path.join(app, 'hello.json');
  fs.writeFileSync(objects, fs.readFileSync(objects, 'utf8').replace('127.0.0.1:8088', `127.0.0.1:${appPort}`));
  fs.writeFileSync(path.join(app, 'check.json'), JSON.stringify({
    apiVersion: 'tilt.dev/v1alpha1', kind: 'LiveUpdate',
    metadata: { name: 'hello-check', annotations: { 'tilt.dev/resource': 'hello-check' } },
    spec: {
      basePath: '.', sources: [{ fileWatch: 'hello-src' }], selector: { local: { container: 'hello' } },
      syncs: [{ localPath: 'src', containerPath: '/check' }],
      execs: [{ args: ['sh', '-c', 'echo "check: broken.txt is not allowed"; exit 3'], triggerPaths: ['src/broken.txt'] }],
    },
  }));
  // Admitted (no '/' or '%'): the page must show it as text, never run it.
  fs.writeFileSync(path.join(app, 'markup.json'), JSON.stringify({
    apiVersion: 'tilt.dev/v1alpha1', kind: 'LiveUpdate',
    metadata: { name: markupName, annotations: { 'tilt.dev/resource': 'markup' } },
    spec: { basePath: '.', selector: { local: { container: 'none' } }, syncs: [{ localPath: 'src', containerPath: '/m' }] },
  }));

  const up = await start(luHost, ['up', '--web-port', '0', '--debounce', '0',
    '--control-socket', path.join(work, 'control.sock'), app], /status page (http:\/\/\S+)/, 'lu-host');
  const url = up.match[1];
  const secret = new URL(url).searchParams.get('token');
  check(/^[0-9a-f]{32}$/.test(secret || ''), 'lu-host up prints the page\'s URL with its secret');
  const clean = url.slice(0, url.indexOf('?'));
  console.log(`status page: ${clean}`);

  const browser = await start(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-extensions', '--remote-debugging-port=0', `--user-data-dir=${path.join(work, 'chromium')}`,
    '--window-size=1280,1000', 'about:blank'], /DevTools listening on (ws:\/\/\S+)/, 'chromium');
  const cdp = await Cdp.connect(browser.match[1]);
  const page = await Page.open(cdp, url);
  await page.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 1000, deviceScaleFactor: 1, mobile: false });

  // The secret URL sets the cookie and leads to the clean URL.
  await until(async () => (await page.evaluate('location.href')) === clean, 'the clean URL');
  check(true, 'the secret URL redirects to the clean URL');
  check((await page.evaluate('document.cookie')) === '', 'the cookie is HttpOnly');
  check((await page.evaluate(`fetch('/api/status', { credentials: 'omit' }).then((r) => r.status)`)) === 401,
        'without the cookie the API answers 401');

  const row = (name) => `document.querySelector('#live-updates tr[data-name="${name}"]')`;
  const stateOf = (name) => page.evaluate(`${row(name)}?.dataset.state`);
  const cellText = (name, label) => page.evaluate(`${row(name)}?.querySelector('[data-label="${label}"]')?.innerText || ''`);
  const logText = () => page.evaluate(`document.getElementById('log').innerText`);

  // In sync after the initial sync; the live connection is up.
  await until(async () => (await stateOf('hello')) === 'in-sync', 'hello in sync');
  check(true, 'hello is shown in sync');
  await until(async () => (await page.evaluate(`document.getElementById('connection').textContent`)) === 'live', 'event stream');
  check((await cellText('hello', 'Containers')).includes('hello'), 'its container is listed');
  check((await stateOf('hello-manual')) === 'waiting'
        && (await cellText('hello-manual', 'State')).includes('Trigger'), 'the manual one waits for a trigger');
  await until(() => page.evaluate(`${row(markupName)} !== null`), 'the row of the markup name');
  check(await page.evaluate(`${row(markupName)}.querySelector('button.select').textContent === ${JSON.stringify(markupName)}
        && document.querySelector('#live-updates img') === null && window.pwned === undefined`),
        'a name that is markup shows as text');
  await page.evaluate(`${row(markupName)}.querySelector('button.select').click()`);
  await until(async () => (await page.evaluate(`document.getElementById('log-name').textContent`)) === `of ${markupName}`,
              'the markup name selected');
  check(await page.evaluate(`fetch('/api/liveupdates/' + encodeURIComponent(${JSON.stringify(markupName)}) + '/log').then((r) => r.status)`) === 200,
        'its log route finds it');
  const plugins = await page.evaluate(`document.querySelector('#plugins tbody').innerText`);
  check(plugins.includes('liveupdate') && /\d+\.\d+/.test(plugins), 'plugins are listed with versions');

  // Select hello's log, then edit a file: it shows up in the row and in the log.
  await page.evaluate(`document.querySelector('${'#live-updates tr[data-name="hello"] button.select'}').click()`);
  const marker = `edited-${Date.now()}`;
  const edited = Date.now();
  // Written beside and renamed in: one event, one update. Written in place, the truncation and the write can
  // be two updates (debounce 0), and a late second one would be counted among the folder's bars below.
  const staged = path.join(work, 'index.html');
  fs.writeFileSync(staged, `<!doctype html><title>hello</title><p>${marker}</p>\n`);
  fs.renameSync(staged, path.join(app, 'src', 'index.html'));
  await until(async () => (await cellText('hello', 'Last files synced')).includes('index.html')
                          && (await page.evaluate(`${row('hello')}.querySelector('[data-label="Last files synced"] time')?.getAttribute('datetime') || ''`)) > new Date(edited - 1000).toISOString(),
              'the edit in the list');
  const inList = Date.now() - edited;
  await until(async () => (await logText()).includes("src/index.html' --> '/app/index.html'"), 'the edit in the log');
  const inLog = Date.now() - edited;
  console.log(`edit seen on the page after ${inList} ms (list) and ${inLog} ms (log)`);
  check(true, 'the edit appears in the list and in the log');
  check(fs.readFileSync(path.join(app, 'container', 'app', 'index.html'), 'utf8').includes(marker), 'the container has the edit');

  // The chart of hello's recent updates: a bar per update, as the daemon measured it.
  const bars = (name) => page.evaluate(`[...(${row(name)}?.querySelectorAll('svg.updates-chart rect.bar') || [])]
    .map((b) => ({ ms: Number(b.dataset.ms), files: Number(b.dataset.files), failed: b.classList.contains('failed'),
                   height: Number(b.getAttribute('height')) }))`);
  const measured = (name) => page.evaluate(`fetch('/api/status').then((r) => r.json())
    .then((s) => s.liveUpdates.find((l) => l.name === ${JSON.stringify(name)}).recentUpdates)`);
  const before = await bars('hello');
  check(before.length >= 2 && before.every((b) => b.ms > 0), 'hello\'s chart has a bar for each update so far');
  // A folder of four files moved in at once.
  const four = path.join(work, 'four');
  fs.mkdirSync(four);
  for (const f of ['a', 'b', 'c', 'd']) fs.writeFileSync(path.join(four, `${f}.txt`), `${f}\n`);
  fs.renameSync(four, path.join(app, 'src', 'four'));
  await until(() => fs.existsSync(path.join(app, 'container', 'app', 'four', 'd.txt')), 'the four files synced');
  const after = await until(async () => {
    const now = await bars('hello');
    // The folder and its four files: "5 Files Changed", as the update's build entry says.
    return now.length > before.length && now.slice(before.length).reduce((n, b) => n + b.files, 0) === 5 ? now : null;
  }, 'the new bars of the folder of four files');
  const added = after.slice(before.length);
  console.log(`chart of hello: ${after.map((b) => `${b.ms} ms/${b.files}`).join(', ')}`);
  check(added.every((b) => b.ms > 0 && !b.failed), 'the update of the folder is charted with its milliseconds and files');
  const fromDaemon = await measured('hello');
  check(JSON.stringify(fromDaemon.map((u) => [u.ms, u.files])) === JSON.stringify(after.map((b) => [b.ms, b.files])),
        'the chart draws the durations and files the daemon measured');
  const longest = after.reduce((a, b) => (b.ms > a.ms ? b : a));
  check(Math.abs(longest.height - 34) < 0.01 && after.every((b) => b.height <= longest.height),
        'the longest update is the tallest bar');

  // The manual LiveUpdate holds the edit until its Trigger button is clicked.
  const manualCopy = path.join(app, 'container', 'app', 'manual', 'index.html');
  check(!fs.existsSync(manualCopy), 'the manual one has not synced before the trigger');
  check(await page.evaluate(`${row('hello')}.querySelector('button.trigger') === null`), 'an auto one has no trigger button');
  await page.evaluate(`document.querySelector('${'#live-updates tr[data-name="hello-manual"] button.select'}').click()`);
  await page.evaluate(`${row('hello-manual')}.querySelector('button.trigger[aria-label="Trigger hello-manual"]').click()`);
  await until(() => fs.existsSync(manualCopy) && fs.readFileSync(manualCopy, 'utf8').includes(marker), 'the triggered sync');
  await until(async () => (await cellText('hello-manual', 'Last update')) !== '—', 'the manual row updated');
  await until(async () => (await logText()).includes('updated!'), 'the manual one\'s log');
  check(true, 'the trigger button syncs the manual one, shown in its row and log');
  check((await page.evaluate(`document.getElementById('trigger-result').textContent`)) === 'hello-manual: triggered',
        'the page says it triggered');

  // A failing run: the row says failed, with the reason.
  fs.writeFileSync(path.join(app, 'src', 'broken.txt'), 'x\n');
  await until(async () => (await stateOf('hello-check')) === 'failed', 'hello-check failed');
  const reason = await cellText('hello-check', 'State');
  console.log(`failed row: ${reason.replace(/\s+/g, ' ')}`);
  check(reason.includes('ExecError') && reason.includes('3'), 'a failed update shows its reason');
  await until(async () => (await bars('hello-check')).at(-1)?.failed, 'a red bar for the failed update');
  check(true, 'the failed update is a red bar in its chart');

  fs.mkdirSync(artifacts, { recursive: true });
  fs.writeFileSync(path.join(artifacts, 'status-page.png'), await page.screenshot());
  // A narrow window: still readable, one card per LiveUpdate.
  await page.send('Emulation.setDeviceMetricsOverride', { width: 400, height: 900, deviceScaleFactor: 1, mobile: true });
  const narrow = await page.evaluate(`getComputedStyle(${row('hello')}).display`);
  check(narrow === 'block', 'on a narrow window each row is a card');
  fs.writeFileSync(path.join(artifacts, 'status-page-narrow.png'), await page.screenshot());
  console.log(`screenshots in ${artifacts}`);
  cdp.close();
}

let error = null;
try {
  await main();
} catch (e) {
  error = e;
  console.error(`FAIL ${e.message}`);
  for (const name of ['lu-host']) {
    const log = path.join(work, `${name}.log`);
    if (fs.existsSync(log)) console.error(`--- ${name} log (tail)\n${fs.readFileSync(log, 'utf8').split('\n').slice(-40).join('\n')}`);
  }
} finally {
  // Both stopped before their folders go: chromium writes its profile as it ends.
  await Promise.all(children.map((c) => new Promise((resolve) => {
    c.removeAllListeners('exit');
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const signal = (name) => { try { process.kill(-c.pid, name); } catch (e) { /* already gone */ } };
    const force = setTimeout(() => signal('SIGKILL'), 5000);
    c.on('exit', () => { clearTimeout(force); resolve(); });
    signal('SIGTERM');
  })));
  if (!process.env.LU_KEEP_TEST_DIRS) {
    try {
      fs.rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (e) {
      console.warn(`could not remove ${work}: ${e.message}`);
    }
  }
}
if (error || failures > 0) {
  // The reason again, last: a runner's tail of the output would otherwise show only the log above.
  console.error(`status page test: ${failures} check(s) failed${error ? `, stopped early: ${error.message}` : ''}`);
  process.exit(1);
}
console.log('status page test: all checks passed');
