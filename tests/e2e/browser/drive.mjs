// Drives browser tabs (the page /worker, in Debian's Chromium, headless) and the openai SDK
// against a live gateway, for tests/e2e/test_browser.py: `node drive.mjs SCENARIO`, with
// SHOAL_BASE, SHOAL_INVITE, SHOAL_KEY, SHOAL_SHOTS (screenshot folder) and CHROMIUM in the
// environment. Prints one JSON line of observations; the Python test asserts on them.
import { chromium } from 'playwright-core';
import OpenAI from 'openai';

const env = (k) => {
  if (!process.env[k]) throw new Error(`${k} is not set`);
  return process.env[k];
};
const BASE = env('SHOAL_BASE');
const INVITE = env('SHOAL_INVITE');
const SHOTS = env('SHOAL_SHOTS');
const client = new OpenAI({ baseURL: `${BASE}/api/v1`, apiKey: env('SHOAL_KEY'), maxRetries: 0, timeout: 60_000 });
const MODEL = 'service-pro';
const PROMPT = [{ role: 'user', content: 'Say something about tide pools.' }];

async function until(what, check, ms = 60_000, every = 100) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

async function available() {
  const res = await fetch(`${BASE}/api/v1/models/${MODEL}`, { headers: { authorization: `Bearer ${env('SHOAL_KEY')}` } });
  return (await res.json()).available === true;
}

/** A tab serving from the invite link; `hold` lets a test hold its jobs or watch its output. */
async function openTab(browser, name, route) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.error(`[${name}] ${m.text()}`); });
  if (route) await page.routeWebSocket(/\/api\/worker\/ws/, route);
  await page.goto(`${BASE}/worker#invite=${INVITE}`);
  await until(`${name} serving`, () => page.evaluate(() => window.shoal?.state.phase === 'serving'
    || ['failed', 'too-slow'].includes(window.shoal?.state.phase)));
  const state = await page.evaluate(() => window.shoal.state);
  if (state.phase !== 'serving') throw new Error(`${name} did not serve: ${JSON.stringify(state)}`);
  return { name, context, page };
}

const shot = (tab, label) => tab.page.screenshot({ path: `${SHOTS}/${label}.png`, fullPage: true });
const tabState = (tab) => tab.page.evaluate(() => ({ ...window.shoal.state, isolated: crossOriginIsolated }));

/** Streams a completion; returns the text, the usage, and how it ended. */
async function stream(maxTokens = 24, out = { content: '', usage: null, error: null, chunks: 0 }) {
  try {
    const s = await client.chat.completions.create({ model: MODEL, messages: PROMPT, stream: true,
      max_tokens: maxTokens, stream_options: { include_usage: true } });
    for await (const c of s) {
      out.chunks += 1;
      out.content += c.choices?.[0]?.delta?.content ?? '';
      if (c.usage) out.usage = c.usage;
    }
  } catch (e) {
    out.error = { status: e.status ?? null, message: String(e.message) };
  }
  return out;
}

/** One tab: joins, serves a streamed completion, counts with its own llama.cpp tokenizer. */
async function serve(browser) {
  const bare = await browser.newPage();
  await bare.goto(`${BASE}/worker`);
  await until('no-invite message', () => bare.evaluate(() => window.shoal?.state.phase === 'no-invite'));
  await bare.screenshot({ path: `${SHOTS}/no-invite.png`, fullPage: true });
  // What the tab sends, as the gateway receives it: the raw text, before the gateway's parser
  // (which trims leading space and moves <think> text to reasoning).
  const raw = [];
  const tab = await openTab(browser, 'tab', (ws) => {
    const server = ws.connectToServer();
    server.onMessage((m) => ws.send(m));
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'delta') raw.push(msg.content ?? '');
      server.send(m);
    });
  });
  await shot(tab, 'serving');
  const availableAfterJoin = await available();
  const got = await stream();
  const state = await tabState(tab);
  // llama.cpp's server counts only the tokens it did not find in its cache as prompt tokens.
  const u = state.lastUsage;
  const tabPromptTokens = u ? u.prompt_tokens + (u.prompt_tokens_details?.cached_tokens ?? 0) : null;
  const tabCountOfAnswer = await tab.page.evaluate((t) => window.shoal.count(t), raw.join(''));
  await shot(tab, 'served');
  await tab.page.click('#stop');
  await until('stopped', () => tab.page.evaluate(() => window.shoal.state.phase === 'stopped'));
  await shot(tab, 'stopped');
  const availableAfterStop = await until('not available', async () => !(await available()) || null, 20_000)
    .then(() => false).catch(() => true);
  // A second visit in the same browser: the model file from storage (OPFS), no download.
  const again = await tab.context.newPage();
  await again.goto(`${BASE}/worker#invite=${INVITE}`);
  await until('second visit', () => again.evaluate(() => ['serving', 'failed', 'too-slow'].includes(window.shoal?.state.phase)));
  const secondVisit = await again.evaluate(() => ({ phase: window.shoal.state.phase, cached: window.shoal.state.cached }));
  await again.evaluate(() => window.shoal.session.stop());
  return { availableAfterJoin, availableAfterStop, got, raw: raw.join(''), state, tabPromptTokens, tabCountOfAnswer,
    secondVisit };
}

