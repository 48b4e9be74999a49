import type { ServerResponse } from 'node:http';

/** A failure the control API answers as `{ error, message }` with `status`. */
export class ControlError extends Error {
  override readonly name = 'ControlError';

  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body) + '\n');
}

export function fail(res: ServerResponse, status: number, error: string, message: string): void {
  reply(res, status, { error, message });
}

export function failWith(res: ServerResponse, err: ControlError): void {
  fail(res, err.status, err.error, err.message);
}

/** 404 for a node the demo does not have, naming (up to ten of) the ones it has. */
export function unknownNode(names: string[], node: string): ControlError {
  const known = (names.length > 10 ? [...names.slice(0, 10), `… ${names.length} in all`] : names).join(', ') || 'none';
  return new ControlError(404, 'NotFound', `no node "${node}" in this demo (its nodes: ${known})`);
}

/** Replies with what `work` resolves to, or with its failure (a ControlError as it says, anything else as 500). */
export function replyLater(res: ServerResponse, work: Promise<unknown>): void {
  work.then(
    (body) => reply(res, 200, body),
    (err: Error) => (err instanceof ControlError ? failWith(res, err) : fail(res, 500, 'Internal', err.message)),
  );
}
