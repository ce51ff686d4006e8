// node --test web/worker/tiers.test.mjs — the tier rules against simulated adapters.
import test from 'node:test';
import assert from 'node:assert/strict';
import { adapterFacts, gpuShortfall, candidates, fastEnough, fallBack } from './tiers.js';

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
