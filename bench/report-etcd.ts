import type { Target } from './report.js';

type Results = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Row = (figure: string, measured: number | undefined, target: string, ok?: (v: number) => boolean) => Target;

/** `etcd 1 member: X (ratio R); etcd 3 members: …` for one figure of the etcd suite. */
function onEtcd(e: Results | undefined, figure: string): string {
  const one = (name: 'etcd1' | 'etcd3', label: string): string => `${label} ${e?.stores?.[name]?.[figure] ?? '–'}, ratio ${e?.vsEmbedded?.[name]?.[figure]?.ratio ?? '–'}`;
  return `(${one('etcd1', 'etcd 1 member')}; ${one('etcd3', '3 members')})`;
}

/** Issue 22's figures: the embedded durable store against etcd, and the scale suite on etcd. */
export function etcdTargets(r: Results, t: Row): Target[] {
  const e = r.etcd;
  const s = e?.settings;
  const api = s?.api;
  const x = r.scaleEtcd;
  return [
    t(`store writes/s, embedded durable, ${s?.objects} objects, ${s?.writers} writers, median of ${s?.storeRounds} rounds interleaved with etcd's`, e?.stores?.embedded?.writesPerSecond, onEtcd(e, 'writesPerSecond')),
    t(`API mutating p99 (ms), embedded, ${api?.pods} pods created, updated, deleted at ${api?.callsPerSecond}/s, median of ${e?.settings?.apiRounds} rounds`, e?.stores?.embedded?.apiMutatingP99Ms, onEtcd(e, 'apiMutatingP99Ms')),
    t(`API list p99 (ms), embedded, ${api?.pods} pods`, e?.stores?.embedded?.apiListP99Ms, onEtcd(e, 'apiListP99Ms')),
    t(`on etcd (${x?.store}): pod startup p99 (ms), ${x?.nodes} nodes / ${x?.pods} pods`, x?.podStartupMs?.p99, '≤ 2,000', (v) => v <= 2000),
    t(`on etcd: mutating API call p99 under ${x?.podsPerSecond ?? 100} creates/s (ms)`, x?.apiMutatingP99Ms, '≤ 100', (v) => v <= 100),
  ];
}
