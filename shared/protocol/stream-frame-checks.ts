import type { StreamErrorReason } from './streams.js';

/** Validation of the words a stream frame carries (streams.ts). Pure. */

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isText = (x: unknown, max: number): x is string => typeof x === 'string' && x.length > 0 && x.length <= max;
const isBool = (x: unknown): x is boolean => typeof x === 'boolean';

/** A command line's most arguments, and bytes in all. */
const MAX_ARGS = 1024;
const MAX_COMMAND_BYTES = 8 * 1024;
const MAX_ERROR_CHARS = 4096;
const REASONS: readonly StreamErrorReason[] = ['NotFound', 'BadRequest', 'Unavailable', 'Timeout', 'TooManyRequests', 'InternalError'];

function standardStreamsProblem(r: Record<string, unknown>): string | undefined {
  if (!isText(r.container, 253)) return 'request.container must be a name';
  if (![r.stdin, r.stdout, r.stderr, r.tty].every(isBool)) return 'request.stdin, stdout, stderr and tty must be booleans';
  return undefined;
}

function commandProblem(command: unknown): string | undefined {
  if (!Array.isArray(command) || command.length === 0 || command.length > MAX_ARGS) return `request.command must be 1 to ${MAX_ARGS} strings`;
  if (!command.every((arg) => typeof arg === 'string')) return 'request.command must be strings';
  if (command.reduce((n: number, arg: string) => n + Buffer.byteLength(arg), 0) > MAX_COMMAND_BYTES) return `request.command is over ${MAX_COMMAND_BYTES} bytes`;
  return undefined;
}

export function streamRequestProblem(x: unknown): string | undefined {
  if (!isObject(x)) return 'request must be an object';
  switch (x.kind) {
    case 'exec':
      return standardStreamsProblem(x) ?? commandProblem(x.command);
    case 'attach':
      return standardStreamsProblem(x);
    case 'portforward':
      return Number.isInteger(x.port) && (x.port as number) >= 1 && (x.port as number) <= 65535 ? undefined : 'request.port must be from 1 to 65535';
    default:
      return 'request.kind must be exec, attach or portforward';
  }
}

export function streamEndProblem(x: unknown): string | undefined {
  if (!isObject(x)) return 'end must be an object';
  if ('exitCode' in x) return Number.isSafeInteger(x.exitCode) && (x.exitCode as number) >= 0 ? undefined : 'end.exitCode must be a count';
  if (!isText(x.error, MAX_ERROR_CHARS)) return `end.error must be a message of at most ${MAX_ERROR_CHARS} characters`;
  return REASONS.includes(x.reason as StreamErrorReason) ? undefined : `end.reason must be one of ${REASONS.join(', ')}`;
}
