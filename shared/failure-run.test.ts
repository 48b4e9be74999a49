import { describe, expect, it } from 'vitest';
import { failureRun } from './failure-run.js';
import { memoryLogger } from './log.js';

describe('failureRun', () => {
  it('warns at the first failure of a run and says when a success ends it, nothing else', () => {
    const logger = memoryLogger('loop');
    const run = failureRun(logger, { failed: 'cannot do it', recovered: 'doing it again' });
    run.succeeded();
    run.failed(new Error('store down'));
    run.failed(new Error('store down'));
    run.succeeded();
    run.succeeded();
    run.failed('plain');
    expect(logger.lines.map((l) => l.replace(/^.*?(cannot|doing)/, '$1'))).toEqual(['cannot do it {"error":"store down"}', 'doing it again', 'cannot do it {"error":"plain"}']);
  });
});
