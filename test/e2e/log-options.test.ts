import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childLineWriter } from '../../bin/log-options.js';
import { realClock } from '../../shared/clock.js';
import { createLogger, memoryLogger } from '../../shared/log.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { kedge } from '../support/kedge-cli.js';
import { waitFor } from '../support/wait.js';

const at = Date.parse('2026-12-02T08:00:00.000Z');

/** `kedge cloud` with the log options: what an operator's log collector reads on stderr. */
describe('kedge cloud --log-format, --log-level', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  /** A cloud with these extra flags, ready; its output lines as the role printed them (without the "[cloud] " prefix). */
  async function cloudWith(...flags: string[]): Promise<{ cloud: RoleProcess; lines: string[] }> {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-log-'));
    const lines: string[] = [];
    const cloud = startRole({
      name: 'cloud',
      args: ['cloud', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--store', 'memory', ...flags],
      readyPattern: /^kedge cloud ready /,
      clock: realClock,
      onLine: (line) => lines.push(line.replace(/^\[cloud\] /, '')),
    });
    cleanups.push(async () => {
      await cloud.stop();
      await rm(dir, { recursive: true, force: true });
    });
    await cloud.ready;
    return { cloud, lines };
  }

  it('--log-format json: every log line is one JSON object with time, level, component, message and fields', async () => {
    const { lines } = await cloudWith('--log-format', 'json');
    const started = await waitFor(() => lines.find((l) => l.includes('"cloud started"')), 'the "cloud started" record', 20_000);
    expect(JSON.parse(started)).toMatchObject({ level: 'info', component: 'cloud', message: 'cloud started', fields: { api: expect.stringMatching(/^https:\/\//) } });
    expect(Date.parse((JSON.parse(started) as { time: string }).time)).not.toBeNaN();
    const logLines = lines.filter((l) => !l.startsWith('kedge cloud ready '));
    expect(logLines.filter((l) => !/^\{.*\}$/.test(l))).toEqual([]);
  });

  it('--log-level warn leaves out info lines; the ready line on stdout stays', async () => {
    const { cloud, lines } = await cloudWith('--log-level', 'warn');
    expect(await cloud.ready).toMatch(/^kedge cloud ready api=/);
    await cloud.stop(); // "stopping" is an info line too
    expect(lines.filter((l) => l.includes(' INFO  ['))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('kedge cloud ready '))).toHaveLength(1);
  });

  it('refuses a level it does not know, naming the choices', async () => {
    const out = await kedge('cloud', '--log-level', 'verbose');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("error: option '--log-level <level>' argument 'verbose' is invalid. Allowed choices are debug, info, warn, error.");
  });
});

describe("childLineWriter (the demo forwards its children's lines)", () => {
  it("passes a child's lines through as text", () => {
    const out: string[] = [];
    const write = childLineWriter({ format: 'text', level: 'info' }, memoryLogger(), (l) => out.push(l));
    write('[cloud] 2026-12-02T08:00:00.000Z INFO  [cloud] cloud started');
    expect(out).toEqual(['[cloud] 2026-12-02T08:00:00.000Z INFO  [cloud] cloud started']);
  });

  it("as json, keeps a child's JSON lines as they are and makes any other line a record of that child", () => {
    const out: string[] = [];
    const logger = createLogger('demo', (l) => out.push(l), () => at, { format: 'json', level: 'info' });
    const write = childLineWriter({ format: 'json', level: 'info' }, logger, (l) => out.push(l));
    write('[edge-1] {"time":"t","level":"info","component":"edge/edge-1","message":"connected"}');
    write('[cloud] kedge cloud ready api=https://127.0.0.1:8080');
    expect(out.map((l) => JSON.parse(l) as unknown)).toEqual([
      { time: 't', level: 'info', component: 'edge/edge-1', message: 'connected' },
      { time: '2026-12-02T08:00:00.000Z', level: 'info', component: 'demo/cloud', message: 'kedge cloud ready api=https://127.0.0.1:8080' },
    ]);
  });
});
