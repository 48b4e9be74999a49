import { describe, expect, it } from 'vitest';
import { createLogger, memoryLogger } from './log.js';

const at = Date.parse('2026-12-02T08:00:00.000Z');

describe('createLogger', () => {
  it('writes text lines for people by default, and leaves out debug', () => {
    const lines: string[] = [];
    const logger = createLogger('cloud', (l) => lines.push(l), () => at).child('hub');
    logger.debug('sent', { node: 'edge-1' });
    logger.info('node connected', { node: 'edge-1' });
    logger.error('gone');
    expect(lines).toEqual(['2026-12-02T08:00:00.000Z INFO  [cloud/hub] node connected {"node":"edge-1"}', '2026-12-02T08:00:00.000Z ERROR [cloud/hub] gone']);
  });

  it('writes one JSON object a line with time, level, component, message and fields', () => {
    const lines: string[] = [];
    const logger = createLogger('edge/edge-1', (l) => lines.push(l), () => at, { format: 'json', level: 'debug' }).child('edged');
    logger.debug('sync', { pods: 3 });
    logger.warn('probe failed: "quoted"\nsecond line');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { time: '2026-12-02T08:00:00.000Z', level: 'debug', component: 'edge/edge-1/edged', message: 'sync', fields: { pods: 3 } },
      { time: '2026-12-02T08:00:00.000Z', level: 'warn', component: 'edge/edge-1/edged', message: 'probe failed: "quoted"\nsecond line' },
    ]);
    expect(lines.every((l) => !l.includes('\n'))).toBe(true);
  });

  it.each([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
  ] as const)('at level %s writes %j', (level, written) => {
    const logger = memoryLogger('x', { format: 'json', level });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(logger.lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(written);
  });
});
