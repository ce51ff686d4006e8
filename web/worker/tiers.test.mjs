// node --test web/worker/tiers.test.mjs — the tier rules against simulated adapters.
import test from 'node:test';
import assert from 'node:assert/strict';
import { adapterFacts, gpuShortfall, candidates, fastEnough, fallBack, watchGpu, afterGpuLoss } from './tiers.js';

const GiB = 1 << 30;
function adapter({ fallback = false, f16 = true, buffer = 4 * GiB, binding = 2 * GiB } = {}) {
  return {
    info: { isFallbackAdapter: fallback },
    features: new Set(f16 ? ['shader-f16'] : []),
    limits: { maxBufferSize: buffer, maxStorageBufferBindingSize: binding },
  };
}

test('a capable GPU gets the 9B first, the 4B as its fallback', () => {
  const list = candidates(adapterFacts(adapter()), 8, ['4b', '9b']);
  assert.deepEqual(list, [{ variant: '9b', gpu: true }, { variant: '4b', gpu: false }]);
  assert.deepEqual(fallBack(list, '9b'), { variant: '4b', gpu: false });
  assert.equal(fallBack(list, '4b'), null);
});

test('SwiftShader-like adapters get the 4B on the CPU', () => {
  for (const [a, why] of [
    [adapter({ fallback: true }), 'software fallback'],
    [adapter({ f16: false }), 'shader-f16'],
    [adapter({ buffer: 256 << 20 }), 'buffers'],
    [adapter({ binding: 128 << 20 }), 'storage bindings'],
  ]) {
    assert.match(gpuShortfall(adapterFacts(a), 8), new RegExp(why));
    assert.deepEqual(candidates(adapterFacts(a), 8, ['4b', '9b']), [{ variant: '4b', gpu: false }]);
  }
});

test('no adapter, little memory, or no 4B file', () => {
  assert.equal(gpuShortfall(adapterFacts(null), 8), 'no WebGPU adapter');
  assert.equal(gpuShortfall(adapterFacts(adapter()), 4), 'not enough device memory');
  assert.equal(gpuShortfall(adapterFacts(adapter()), undefined), null);
  assert.deepEqual(candidates(null, 8, ['9b']), []);
});

test('calibration thresholds', () => {
  assert.ok(fastEnough('9b', 4) && !fastEnough('9b', 3.9));
  assert.ok(fastEnough('4b', 2) && !fastEnough('4b', 1.5));
  assert.ok(!fastEnough('70b', 100));
});

/** A simulated adapter whose devices can be lost on demand (`lose(reason)`). */
function losable() {
  const devices = [];
  const a = adapter();
  a.requestDevice = async () => {
    let lose;
    const device = { lost: new Promise((r) => { lose = r; }), destroyed: false };
    device.destroy = () => { device.destroyed = true; lose({ reason: 'destroyed', message: '' }); };
    devices.push({ device, lose });
    return device;
  };
  return { adapter: a, lose: (reason, message) => devices.forEach((d) => d.lose({ reason, message })), devices };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test('a lost GPU device is reported once; a destroyed one is not', async () => {
  const gpu = losable();
  const heard = [];
  await watchGpu(gpu.adapter, (m) => heard.push(m));
  assert.equal(gpu.devices.length, 1, 'a sentinel device on the same adapter');
  gpu.lose('unknown', 'GPU process crashed');
  gpu.lose('unknown', 'again');
  await tick();
  assert.deepEqual(heard, ['GPU process crashed']);

  const quiet = losable();
  const none = [];
  const stop = await watchGpu(quiet.adapter, (m) => none.push(m));
  stop();
  await tick();
  assert.equal(quiet.devices[0].device.destroyed, true);
  assert.deepEqual(none, []);
});

test('an adapter that gives no device counts as lost', async () => {
  const a = adapter();
  a.requestDevice = async () => { throw new Error('device request refused'); };
  const heard = [];
  await watchGpu(a, (m) => heard.push(m));
  assert.match(heard[0], /device request refused/);
});

test('after a GPU loss: the 4B on the CPU, or leave', () => {
  const capable = candidates(adapterFacts(adapter()), 8, ['4b', '9b']);
  assert.deepEqual(afterGpuLoss(capable, '9b'), { variant: '4b', gpu: false });
  const only9b = candidates(adapterFacts(adapter()), 8, ['9b']);
  assert.equal(afterGpuLoss(only9b, '9b'), null);
  assert.equal(afterGpuLoss(capable, '4b'), null, 'already on the CPU: nothing to fall to');
});
