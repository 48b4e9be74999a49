import { describe, expect, it } from 'vitest';
import { podLogQueryOf } from '../../cloud/apiserver/subresources/pod-log-options.js';
import { toKubeStatus } from '../../shared/errors.js';

const parse = (query: string) => podLogQueryOf(new URLSearchParams(query), 'web');
const statusOf = (query: string) => {
  try {
    parse(query);
  } catch (err) {
    const s = toKubeStatus(err);
    return [s.code, s.message];
  }
  throw new Error(`${query} parsed`);
};

describe('the query of GET pods/<name>/log', () => {
  it('reads what the edge is asked for, whether to follow, and the byte limit', () => {
    expect(parse('')).toEqual({ options: {}, follow: false });
    expect(parse('container=app&tailLines=10&timestamps=true&previous=true&follow=true&limitBytes=100')).toEqual({
      options: { container: 'app', tailLines: 10, timestamps: true, previous: true }, follow: true, limitBytes: 100,
    });
    expect(parse('sinceSeconds=30').options).toEqual({ sinceSeconds: 30 });
    expect(parse('sinceTime=2026-01-01T00:00:05Z').options).toEqual({ sinceTime: Date.UTC(2026, 0, 1, 0, 0, 5) });
    expect(parse('sinceTime=2026-01-01T01:00:05.5%2B01:00').options).toEqual({ sinceTime: Date.UTC(2026, 0, 1, 0, 0, 5, 500) });
  });

  it('takes a flag as kube does: present and neither "0" nor "false"', () => {
    expect(parse('follow=1').follow).toBe(true);
    expect(parse('follow').follow).toBe(true);
    expect(parse('follow=False').follow).toBe(false);
    expect(parse('follow=0').follow).toBe(false);
  });

  it.each([
    ['tailLines=x', 400, 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['limitBytes=1.5', 400, 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['sinceSeconds=99999999999999999999', 400, 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['sinceTime=yesterday', 400, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as RFC 3339'],
    ['tailLines=-1', 422, 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
    ['limitBytes=0', 422, 'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds=0', 422, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
    ['sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z', 422, 'PodLogOptions "web" is invalid: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
    [`container=${'c'.repeat(64)}`, 400, `container ${'c'.repeat(64)} is not valid for pod web`],
  ])('answers %s with %i', (query, code, message) => {
    expect(statusOf(query)).toEqual([code, message]);
  });
});
