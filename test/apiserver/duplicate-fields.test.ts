import { describe, expect, it } from 'vitest';
import { scanKeys } from '../../cloud/apiserver/schemas/duplicate-fields.js';

/** The duplicate-key scan that fieldValidation runs on every JSON write. */
describe('scanKeys', () => {
  it.each([
    ['no duplicates', '{"a": 1, "b": {"c": [1, 2]}}', []],
    ['one at the top', '{"a": 1, "a": 2}', ['a']],
    ['nested, in document order', '{"s": {"x": 1, "x": 2}, "l": [{}, {"k": "v", "k": "w"}], "s": {}}', ['s.x', 'l[1].k', 's']],
    ['arrays of arrays', '[[{"a": 1}], [{"a": 1, "a": 2}]]', ['[1][0].a']],
    ['the same key in sibling objects is no duplicate', '{"a": {"n": 1}, "b": {"n": 1}}', []],
    ['escaped keys, decoded', '{"a\\"b": 1, "a\\u0022b": 2}', ['a"b']],
    ['brackets, quotes and backslashes inside strings', '{"a": "}{][\\"\\\\", "b": ",:", "a": null}', ['a']],
    ['literals, numbers and whitespace', '{ "t" : true ,\n\t"n" : -1.5e3 , "z" : null , "t" : false }', ['t']],
    ['empty containers', '{"o": {}, "l": [], "o": [ ]}', ['o']],
  ])('%s', (_what, text, paths) => {
    JSON.parse(text); // the scan expects valid JSON
    expect(scanKeys(text).duplicates.map((d) => d.path)).toEqual(paths);
  });

  it('gives the offset of each repeated key, and with positions where each key path first appears', () => {
    const text = '{"a": {"b": 1}, "a": {"b": 2, "c": 3}}';
    expect(scanKeys(text).duplicates).toEqual([{ path: 'a', at: text.lastIndexOf('"a"') }]);
    expect(scanKeys(text).firstAt.size).toBe(0);
    expect([...scanKeys(text, { positions: true }).firstAt]).toEqual([['a', 1], ['a.b', 7], ['a.c', text.indexOf('"c"')]]);
  });
});
