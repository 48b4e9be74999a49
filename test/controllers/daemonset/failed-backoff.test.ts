import { describe, expect, it } from 'vitest';
import { FailedPodBackoff } from '../../../cloud/controllers/daemonset/failed-backoff.js';

describe('FailedPodBackoff', () => {
  it('doubles from the initial delay up to the maximum, and forgets after twice the maximum', () => {
    const b = new FailedPodBackoff(1_000, 4_000);
    expect(b.remaining('ns/ds/a', 0)).toBeUndefined();
    b.next('ns/ds/a', 0);
    expect(b.remaining('ns/ds/a', 400)).toBe(600);
    expect(b.remaining('ns/ds/a', 1_000)).toBeUndefined();
    b.next('ns/ds/a', 1_000);
    expect(b.remaining('ns/ds/a', 1_000)).toBe(2_000);
    b.next('ns/ds/a', 3_000);
    b.next('ns/ds/a', 7_000);
    expect(b.remaining('ns/ds/a', 7_000)).toBe(4_000);
    expect(b.remaining('ns/ds/b', 7_000)).toBeUndefined();
    b.next('ns/ds/a', 7_000 + 8_001);
    expect(b.remaining('ns/ds/a', 7_000 + 8_001)).toBe(1_000);
    b.forget('ns/ds/');
    expect(b.remaining('ns/ds/a', 7_000 + 8_001)).toBeUndefined();
  });
});
