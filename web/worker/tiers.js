// Device tiers: which model file this tab can serve. Pure functions, so that the rules are
// unit-tested with simulated adapters (tiers.test.mjs); app.js feeds them the real device.

/** What a 9B needs of a WebGPU adapter (the CPU path's WASM heap stops at 4 GiB). */
export const GPU_NEEDS = {
  maxBufferSize: 1 << 30,
  maxStorageBufferBindingSize: 1 << 30,
  deviceMemoryGiB: 8,
};

/** Tokens per second a calibration run must reach for each tier to be worth serving. */
export const MIN_TOKENS_PER_SECOND = { '9b': 4, '4b': 2 };

/** The facts of a WebGPU adapter that matter here (`null`: no adapter at all). */
export function adapterFacts(adapter) {
  if (!adapter) return null;
  const info = adapter.info || {};
  return {
    fallback: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
    shaderF16: Boolean(adapter.features && adapter.features.has('shader-f16')),
    maxBufferSize: Number(adapter.limits?.maxBufferSize ?? 0),
    maxStorageBufferBindingSize: Number(adapter.limits?.maxStorageBufferBindingSize ?? 0),
  };
}

/** Why this GPU cannot run the 9B, or null when it can. */
export function gpuShortfall(facts, deviceMemoryGiB) {
  if (!facts) return 'no WebGPU adapter';
  if (facts.fallback) return 'the WebGPU adapter is a software fallback';
  if (!facts.shaderF16) return 'the WebGPU adapter lacks shader-f16';
  if (facts.maxBufferSize < GPU_NEEDS.maxBufferSize) return 'WebGPU buffers are too small';
  if (facts.maxStorageBufferBindingSize < GPU_NEEDS.maxStorageBufferBindingSize) {
    return 'WebGPU storage bindings are too small';
  }
  // navigator.deviceMemory is capped at 8 by browsers; unknown counts as enough.
  if (deviceMemoryGiB !== undefined && deviceMemoryGiB < GPU_NEEDS.deviceMemoryGiB) {
    return 'not enough device memory';
  }
  return null;
}

/**
 * The tiers to try, best first: `[{variant, gpu}]` among the files the gateway offers.
 * `offered` is a list of variant names ('4b', '9b').
 */
export function candidates(facts, deviceMemoryGiB, offered) {
  const out = [];
  if (offered.includes('9b') && gpuShortfall(facts, deviceMemoryGiB) === null) {
    out.push({ variant: '9b', gpu: true });
  }
  if (offered.includes('4b')) out.push({ variant: '4b', gpu: false });
  return out;
}

/** Whether a calibration run of `variant` at `tokensPerSecond` is fast enough to serve. */
export function fastEnough(variant, tokensPerSecond) {
  return tokensPerSecond >= (MIN_TOKENS_PER_SECOND[variant] ?? Infinity);
}

/** The next tier after `variant` failed (lost GPU, slow calibration), or null: too slow. */
export function fallBack(list, variant) {
  const i = list.findIndex((c) => c.variant === variant);
  return i >= 0 && i + 1 < list.length ? list[i + 1] : null;
}

/**
 * Watches `adapter` for a lost GPU: wllama's device lives in its own Web Worker, out of the
 * page's reach, so the page holds a small sentinel device on the same adapter (a GPU process
 * crash, a driver reset or an unplugged GPU loses every device on it) and calls
 * `onLost(message)` once when that one is lost. A device destroyed on purpose is no loss.
 * Resolves to a function that stops watching.
 */
export async function watchGpu(adapter, onLost) {
  let device;
  try {
    device = await adapter.requestDevice();
  } catch (e) {
    onLost(`no WebGPU device: ${e && e.message || e}`);
    return () => {};
  }
  let stopped = false;
  device.lost.then((info) => {
    if (!stopped && info?.reason !== 'destroyed') onLost(info?.message || 'the WebGPU device was lost');
  });
  return () => {
    stopped = true;
    device.destroy?.();
  };
}

/** After the GPU is lost while serving `variant`: the next tier that needs no GPU, or null. */
export function afterGpuLoss(list, variant) {
  let next = fallBack(list, variant);
  while (next && next.gpu) next = fallBack(list, next.variant);
  return next;
}
