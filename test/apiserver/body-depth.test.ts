import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_NESTING, parseWithinDepth } from '../../cloud/apiserver/http/body-depth.js';

/** A YAML map `levels` deep in block style: no brackets for the scan before parsing to count. */
const blockYaml = (levels: number): string => Array.from({ length: levels - 1 }, (_, i) => `${' '.repeat(i)}a:\n`).join('') + `${' '.repeat(levels - 1)}b: 1\n`;

describe('parseWithinDepth', () => {
  it('refuses a YAML body nested past the limit in block style, which only the parsed value shows', () => {
    expect(() => parseWithinDepth(blockYaml(MAX_BODY_NESTING + 1), parseYaml)).toThrow(`nested more than ${MAX_BODY_NESTING} levels deep`);
  });

  it('takes a YAML body nested up to the limit', () => {
    expect(parseWithinDepth(blockYaml(MAX_BODY_NESTING), parseYaml)).toHaveProperty('a');
  });
});
