import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../ui/live/ndjson.js';

describe('newline-delimited JSON from a streaming fetch', () => {
  it('yields whole lines whether they come split across chunks or many to a chunk', () => {
    const lines = new LineSplitter();
    expect(lines.push('{"type":"ADDED",')).toEqual([]);
    expect(lines.push('"object":{}}\n{"type":"MOD')).toEqual(['{"type":"ADDED","object":{}}']);
    expect(lines.push('IFIED"}\n\n{"a":1}\n{"b":2}\n')).toEqual(['{"type":"MODIFIED"}', '{"a":1}', '{"b":2}']);
    expect(lines.push('')).toEqual([]);
  });
});