/** Two tabs, six requests at once: both serve. */
async function share(browser) {
  const tabs = [await openTab(browser, 'a'), await openTab(browser, 'b')];
  const results = await Promise.all(Array.from({ length: 6 }, () => stream(16)));
  const jobs = [];
  for (const t of tabs) jobs.push((await tabState(t)).jobs);
  await shot(tabs[0], 'shared-a');
  return { jobs, errors: results.filter((r) => r.error).length, usages: results.map((r) => r.usage) };
}

/** Tab A holds its first job and closes before any token: tab B answers it. */
async function closeBefore(browser) {
  let held = 0;
  const a = await openTab(browser, 'a', (ws) => {
    const server = ws.connectToServer();
    server.onMessage((m) => {
      if (String(m).includes('"prompt_job"')) { held += 1; return; }
      ws.send(m);
    });
    ws.onMessage((m) => server.send(m));
  });
  const answer = stream();
  await until('job held by tab a', () => held > 0);
  const b = await openTab(browser, 'b');
  await a.context.close();
  const got = await answer;
  const jobsB = (await tabState(b)).jobs;
  await shot(b, 'failover-b');
  return { held, got, jobsB };
}

/** Tab A closes after its first token reached the client: the stream ends with an error. */
async function closeAfter(browser) {
  // Deltas and heartbeats pass until the client has its first chunk (the gateway's parser may
  // hold a first delta back, so one forwarded delta is not yet a token at the client); from
  // then on nothing does. The job's end never passes (the random model may end it early): the
  // tab is as good as closed.
  let blocked = false;
  const a = await openTab(browser, 'a', (ws) => {
    const server = ws.connectToServer();
    server.onMessage((m) => ws.send(m));
    ws.onMessage((m) => {
      const type = JSON.parse(String(m)).type;
      if (!blocked && type !== 'done' && type !== 'error') server.send(m);
    });
  });
  const progress = { content: '', usage: null, error: null, chunks: 0 };
  const answer = stream(4000, progress);
  await until('a first token at the client', () => progress.chunks >= 1 || progress.error, 60_000, 10);
  blocked = true;
  await a.context.close();
  const got = await answer;
  return { got };
}

/** The tab's network goes away: the gateway drops it after the heartbeat window. */
async function offline(browser) {
  const tab = await openTab(browser, 'tab');
  const before = await available();
  const t0 = Date.now();
  await tab.context.setOffline(true);
  await until('service-pro unavailable', async () => !(await available()), 30_000);
  const droppedAfterMs = Date.now() - t0;
  await shot(tab, 'offline');
  return { before, droppedAfterMs };
}

/** Requests with `response_format` (SHOAL_SCHEMA, a JSON Schema; else `json_object`), streamed
 * and not, from one tab: the answers as the client got them, and whether the tab's hello said
 * it enforces them. */
async function structured(browser) {
  const hello = [];
  const tab = await openTab(browser, 'tab', (ws) => {
    const server = ws.connectToServer();
    server.onMessage((m) => ws.send(m));
    ws.onMessage((m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'hello') hello.push(msg);
      server.send(m);
    });
  });
  const schema = process.env.SHOAL_SCHEMA ? JSON.parse(process.env.SHOAL_SCHEMA) : null;
  const response_format = schema
    ? { type: 'json_schema', json_schema: { name: 'out', strict: true, schema } }
    : { type: 'json_object' };
  const answers = [];
  for (let seed = 0; seed < Number(process.env.SHOAL_COUNT || 10); seed++) {
    const args = { model: MODEL, messages: PROMPT, max_tokens: 1500, seed, response_format };
    if (seed % 2 === 0) {
      const r = await client.chat.completions.create(args);
      answers.push({ content: r.choices[0].message.content, finish: r.choices[0].finish_reason });
    } else {
      const out = { content: '', finish: null };
      for await (const c of await client.chat.completions.create({ ...args, stream: true })) {
        out.content += c.choices?.[0]?.delta?.content ?? '';
        out.finish = c.choices?.[0]?.finish_reason ?? out.finish;
      }
      answers.push(out);
    }
  }
  await tab.context.close();
  return { answers, announced: hello[0]?.models?.[0]?.structured_outputs ?? false };
}

const scenarios = { serve, share, closeBefore, closeAfter, offline, structured };
const name = process.argv[2];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true });
const watchdog = setTimeout(() => { console.error('drive.mjs: timed out'); process.exit(3); }, 150_000);
try {
  const result = await scenarios[name](browser);
  console.log(JSON.stringify(result));
} finally {
  clearTimeout(watchdog);
  await browser.close();
}
