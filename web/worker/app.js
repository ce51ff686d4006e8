// The browser worker: picks a tier, fetches and keeps the model file, loads it into wllama,
// dials the gateway's worker socket with the invite token and serves prompt jobs, streamed.
// The gateway renders every prompt and counts every token itself; the tab sends raw text.
import { Wllama } from '/worker/vendor/wllama/index.js';
import { adapterFacts, afterGpuLoss, candidates, fastEnough, fallBack, watchGpu } from '/worker/tiers.js';

const $ = (id) => document.getElementById(id);
// Where earlier versions of the page kept model files; emptied, since the Cache API did not
// keep files of a gigabyte or more.
const OLD_CACHE = 'shoal-models-v1';

// What the page shows, and what tests read (`window.shoal`); never prompts or answers.
const state = { phase: 'starting', connection: 'offline', model: null, tier: null,
  tokensPerSecond: null, jobs: 0, threads: null, lastUsage: null, error: null };
window.shoal = { state, fetchModel: (url, bytes, modified) => modelBlob(url, bytes, modified) };

function show(message, bad = false) {
  $('message').textContent = message;
  $('message').className = bad ? 'bad' : '';
}

function render() {
  $('s-conn').textContent = state.connection;
  $('s-model').textContent = state.model ?? '–';
  $('s-tier').textContent = state.tier ?? '–';
  $('s-tps').textContent = state.tokensPerSecond ? state.tokensPerSecond.toFixed(1) : '–';
  $('s-jobs').textContent = String(state.jobs);
  $('s-threads').textContent = state.threads ?? '–';
}

function progress(label, done, total) {
  $('progress-box').hidden = false;
  $('progress-label').textContent = label;
  const gb = (n) => (n / 1e9).toFixed(2) + ' GB';
  if (total > 0) {
    $('progress').max = total;
    $('progress').value = done;
    $('progress-text').textContent = `${gb(done)} of ${gb(total)}`;
  } else {
    $('progress').removeAttribute('value');
    $('progress-text').textContent = '';
  }
}

/**
 * The model file at `url` (`bytes` long, `modified` its server time): from the origin private
 * file system (OPFS) when a whole copy is there, else downloaded with progress, written there
 * as it arrives, and returned from there (a disk-backed File, not gigabytes of page memory).
 */
async function modelBlob(url, bytes, modified = 0, store = true) {
  const name = `${url.split('/').pop()}-${bytes}-${modified}`;
  let dir = null;
  try {
    if (store) dir = await navigator.storage.getDirectory();
    const stored = await (await dir.getFileHandle(name)).getFile();
    if (stored.size === bytes) {
      state.cached = true;
      return stored;
    }
  } catch { /* no OPFS, or no copy yet */ }
  state.cached = false;
  const res = await fetch(url);
  if (!res.ok) throw new Error(`model download failed (${res.status})`);
  const out = await storedWriter(dir, name, url);
  const reader = res.body.getReader();
  // Kept in page memory only while there is no stored copy to read back.
  const parts = [];
  let done = 0;
  let kept = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    done += value.byteLength;
    if (!out.storing()) {
      parts.push(value);
      kept += value.byteLength;
    }
    await out.write(value);
    progress('Downloading the model', done, bytes);
  }
  const file = await out.close();
  if (file && file.size === bytes) return file;
  if (kept === done) return new Blob(parts);
  // Storage failed part way (full, refused): download again into memory, and serve.
  return modelBlob(url, bytes, modified, false);
}

