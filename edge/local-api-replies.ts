import type { ServerResponse } from 'node:http';
import { isKedgeError, KedgeError, type ErrorCode } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';

/** JSON for an object, text/plain for a string. */
export function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' });
  res.end(text);
}

/** A refusal as `{ error, message }`, with the HTTP status of its code (401, 404, 405, …). */
export function refuse(res: ServerResponse, code: ErrorCode, message: string): void {
  const err = new KedgeError(code, message);
  reply(res, err.httpStatus, { error: code, message });
}

/** Replies with what `work` resolves to; a KedgeError as its code says, anything else as a logged 500. */
export function replyLater(res: ServerResponse, logger: Logger, work: Promise<unknown>): void {
  work.then(
    (body) => reply(res, 200, body),
    (err: unknown) => {
      if (res.headersSent) return;
      if (isKedgeError(err)) return refuse(res, err.code, err.message);
      logger.error('local API request failed', { error: (err as Error).message });
      refuse(res, 'Internal', `internal error: ${(err as Error).message}`);
    },
  );
}
