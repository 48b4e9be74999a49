import { describe, expect, it } from 'vitest';
import { initialProbeState, observeProbe, probeSettings, type ProbeSettings } from '../../edge/prober/probe-state.js';
import type { ProbeKind } from '../../edge/runtime/runtime.js';

const thresholds = (failureThreshold: number, successThreshold: number): Pick<ProbeSettings, 'failureThreshold' | 'successThreshold'> => ({ failureThreshold, successThreshold });

/** The settled result after each outcome ("S" success, "F" failure), as a string of "1"/"0". */
function results(kind: ProbeKind, outcomes: string, settings = thresholds(3, 1)): string {
  let state = initialProbeState(kind);
  let out = '';
  for (const o of outcomes) {
    state = observeProbe(state, o === 'S', settings);
    out += state.success ? '1' : '0';
  }
  return out;
}

describe('probe state', () => {
  it('starts as the kubelet does: readiness and startup fail, liveness succeeds', () => {
    expect(initialProbeState('readiness').success).toBe(false);
    expect(initialProbeState('startup').success).toBe(false);
    expect(initialProbeState('liveness').success).toBe(true);
  });

  const cases: { name: string; kind: ProbeKind; outcomes: string; settings?: ReturnType<typeof thresholds>; expected: string }[] = [
    { name: 'readiness: one success makes it ready', kind: 'readiness', outcomes: 'S', expected: '1' },
    { name: 'readiness: failures before the first success keep it not ready', kind: 'readiness', outcomes: 'FFS', expected: '001' },
    { name: 'readiness: 2 failures (threshold 3) keep it ready, the 3rd does not', kind: 'readiness', outcomes: 'SFFF', expected: '1110' },
    { name: 'readiness: a success between failures starts the count again', kind: 'readiness', outcomes: 'SFFSFFF', expected: '1111110' },
    { name: 'readiness: successThreshold 3 needs 3 in a row', kind: 'readiness', outcomes: 'SSFSSS', settings: thresholds(3, 3), expected: '000001' },
    { name: 'readiness: once ready, one success keeps it ready with successThreshold 3', kind: 'readiness', outcomes: 'SSSFS', settings: thresholds(3, 3), expected: '00111' },
    { name: 'readiness: failureThreshold 1 flips at once', kind: 'readiness', outcomes: 'SFS', settings: thresholds(1, 1), expected: '101' },
    { name: 'liveness: healthy until failureThreshold failures in a row', kind: 'liveness', outcomes: 'FFSFFF', expected: '111110' },
    { name: 'liveness: exactly at the threshold', kind: 'liveness', outcomes: 'FFFFF', settings: thresholds(5, 1), expected: '11110' },
    { name: 'startup: the first success starts it', kind: 'startup', outcomes: 'FFFFS', settings: thresholds(10, 1), expected: '00001' },
  ];
  it.each(cases)('$name', ({ kind, outcomes, settings, expected }) => {
    expect(results(kind, outcomes, settings)).toBe(expected);
  });

  it('tells a failure it settled on from the initial value', () => {
    const settings = thresholds(2, 1);
    const once = observeProbe(initialProbeState('startup'), false, settings);
    expect(once).toMatchObject({ success: false, settled: false });
    expect(observeProbe(once, false, settings)).toMatchObject({ success: false, settled: true });
  });
});

describe('probeSettings', () => {
  it('takes the Kubernetes defaults: 0 / 10 / 1 / 3 / 1', () => {
    expect(probeSettings({}, 'readiness', { timeScale: 1 })).toEqual({ initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, failureThreshold: 3, successThreshold: 1 });
  });

  it('divides delay and period by the time scale, not the timeout', () => {
    const s = probeSettings({ initialDelaySeconds: 30, periodSeconds: 5, timeoutSeconds: 2 }, 'liveness', { timeScale: 10 });
    expect(s).toMatchObject({ initialDelayMs: 3000, periodMs: 500, timeoutMs: 2000 });
  });

  it('holds successThreshold to 1 for liveness and startup, not for readiness', () => {
    expect(probeSettings({ successThreshold: 3 }, 'liveness', { timeScale: 1 }).successThreshold).toBe(1);
    expect(probeSettings({ successThreshold: 3 }, 'startup', { timeScale: 1 }).successThreshold).toBe(1);
    expect(probeSettings({ successThreshold: 3 }, 'readiness', { timeScale: 1 }).successThreshold).toBe(3);
  });

  it('takes the default for 0, negative or non-numeric values', () => {
    const bad = { initialDelaySeconds: -5, periodSeconds: 0, timeoutSeconds: -1, failureThreshold: Number.NaN } as const;
    expect(probeSettings(bad, 'readiness', { timeScale: 1 })).toMatchObject({ initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, failureThreshold: 3 });
  });
});
