// bench/browser: one tab (the page /worker, headless Chromium) and a native llama worker on the
// same GGUF, asked in alternating order each round; prints one JSON line for bench/browser/run.
// Env: SHOAL_BASE, SHOAL_INVITE, SHOAL_KEY, ROUNDS, MAX_TOKENS, BIG_BYTES (the 2.5 GB file's size).
import { chromium } from 'playwright-core';

const env = (k) => process.env[k];
const BASE = env('SHOAL_BASE');
const ROUNDS = Number(env('ROUNDS') || 3);
const MAX_TOKENS = Number(env('MAX_TOKENS') || 64);
const PROMPT = 'Write a long story about a lighthouse keeper and the sea.';

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
      messages: [{ role: 'user', content: PROMPT }] }),
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

const browser = await chromium.launch({ executablePath: env('CHROMIUM') || '/usr/bin/chromium', headless: true });
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(`${BASE}/worker#invite=${env('SHOAL_INVITE')}&min_tps=0`);
await until(() => page.evaluate(() => ['serving', 'failed', 'too-slow'].includes(window.shoal?.state.phase)), 600_000);
const first = await page.evaluate(() => window.shoal.state);
if (first.phase !== 'serving') throw new Error(JSON.stringify(first));

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

// A second visit: the same model file from the Cache API.
const again = await context.newPage();
await again.goto(`${BASE}/worker#invite=${env('SHOAL_INVITE')}&min_tps=0`);
await until(() => again.evaluate(() => ['serving', 'failed', 'too-slow'].includes(window.shoal?.state.phase)), 600_000);
const second = await again.evaluate(() => window.shoal.state);
await again.close();

// The large file: downloaded and stored, then read back from the cache.
let big = null;
if (env('BIG_BYTES')) {
  const bytes = Number(env('BIG_BYTES'));
  big = await page.evaluate(async (bytes) => {
    const t0 = performance.now();
    await window.shoal.fetchModel('/worker/models/9b.gguf', bytes);
    const t1 = performance.now();
    const blob = await window.shoal.fetchModel('/worker/models/9b.gguf', bytes);
    const t2 = performance.now();
    return { coldMs: t1 - t0, cachedMs: t2 - t1, size: blob.size };
  }, bytes);
}
await browser.close();
console.log(JSON.stringify({ threads: first.threads, first: { downloadMs: first.downloadMs, loadMs: first.loadMs },
  second: { downloadMs: second.downloadMs, loadMs: second.loadMs, cached: second.cached }, rounds, big }));
