import type { ApiClient } from '../../cloud/client/client.js';
import type { Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { KubeObject } from '../../shared/types.js';
import { formatDuration } from './describe.js';
import type { Verdict } from './judge.js';
import type { ReadExpectation, WriteExpectation } from './types.js';

/** How a write through the API went: acknowledged, or failed with the cloud's status and words (none: no answer at all). */
export type WriteAttempt = { ok: true; name: string; ms: number } | { ok: false; name: string; status?: number; message: string; ms: number };

/** One member's answer to a read on etcd directly. */
export interface MemberRead {
  member: string;
  answered: boolean;
  /** What it answered (revision, keys), or why not. */
  detail: string;
  ms: number;
}

const PROBE_LABEL = 'kedge.io/probe';
const CONFIGMAPS = { resource: 'configmaps', group: '', namespace: 'default' };

/** A write gets this long (real time) to be answered: longer than the cloud's own etcd deadline (10 s), so the cloud's answer is what is seen. */
export const WRITE_TIMEOUT_MS = 15_000;

/**
 * Writes through the API (each a new ConfigMap `quorum-probe-<n>` in `default`) and remembers
 * every one acknowledged: `missing` says which of those are no longer there.
 */
export class WriteProbe {
  private readonly acknowledged: string[] = [];
  private count = 0;

  constructor(private readonly clock: Clock) {}

  async write(api: ApiClient): Promise<WriteAttempt> {
    const name = `quorum-probe-${++this.count}`;
    const body: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { [PROBE_LABEL]: 'write' } }, data: { n: String(this.count) } } as KubeObject;
    const t0 = this.clock.now();
    let cancel = (): void => {};
    const late = new Promise<never>((_, reject) => (cancel = this.clock.setTimer(WRITE_TIMEOUT_MS, () => reject(new Error(`no answer within ${WRITE_TIMEOUT_MS / 1000} s`)))));
    try {
      await Promise.race([api.create(CONFIGMAPS, body), late]);
      this.acknowledged.push(name);
      return { ok: true, name, ms: this.clock.now() - t0 };
    } catch (err) {
      const ms = this.clock.now() - t0;
      return isKedgeError(err) ? { ok: false, name, status: err.httpStatus, message: err.message, ms } : { ok: false, name, message: (err as Error).message, ms };
    } finally {
      cancel();
    }
  }

  /** The acknowledged writes, and those of them the API no longer has. */
  async missing(api: ApiClient): Promise<{ acknowledged: number; missing: string[] }> {
    const { items } = await api.list(CONFIGMAPS, { labelSelector: `${PROBE_LABEL}=write` });
    const there = new Set(items.map((o) => o.metadata.name));
    return { acknowledged: this.acknowledged.length, missing: this.acknowledged.filter((n) => !there.has(n)) };
  }
}

export function judgeWrite(e: WriteExpectation, a: WriteAttempt): Verdict {
  const took = formatDuration(a.ms);
  if (a.ok) return { ok: e.succeeds, seen: `configmap/${a.name} created in ${took}` };
  const seen = `configmap/${a.name} not created: ${a.status === undefined ? '' : `HTTP ${a.status} `}after ${took}: ${a.message}`;
  return { ok: !e.succeeds && (e.status === undefined || a.status === e.status), seen };
}

export function judgeWritten(found: { acknowledged: number; missing: string[] }): Verdict {
  if (found.missing.length === 0) return { ok: true, seen: `all ${found.acknowledged} acknowledged writes are there` };
  return { ok: false, seen: `${found.missing.length} of ${found.acknowledged} acknowledged writes are gone: ${found.missing.join(', ')}` };
}

/** Holds as asked (without `answers`, always), and says which members answered. Pure. */
export function judgeRead(e: ReadExpectation, reads: readonly MemberRead[]): Verdict {
  const answered = reads.filter((r) => r.answered).length;
  const ok = e.answers === undefined || (e.answers ? answered > 0 : answered === 0);
  const each = reads.map((r) => `${r.member} ${r.answered ? 'answered' : 'did not answer'} (${r.detail}, ${formatDuration(r.ms)})`);
  return { ok, seen: `${answered} of ${reads.length} answered: ${each.join('; ')}` };
}
