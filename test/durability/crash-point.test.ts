import { describe, expect, it } from 'vitest';
import { CRASH_STEPS, crashPointFrom, noCrash } from '../../edge/crash-point.js';

describe('crashPointFrom (KEDGE_CRASH_AT)', () => {
  const counting = (spec: string) => {
    let crashes = 0;
    const point = crashPointFrom(spec, () => crashes++);
    return { point, crashes: () => crashes };
  };

  it('unset: no crash point at all', () => {
    expect(crashPointFrom(undefined)).toBe(noCrash);
    expect(crashPointFrom('')).toBe(noCrash);
  });

  it('<step>: crashes the first time that step is reached, at no other step', () => {
    const { point, crashes } = counting('container-created');
    for (const step of CRASH_STEPS.filter((s) => s !== 'container-created')) point(step);
    expect(crashes()).toBe(0);
    point('container-created');
    expect(crashes()).toBe(1);
  });

  it('<step>:<n>: crashes the n-th time, once', () => {
    const { point, crashes } = counting('shim-spawned:3');
    point('shim-spawned');
    point('shim-spawned');
    expect(crashes()).toBe(0);
    point('shim-spawned');
    point('shim-spawned');
    expect(crashes()).toBe(1);
  });

  it('refuses an unknown step or a count that is not one, naming the known steps', () => {
    expect(() => crashPointFrom('container-craeted')).toThrow(`KEDGE_CRASH_AT: unknown step "container-craeted" (known: ${CRASH_STEPS.join(', ')})`);
    expect(() => crashPointFrom('sandbox-created:0')).toThrow('KEDGE_CRASH_AT: "0" is not a count (1, 2, ...)');
    expect(() => crashPointFrom('sandbox-created:x')).toThrow('is not a count');
  });
});
