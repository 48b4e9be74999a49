import type { Etcd3 } from 'etcd3';
import type { Clock } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/log.js';

/**
 * kube-apiserver's compaction (--etcd-compaction-interval): every interval, each apiserver tries
 * a transaction on one shared key; the one whose try finds the key's version where it last saw
 * it wins the round and compacts etcd to the revision it saw one round earlier. So several
 * clouds on one etcd compact once per interval between them, and etcd keeps at least an
 * interval of history for watches to resume from.
 */
export const COMPACT_REV_KEY = 'compact_rev_key';

/** What one apiserver remembers between rounds: the key's version it expects, and the revision of its last round. */
export interface CompactionState {
  version: number;
  revision: number;
}

/** One round: the state for the next, and the revision compacted in this one, if any. */
export async function compactionRound(client: Etcd3, state: CompactionState, compact: (revision: number) => Promise<void>): Promise<CompactionState & { compacted?: number }> {
  const res = await client.kv.txn({
    compare: [{ key: Buffer.from(COMPACT_REV_KEY), target: 'Version', result: 'Equal', version: state.version }],
    success: [{ request_put: { key: Buffer.from(COMPACT_REV_KEY), value: Buffer.from(String(state.revision)) } }],
    failure: [{ request_range: { key: Buffer.from(COMPACT_REV_KEY) } }],
  });
  const revision = Number(res.header.revision);
  if (!res.succeeded) return { version: Number(res.responses[0]!.response_range.kvs[0]?.version ?? 0), revision };
  // The first round only marks where the next will compact to.
  if (state.revision === 0) return { version: state.version + 1, revision };
  await compact(state.revision);
  return { version: state.version + 1, revision, compacted: state.revision };
}

export interface CompactorDeps {
  client: () => Etcd3;
  compact: (revision: number) => Promise<void>;
  intervalMs: number;
  clock: Clock;
  logger: Logger;
}

/** Runs a round every interval until the returned stop is called; a failed round (etcd away) is logged and the next tried. */
export function startCompactor(deps: CompactorDeps): () => void {
  let state: CompactionState = { version: 0, revision: 0 };
  let running = false;
  return deps.clock.setRepeating(deps.intervalMs, () => {
    if (running) return;
    running = true;
    compactionRound(deps.client(), state, deps.compact)
      .then((next) => {
        state = next;
        if (next.compacted !== undefined) deps.logger.info('compacted etcd', { revision: next.compacted });
      })
      .catch((err: unknown) => deps.logger.warn('etcd compaction failed', { error: String(err) }))
      .finally(() => (running = false));
  });
}
