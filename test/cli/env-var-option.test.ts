import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { envVar } from '../../bin/options.js';

describe('--pod-env NAME=value', () => {
  it('collects repeated flags into one record, a later NAME winning; a value may hold = and :', () => {
    const first = envVar('KEDGE_LINK_SINK=127.0.0.1:4000');
    expect(envVar('MODE=a=b', envVar('KEDGE_LINK_SINK=127.0.0.1:5000', first))).toEqual({ KEDGE_LINK_SINK: '127.0.0.1:5000', MODE: 'a=b' });
  });

  it.each(['NOVALUE', '=x', '1BAD=x', 'A-B=x'])('refuses %s', (value) => {
    expect(() => envVar(value)).toThrow(InvalidArgumentError);
  });
});
