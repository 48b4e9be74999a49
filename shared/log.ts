import { realClock } from './clock.js';

/** A small structured logger seam; components receive one in their deps. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

type Sink = (line: string) => void;

export function createLogger(component: string, sink: Sink = (l) => process.stderr.write(l + '\n'), now: () => number = realClock.now): Logger {
  const write = (level: string, msg: string, fields?: Record<string, unknown>): void => {
    const extra = fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : '';
    sink(`${new Date(now()).toISOString()} ${level} [${component}] ${msg}${extra}`);
  };
  return {
    info: (m, f) => write('INFO ', m, f),
    warn: (m, f) => write('WARN ', m, f),
    error: (m, f) => write('ERROR', m, f),
    child: (c) => createLogger(`${component}/${c}`, sink, now),
  };
}

/** A logger that keeps lines in memory: for tests that check what was logged. */
export function memoryLogger(component = 'test'): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger(component, (l) => lines.push(l), () => 0);
  return Object.assign(logger, { lines });
}

export const silentLogger: Logger = createLogger('silent', () => {});