/** Writes a download into OPFS as `name` (older copies of the same file removed first). */
async function storedWriter(dir, name, url) {
  let writable = null;
  let handle = null;
  const failed = (e) => {
    state.cacheError = String(e && e.message || e);
    writable?.abort().catch(() => {});
    writable = null;
  };
  if (dir) {
    try {
      const prefix = `${url.split('/').pop()}-`;
      for await (const key of dir.keys()) {
        if (key.startsWith(prefix) && key !== name) await dir.removeEntry(key);
      }
      handle = await dir.getFileHandle(name, { create: true });
      writable = await handle.createWritable();
    } catch (e) { failed(e); }
  }
  return {
    storing: () => writable !== null,
    async write(chunk) {
      if (!writable) return;
      try { await writable.write(chunk); } catch (e) { failed(e); }
    },
    async close() {
      if (!writable) {
        if (handle) await dir.removeEntry(handle.name).catch(() => {});
        return null;
      }
      try {
        await writable.close();
        return await handle.getFile();
      } catch (e) {
        failed(e);
        return null;
      }
    },
  };
}

/** Loads `variant` and measures it with a short greedy run; null when it cannot serve. */
async function load(config, choice) {
  const file = config.variants.find((v) => v.variant === choice.variant);
  let t0 = performance.now();
  const blob = await modelBlob(file.url, file.bytes, file.modified);
  state.downloadMs = performance.now() - t0;
  progress('Loading the model', 0, 0);
  t0 = performance.now();
  const wllama = new Wllama({ default: '/worker/vendor/wllama/wllama.wasm' });
  wllama.setCompat(null); // no CDN: every file comes from this gateway
  // `#…&threads=N` pins the thread count (benchmarks against a native worker's `--threads`).
  const pinned = Number(new URLSearchParams(location.hash.slice(1)).get('threads'));
  await wllama.loadModel([blob], { n_ctx: file.context, n_gpu_layers: choice.gpu ? 999 : 0,
    n_threads: pinned > 0 ? pinned : navigator.hardwareConcurrency || 1 });
  state.loadMs = performance.now() - t0;
  state.threads = wllama.getNumThreads();
  const started = performance.now();
  let tokens = 0;
  const bias = Object.fromEntries(file.banned_tokens.map((id) => [String(id), false]));
  await wllama.createCompletion({ prompt: 'The', max_tokens: 16, temperature: 0, stream: true,
    logit_bias: bias, onData: () => { tokens += 1; } });
  const rate = tokens / ((performance.now() - started) / 1000);
  $('progress-box').hidden = true;
  // `#…&min_tps=N` overrides the tier's threshold (benchmarks on a loaded machine); the
  // gateway measures every tab's speed itself whatever the tab decides.
  const floor = Number(new URLSearchParams(location.hash.slice(1)).get('min_tps'));
  const enough = Number.isFinite(floor) && floor >= 0 && location.hash.includes('min_tps=')
    ? rate >= floor : fastEnough(choice.variant, rate);
  if (!enough) {
    await wllama.exit();
    return null;
  }
  state.tokensPerSecond = rate;
  return { wllama, file, bias };
}

/** The tiers this device may run, best first, and its WebGPU adapter (null: none). */
async function tiersOf(config) {
  let adapter = null;
  try {
    adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
  } catch { adapter = null; }
  const offered = config.variants.map((v) => v.variant);
  return { adapter, list: candidates(adapterFacts(adapter), navigator.deviceMemory, offered) };
}

const tierName = (c) => (c.gpu ? `${c.variant} on WebGPU` : `${c.variant} on CPU`);

/** Tries `first` and the tiers after it in `list`; null when none can serve. */
async function pickAndLoad(config, list, first = list[0]) {
  for (let c = first; c; c = fallBack(list, c.variant)) {
    state.tier = tierName(c);
    render();
    try {
      const loaded = await load(config, c);
      if (loaded) return { ...loaded, choice: c };
    } catch (e) {
      console.warn('tier failed', c.variant, e);
      state.error = String(e && e.message || e);
    }
  }
  return null;
}

/** The gateway's grammar for a job, in the fields llama.cpp's completion options take: lazy
 * (free until the output matches `grammar_trigger` whole, a PATTERN_FULL trigger, type 3) or
 * from the first token. */
function grammar(p) {
  if (!p.grammar) return {};
  if (!p.grammar_trigger) return { grammar: p.grammar };
  return { grammar: p.grammar, grammar_lazy: true, grammar_triggers: [{ type: 3, value: p.grammar_trigger }] };
}

