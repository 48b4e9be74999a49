import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { heapGrowthFlag } from './heap-growth.js';

describe('the cloud heap growth', () => {
  it("is V8's heap growing percent, and 0 leaves V8 its own", () => {
    expect(heapGrowthFlag(50)).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(12.6)).toBe('--heap-growing-percent=13');
    expect(heapGrowthFlag(0)).toBeUndefined();
  });

  it('names a flag this V8 has (setFlagsFromString ignores one it does not know, silently)', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toContain(`${heapGrowthFlag(50)!.split('=')[0]} (`);
  });
});
