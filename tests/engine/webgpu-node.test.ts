import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

// Runs wherever Debian's Chromium (and so SwiftShader's Vulkan driver) is installed, as in CI; about a
// minute on a loaded box. ENGINE_WEBGPU_TEST=0 turns it off. The WebGPU EP needs its Vulkan environment at
// process start, so the check runs in a child process.
const ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const skip = process.env.ENGINE_WEBGPU_TEST === '0' ? 'ENGINE_WEBGPU_TEST=0' : !existsSync(ICD) ? `${ICD} missing (apt-get install chromium)` : '';
if (skip) console.warn(`SKIPPED: WebGPU EP graph check (${skip})`);
describe.skipIf(!!skip)('graphs on the WebGPU EP (SwiftShader)', () => {
  it('inference, GRPO train and AdamW graphs and GPU-resident training match the CPU EP', () => {
    const r = spawnSync('npx', ['tsx', 'tests/engine/webgpu-check.ts'], {
      env: { ...process.env, LD_LIBRARY_PATH: '/usr/lib/chromium', VK_ICD_FILENAMES: ICD },
      encoding: 'utf8', timeout: 240_000,
    });
    console.log(r.stdout);
    expect(r.status, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout.match(/max \|cpu-gpu\|/g)?.length).toBe(4);
  }, 300_000);
});
