// bench/browser: one tab (the page /worker, headless Chromium) and a native llama worker on the
// same GGUF, asked in alternating order each round; prints one JSON line for bench/browser/run.
// Env: SHOAL_BASE, SHOAL_INVITE, SHOAL_KEY, ROUNDS, MAX_TOKENS, BIG_BYTES (the 2.5 GB file's size),
// PROFILE (a fresh user data folder: a real profile on disk, whose storage quota is a share of
// the disk, where an incognito context keeps storage in memory).
import { chromium } from 'playwright-core';

const env = (k) => process.env[k];
const BASE = env('SHOAL_BASE');
const ROUNDS = Number(env('ROUNDS') || 3);
const MAX_TOKENS = Number(env('MAX_TOKENS') || 64);
// Short, and with a system message of our own (the template's default one is ~40 tokens of
// the generated vocabulary): on a loaded 2-core machine the tab reads its prompt at about a
// token a second, and a tab without a token for 30 s (the gateway's step deadline) is dropped.
const SYSTEM = 'Be brief.';
const PROMPT = 'Tell me a story.';

async function until(check, ms) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One streamed request, timed at the client: send, first and last content chunk. */
async function ask(model) {
  const t0 = performance.now();
  const res = await fetch(`${BASE}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env('SHOAL_KEY')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, max_tokens: MAX_TOKENS, temperature: 1, seed: 1,
      stream_options: { include_usage: true },
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: PROMPT }] }),
  });
  let first = null;
  let last = null;
  let usage = null;
  const dec = new TextDecoder();
  let buf = '';
  for await (const part of res.body) {
    buf += dec.decode(part, { stream: true });
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const ev = buf.slice(0, i);
      buf = buf.slice(i + 2);
      if (!ev.startsWith('data: ') || ev === 'data: [DONE]') continue;
      const chunk = JSON.parse(ev.slice(6));
      if (chunk.choices?.[0]?.delta?.content) {
        const now = performance.now();
        first ??= now;
        last = now;
      }
      if (chunk.usage) usage = chunk.usage;
    }
  }
  const n = usage?.completion_tokens ?? 0;
  return { ttftMs: first - t0, tps: n > 1 ? (n - 1) / ((last - first) / 1000) : null, tokens: n };
}

const context = await chromium.launchPersistentContext(env('PROFILE'),
  { executablePath: env('CHROMIUM') || '/usr/bin/chromium', headless: true });
/** A visit: the page opened afresh in the same profile, until it serves. */
async function visit() {
  const page = await context.newPage();
  await page.goto(`${BASE}/worker#invite=${env('SHOAL_INVITE')}&min_tps=0&threads=${env('THREADS')}`);
  await until(() => page.evaluate(() => ['serving', 'failed', 'too-slow'].includes(window.shoal?.state.phase)), 900_000);
  const state = await page.evaluate(() => window.shoal.state);
  if (state.phase !== 'serving') throw new Error(JSON.stringify(state));
  return { page, state };
}
const { page, state: first } = await visit();

const rounds = [];
for (let r = 0; r < ROUNDS; r++) {
  const both = env('NATIVE') ? ['native', 'tab'] : ['tab'];
  const order = r % 2 === 0 ? both : [...both].reverse();
  const row = {};
  for (const who of order) {
    row[who] = await ask(who === 'tab' ? 'service-pro' : 'large-27b-uncensored');
    if (who === 'tab') row.tabOwnTtftMs = await page.evaluate(() => window.shoal.state.lastTtftMs);
  }
  rounds.push(row);
}

// A second visit: the model file from the origin private file system (OPFS), no download.
await page.close();
const { page: again, state: second } = await visit();

// The large file: downloaded and stored, then, on another visit, opened and read back whole.
let big = null;
if (env('BIG_BYTES')) {
  const bytes = Number(env('BIG_BYTES'));
  const url = '/worker/models/9b.gguf';
  const cold = await again.evaluate(async ([url, bytes]) => {
    const t0 = performance.now();
    await window.shoal.fetchModel(url, bytes);
    return { coldMs: performance.now() - t0, cached: window.shoal.state.cached };
  }, [url, bytes]);
  await again.close();
  const third = await context.newPage();
  await third.goto(`${BASE}/worker`); // no invite: the page stops before any model; fetchModel still works
  await until(() => third.evaluate(() => window.shoal?.state.phase === 'no-invite'), 60_000);
  const warm = await third.evaluate(async ([url, bytes]) => {
    const t0 = performance.now();
    const file = await window.shoal.fetchModel(url, bytes);
    const t1 = performance.now();
    let read = 0;
    for await (const chunk of file.stream()) read += chunk.byteLength;
    return { openMs: t1 - t0, readMs: performance.now() - t1, read, cached: window.shoal.state.cached };
  }, [url, bytes]);
  big = { size: bytes, ...cold, warm };
}
await context.close();
console.log(JSON.stringify({ threads: first.threads,
  first: { downloadMs: first.downloadMs, loadMs: first.loadMs, cached: first.cached, cacheError: first.cacheError },
  second: { downloadMs: second.downloadMs, loadMs: second.loadMs, cached: second.cached }, rounds, big }));
