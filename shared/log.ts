import { realClock } from './clock.js';

/** A small structured logger seam; components receive one in their deps. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['text', 'json'] as const;
/** text: a line for people; json: one object a line (time, level, component, message, fields) for log collectors. */
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  format: LogFormat;
  /** The least severe level written. */
  level: LogLevel;
}

export const defaultLogSettings: LogSettings = { format: 'text', level: 'info' };

type Sink = (line: string) => void;
export type Fields = Record<string, unknown> | undefined;

export function textLine(time: string, level: LogLevel, component: string, msg: string, fields: Fields): string {
  const extra = fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : '';
  return `${time} ${level.toUpperCase().padEnd(5)} [${component}] ${msg}${extra}`;
}

function jsonLine(time: string, level: LogLevel, component: string, message: string, fields: Fields): string {
  return JSON.stringify({ time, level, component, message, ...(fields && Object.keys(fields).length ? { fields } : {}) });
}

export function createLogger(
  component: string,
  sink: Sink = (l) => process.stderr.write(l + '\n'),
  now: () => number = realClock.now,
  settings: LogSettings = defaultLogSettings,
): Logger {
  const format = settings.format === 'json' ? jsonLine : textLine;
  const least = LOG_LEVELS.indexOf(settings.level);
  const writer = (level: LogLevel) =>
    LOG_LEVELS.indexOf(level) < least ? () => {} : (msg: string, fields?: Record<string, unknown>) => sink(format(new Date(now()).toISOString(), level, component, msg, fields));
  return {
    debug: writer('debug'),
    info: writer('info'),
    warn: writer('warn'),
    error: writer('error'),
    child: (c) => createLogger(`${component}/${c}`, sink, now, settings),
  };
}

/** A logger that keeps lines in memory: for tests that check what was logged. */
export function memoryLogger(component = 'test', settings: LogSettings = defaultLogSettings): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger(component, (l) => lines.push(l), () => 0, settings);
  return Object.assign(logger, { lines });
}

export const silentLogger: Logger = createLogger('silent', () => {});
