import { describe, expect, it } from 'vitest';
import { AckTimeout } from '../../shared/ack-timeout.js';

describe('AckTimeout', () => {
  it('waits the minimum until it has heard an ack, doubling with each try up to the maximum', () => {
    const timeout = new AckTimeout(2_000, 32_000);
    expect([1, 2, 3, 4, 5, 6, 7].map((tries) => timeout.resendAfterMs(tries))).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 32_000, 32_000]);
  });

  it('stays at the minimum while acks come quickly', () => {
    const timeout = new AckTimeout(2_000, 32_000);
    for (let i = 0; i < 20; i++) timeout.observe(50 + (i % 3) * 10);
    expect(timeout.resendAfterMs(1)).toBe(2_000);
  });

  it('grows to a smoothed round trip plus four variations when acks are slow, as RFC 6298', () => {
    const timeout = new AckTimeout(2_000, 32_000);
    timeout.observe(4_000); // first sample: round trip 4 s, variation 2 s
    expect(timeout.resendAfterMs(1)).toBe(4_000 + 4 * 2_000);
    for (let i = 0; i < 50; i++) timeout.observe(4_000);
    expect(timeout.resendAfterMs(1)).toBeGreaterThan(4_000);
    expect(timeout.resendAfterMs(1)).toBeLessThan(4_100);
    expect(timeout.resendAfterMs(2)).toBe(2 * timeout.resendAfterMs(1));
  });

  it('comes back down when the cloud is quick again', () => {
    const timeout = new AckTimeout(2_000, 32_000);
    timeout.observe(10_000);
    for (let i = 0; i < 60; i++) timeout.observe(100);
    expect(timeout.resendAfterMs(1)).toBe(2_000);
  });
});
