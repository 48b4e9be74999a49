import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';
import { bearerToken, TokenTable, unauthorized, userOf, type Authenticator, type TokenEntry } from './authn.js';

/** Tokens that change while the server runs: `<dataDir>/tokens.json` (see token-file.ts). */
export interface TokenSource {
  /** Differs whenever the tokens may have changed (the file's mtime, size, inode); undefined while there is no file. */
  stamp(): Promise<string | undefined>;
  read(): Promise<TokenEntry[]>;
}

export interface ReloadOptions {
  clock: Clock;
  logger: Logger;
  /** How often the source's stamp may be looked at; default 1 s. */
  minIntervalMs?: number;
}

/**
 * Bearer tokens from a source that `kedge token create` appends to while the cloud runs; the
 * `fixed` tokens (the cloud's own identity) always work. The source is checked at most once
 * per interval: a request with an unknown token waits for the next check (so a token created a
 * moment ago is accepted, and a flood of wrong tokens costs one stat per interval); a known
 * token's request starts a due check without waiting for it (so a removed token stops working).
 */
export function reloadingAuthenticator(fixed: readonly TokenEntry[], source: TokenSource, options: ReloadOptions): Authenticator {
  const { clock, logger } = options;
  const interval = options.minIntervalMs ?? 1000;
  let table = new TokenTable(fixed);
  /** The stamp last read, whether the read worked or not: the source is read again only once it changes. */
  let readStamp: string | undefined;
  let read = false;
  let lastCheck = -Infinity;
  let pending: Promise<void> | undefined;
  /** Checks begun and finished, counted: a check begun before a request arrived may predate its token. */
  let begun = 0;
  let finished = 0;

  async function reload(): Promise<void> {
    const wait = lastCheck + interval - clock.now();
    if (wait > 0) await clock.sleep(wait);
    lastCheck = clock.now();
    const number = ++begun;
    try {
      const stamp = await source.stamp();
      if (read && stamp === readStamp) return;
      [readStamp, read] = [stamp, true];
      const entries = stamp === undefined ? [] : await source.read();
      table = new TokenTable([...fixed, ...entries]);
    } catch (err) {
      // Unreadable: the tokens stay as they were, and the source is read again (and this logged again) once it changes.
      logger.warn('cannot reload the API tokens', { error: (err as Error).message });
    } finally {
      finished = number;
    }
  }

  function check(): Promise<void> {
    pending ??= reload().finally(() => (pending = undefined));
    return pending;
  }

  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const known = table.find(token);
    if (known) {
      if (clock.now() - lastCheck >= interval) void check();
      return userOf(known);
    }
    const arrival = begun;
    while (finished <= arrival) await check();
    const entry = table.find(token);
    if (!entry) throw unauthorized();
    return userOf(entry);
  };
}
