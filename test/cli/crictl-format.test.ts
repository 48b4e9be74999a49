import { describe, expect, it } from 'vitest';
import { crictlTable, humanDuration, humanSize, rfc3339Nano } from '../../bin/crictl-format.js';

/** crictl's ways of printing, as its Go libraries do them. */
describe('crictl formatting', () => {
  it.each([
    [400, 'Less than a second'], [1_000, '1 second'], [59_999, '59 seconds'], [60_000, 'About a minute'], [119_000, 'About a minute'], [120_000, '2 minutes'],
    [3_599_000, '59 minutes'], [3_600_000, 'About an hour'], [5_400_000, '2 hours'], [47 * 3_600_000, '47 hours'], [3 * 86_400_000, '3 days'],
    [20 * 86_400_000, '2 weeks'], [90 * 86_400_000, '3 months'], [800 * 86_400_000, '2 years'],
  ])('CREATED: %i ms ago is "%s"', (ms, said) => expect(humanDuration(ms)).toBe(said));

  it('sizes in decimal units with four significant digits, as go-units HumanSize', () => {
    expect([0, 999, 1000, 12_345, 8_192_000, 47_112_192, 2.5e9].map(humanSize)).toEqual(['0B', '999B', '1kB', '12.35kB', '8.192MB', '47.11MB', '2.5GB']);
  });

  it("times as Go's RFC3339Nano: no fraction when it is zero, no trailing zeros", () => {
    expect(rfc3339Nano('0')).toBe('1970-01-01T00:00:00Z');
    expect(rfc3339Nano('1767225600500000000')).toBe('2026-01-01T00:00:00.5Z');
    expect(rfc3339Nano('1767225600123456789')).toBe('2026-01-01T00:00:00.123456789Z');
  });

  it("tables as crictl's tabwriter: columns 20 wide at least, 3 spaces past the widest cell; the last unpadded", () => {
    expect(crictlTable([['POD ID', 'NAME'], ['abc', 'a-pod-with-a-rather-long-name']])).toBe('POD ID              NAME\nabc                 a-pod-with-a-rather-long-name\n');
    expect(crictlTable([['NAME', 'X'], ['a-pod-with-a-rather-long-name', 'y']])).toBe('NAME                            X\na-pod-with-a-rather-long-name   y\n');
  });
});
