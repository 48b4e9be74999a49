import type { IOptions } from 'etcd3';

type GlobalPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** A call that never reached etcd: the connection to the endpoint was refused or not up. */
export function neverReachedEtcd(err: unknown): boolean {
  return err instanceof Error && err.constructor.name === 'GRPCUnavailableError' && /No connection established|ECONNREFUSED|ECONNRESET|connect/i.test(err.message);
}

/**
 * etcd3 retries every "recoverable" error three times by default, writes included: a write
 * etcd timed out (it may still commit) would run again, and a quorum-less cluster would keep
 * a caller waiting three of etcd's request timeouts. As clientv3 does, this retries only what
 * never reached etcd, on the next endpoint, once per endpoint.
 */
export function retryUnsentCalls(endpoints: number): GlobalPolicy {
  const policy = {
    async execute<T>(fn: (context: { attempt: number; signal: AbortSignal }) => Promise<T> | T): Promise<T> {
      const signal = new AbortController().signal;
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn({ attempt, signal });
        } catch (err) {
          if (attempt >= endpoints || !neverReachedEtcd(err)) throw err;
        }
      }
    },
  };
  return policy as unknown as GlobalPolicy;
}
