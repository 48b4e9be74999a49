import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeStatus, podStatusReason } from '../../cloud/apiserver/kinds/printers.js';
import { repoRoot } from '../../shared/repo-paths.js';
import type { Node, Pod } from '../../shared/types.js';
import { sectionCommands } from '../support/readme-script.js';

const read = (path: string): Promise<string> => readFile(join(repoRoot, path), 'utf8');
const README = await read('README.md');
const prose = README.replace(/\s+/g, ' ');
const docs = (await readdir(join(repoRoot, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);

/** The numbers the README's "Demo options" example passes (`--api-port 18443` as api-port: 18443). */
const demoOptions = (): Map<string, number> => {
  const paragraph = /Demo options: ([\s\S]*?)\n\n/.exec(README)?.[1] ?? '';
  return new Map([...paragraph.matchAll(/--([\w-]+) (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
};

describe('README.md and docs/ as a user reads them', () => {
  it('run the CLI as bin/kedge, never npx kedge (npx copies the checkout and builds it again first)', async () => {
    for (const path of ['README.md', ...docs]) {
      const lines = (await read(path)).split('\n').map((text, i) => `${path}:${i + 1}: ${text}`);
      expect(lines.filter((l) => /npx kedge\s/.test(l))).toEqual([]);
    }
  });

  it('the demo section has commands that end by themselves (no log follower or watch without a stated time)', () => {
    const commands = sectionCommands(README, 'With the demo running', 0);
    expect(commands.length).toBeGreaterThan(10);
    const endless = commands.filter((c) => c.limitMs === 0 && /\b(logs|tail)\s.*(-f|--follow)(\s|=|$)|\bget\s.*(-w|--watch)(\s|=|$)/.test(c.command));
    expect(endless).toEqual([]);
    expect(commands.map((c) => c.command).filter((c) => /^npm (start|ci|test)\b/.test(c))).toEqual([]);
  });

  it("the options example's ports are apart from the default demo's and from every port in examples/", async () => {
    const options = demoOptions();
    expect([...options.keys()].filter((k) => k.endsWith('-port')).sort()).toEqual(['api-port', 'local-api-base-port', 'mqtt-port']);
    const nodes = options.get('nodes')!;
    expect(nodes).toBeGreaterThan(0);
    const base = options.get('local-api-base-port')!;
    const taken = new Set([8080, 1883, 10551, 10552, 10553]);
    for (const file of await readdir(join(repoRoot, 'examples'))) {
      for (const m of (await read(`examples/${file}`)).matchAll(/\b\d{4,5}\b/g)) taken.add(Number(m[0]));
    }
    const used = [options.get('api-port')!, options.get('mqtt-port')!, ...Array.from({ length: nodes }, (_, i) => base + 1 + i)];
    expect(used.filter((p) => taken.has(p))).toEqual([]);
  });

  it("names a cut-off node's and an evicted pod's states as kubectl prints them", () => {
    const unknown = nodeStatus({ metadata: { name: 'edge-1' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } } as Node);
    expect(prose).toContain(`\`${unknown}\` (its Ready condition is \`Unknown\`)`);
    const evicted = podStatusReason({ metadata: { name: 'web-1', deletionTimestamp: '2026-12-02T08:00:00Z' }, spec: { containers: [] }, status: { phase: 'Running' } } as unknown as Pod);
    expect(prose).toContain(`The evicted pods stay \`${evicted}\` until the node is back, as in Kubernetes.`);
  });

  it('names in "Development" every Debian package .ci/run installs with apt-get', async () => {
    const install = /apt-get install ([^\n>]*)/.exec(await read('.ci/run'))?.[1] ?? '';
    const packages = install.split(/\s+/).filter((word) => /^[a-z0-9][a-z0-9.+-]*$/.test(word));
    expect(packages).toContain('chromium');
    const development = /\n## Development\n([\s\S]*?)(\n## |$)/.exec(README)?.[1] ?? '';
    expect(packages.filter((name) => !development.includes(`\`${name}\``))).toEqual([]);
  });
});