class Session {
  constructor(token, model, loaded) {
    Object.assign(this, { token, model, loaded, jobs: new Map(), stopped: false });
    this.beat = new Worker('/worker/beat.js');
    this.beat.onmessage = () => this.send({ type: 'heartbeat' });
    this.dial();
  }

  dial() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/worker/ws?token=${encodeURIComponent(this.token)}`);
    this.ws = ws;
    state.connection = 'connecting';
    render();
    ws.onopen = () => this.send({ type: 'hello', protocol: 1, kind: 'browser', name: 'browser tab',
      concurrency: 1, variant: this.loaded.choice.variant,
      models: [{ id: this.model, tools: true, context_length: this.loaded.file.context,
        structured_outputs: true }] });
    ws.onmessage = (e) => this.receive(JSON.parse(e.data));
    ws.onclose = () => {
      this.beat.postMessage({ every: 0 });
      for (const job of this.jobs.values()) job.abort();
      state.connection = this.stopped ? 'stopped' : 'disconnected, retrying';
      render();
      if (this.stopped) return;
      // Back off to a minute: a refused or expired invite must not hammer the gateway.
      this.retry = Math.min((this.retry || 1500) * 2, 60_000);
      show(`Lost the connection to the gateway; trying again in ${Math.round(this.retry / 1000)} s.`, true);
      setTimeout(() => this.dial(), this.retry);
    };
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  receive(msg) {
    if (msg.type === 'welcome') {
      this.retry = 0;
      state.connection = 'serving';
      state.phase = 'serving';
      show('Serving: this tab answers requests while it stays open.');
      this.beat.postMessage({ every: msg.heartbeat_interval_ms });
    } else if (msg.type === 'refused') {
      this.stopped = true;
      show(`The gateway refused this tab: ${msg.message}`, true);
    } else if (msg.type === 'prompt_job') {
      this.run(msg);
    } else if (msg.type === 'cancel') {
      this.jobs.get(msg.job_id)?.abort();
    } else if (msg.type === 'job' || msg.type === 'image_job') {
      this.send({ type: 'error', job_id: msg.job_id, code: 'bad_job', retryable: true });
    }
    render();
  }

  async run(msg) {
    const abort = new AbortController();
    this.jobs.set(msg.job_id, abort);
    const p = msg.params;
    let sent = 0;
    let finish = 'length';
    let usage = null;
    const started = performance.now();
    try {
      const stream = await this.loaded.wllama.createCompletion({
        prompt: msg.prompt, stream: true, max_tokens: p.max_tokens, temperature: p.temperature ?? 1,
        top_p: p.top_p ?? 1, seed: p.seed ?? undefined, logit_bias: this.loaded.bias, stop: p.stop?.length ? p.stop : undefined,
        ...grammar(p), abortSignal: abort.signal });
      for await (const chunk of stream) {
        const choice = chunk.choices?.[0];
        if (choice?.text) {
          if (sent === 0) state.lastTtftMs = performance.now() - started;
          this.send({ type: 'delta', job_id: msg.job_id, content: choice.text });
          sent += 1;
        }
        if (choice?.finish_reason) finish = choice.finish_reason === 'stop' ? 'stop' : 'length';
        if (chunk.usage) usage = chunk.usage;
      }
      if (abort.signal.aborted) finish = 'stop';
      this.send({ type: 'done', job_id: msg.job_id, finish_reason: finish,
        usage: { prompt_tokens: usage?.prompt_tokens ?? 0, completion_tokens: usage?.completion_tokens ?? sent } });
      state.jobs += 1;
      state.lastUsage = usage;
      const secs = (performance.now() - started) / 1000;
      if (sent > 1) state.tokensPerSecond = sent / secs;
    } catch (e) {
      if (abort.signal.aborted) {
        this.send({ type: 'done', job_id: msg.job_id, finish_reason: 'stop',
          usage: { prompt_tokens: 0, completion_tokens: sent } });
      } else {
        console.warn('job failed', e);
        this.send({ type: 'error', job_id: msg.job_id, code: 'inference_failed', retryable: sent === 0 });
        // On WebGPU a failing engine is most often a lost device: the caller falls back.
        this.onEngineFailure?.(String(e && e.message || e));
      }
    } finally {
      this.jobs.delete(msg.job_id);
      render();
    }
  }

  /** Leaves the gateway (its jobs fail over, or end with an error after their first token). */
  stop(phase = 'stopped', message = 'Stopped. Reload the page to serve again.') {
    if (this.stopped) return;
    this.stopped = true;
    this.beat.terminate();
    this.ws?.close();
    this.release?.();
    this.loaded.wllama.exit().catch(() => {});
    state.phase = phase;
    state.connection = 'stopped';
    show(message, phase !== 'stopped');
    render();
  }
}

/** Serves with `loaded` until stopped; on WebGPU, a lost GPU falls back to the CPU tier. */
async function serve(token, config, tiers, loaded) {
  state.tier = tierName(loaded.choice);
  const session = new Session(token, config.model, loaded);
  window.shoal.session = session;
  // Counts `text` with the tab's own llama.cpp tokenizer (the tests compare the gateway's count).
  window.shoal.count = async (text) => {
    const r = await loaded.wllama.createCompletion({ prompt: text, max_tokens: 1, temperature: 0, cache_prompt: false,
      logit_bias: loaded.bias });
    return r.usage.prompt_tokens + (r.usage.prompt_tokens_details?.cached_tokens ?? 0);
  };
  $('stop').disabled = false;
  $('stop').onclick = () => session.stop();
  // Holding a Web Lock while serving keeps the browser from discarding the tab as idle.
  navigator.locks?.request('shoal-worker', () => new Promise((resolve) => { session.release = resolve; }));
  if (!loaded.choice.gpu) return;
  let unwatch = () => {};
  const lost = (why) => {
    unwatch();
    if (!session.stopped) gpuLost(token, config, tiers, session, why);
  };
  session.onEngineFailure = lost;
  unwatch = await watchGpu(tiers.adapter, lost);
}

/** The GPU is gone: leave, then serve the next tier that needs none, or leave for good. */
async function gpuLost(token, config, tiers, session, why) {
  state.gpuLost = why;
  const next = afterGpuLoss(tiers.list, session.loaded.choice.variant);
  session.stop('gpu-lost', `The GPU was lost (${why}).`);
  const loaded = next && await pickAndLoad(config, tiers.list, next);
  if (!loaded) {
    state.phase = 'left';
    state.tier = 'none';
    render();
    return show(`The GPU was lost (${why}) and this device cannot serve on its CPU: this tab has left.`, true);
  }
  show(`The GPU was lost (${why}): serving the ${loaded.choice.variant} on the CPU instead.`, true);
  await serve(token, config, tiers, loaded);
}

async function main() {
  const token = new URLSearchParams(location.hash.slice(1)).get('invite');
  if (!token) {
    state.phase = 'no-invite';
    return show('This page needs an invite link from the operator (…/worker#invite=…).', true);
  }
  if (!crossOriginIsolated) show('Warning: the page is not cross-origin isolated; one thread only.', true);
  globalThis.caches?.delete(OLD_CACHE).catch(() => {});
  const config = await (await fetch('/worker/config.json')).json();
  state.model = config.model;
  render();
  const tiers = await tiersOf(config);
  const loaded = await pickAndLoad(config, tiers.list);
  if (!loaded && state.error) {
    state.phase = 'failed';
    return show(`Could not load the model: ${state.error}`, true);
  }
  if (!loaded) {
    state.phase = 'too-slow';
    state.tier = 'none';
    render();
    return show('This device is too slow to help: thank you all the same.', true);
  }
  await serve(token, config, tiers, loaded);
  addEventListener('pagehide', () => window.shoal.session.stop());
}

main().catch((e) => {
  state.phase = 'failed';
  state.error = String(e && e.message || e);
  show(`Could not start: ${state.error}`, true);
});
