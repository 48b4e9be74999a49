import type { Target } from './report.js';

type Results = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Row = (figure: string, measured: number | undefined, target: string, ok?: (v: number) => boolean) => Target;

/** Issue 24's broker figures: kedge's embedded broker against Mosquitto, measured in one run. */
export function brokerTargets(r: Results, t: Row): Target[] {
  const b = r.broker;
  const s = b?.settings;
  const k = b?.contenders?.kedge;
  const m = b?.contenders?.Mosquitto;
  const vs = b?.againstMosquitto?.kedge;
  const shape = `${s?.nodes} nodes → hub, QoS 1, ${s?.payloadBytes} B, ${s?.inFlight} in flight, median of ${s?.rounds} interleaved rounds`;
  return [
    t(`broker: delivered msg/s, kedge as the cloud serves it (${shape})`, b?.msgsPerSec, `≥ 0.8 × Mosquitto's ${b?.mosquittoMsgsPerSec ?? '–'} (ratio ${b?.ratio ?? '–'})`, (v) => b?.mosquittoMsgsPerSec !== undefined && v >= 0.8 * b.mosquittoMsgsPerSec),
    t('broker: CPU µs per message of its process, kedge', b?.cpuMicrosPerMsg, `< 2 × Mosquitto's ${b?.mosquittoCpuMicrosPerMsg ?? '–'} (ratio ${b?.cpuRatio ?? '–'})`, (v) => b?.mosquittoCpuMicrosPerMsg !== undefined && v < 2 * b.mosquittoCpuMicrosPerMsg),
    t('broker: hub → nodes delivered msg/s, kedge (the hub has no rate limit)', k?.['fan-out']?.msgsPerSec, `(Mosquitto ${m?.['fan-out']?.msgsPerSec ?? '–'}, ratio ${vs?.['fan-out']?.rate ?? '–'}; CPU ratio ${vs?.['fan-out']?.cpu ?? '–'})`),
    t(`broker: one node alone, past its burst: msg/s (its limit is ${s?.rateLimit?.perSecond}/s)`, k?.['one-node']?.msgsPerSec, `(limiter off ${b?.contenders?.['kedge, limiter off']?.['one-node']?.msgsPerSec ?? '–'}; p99 ${k?.['one-node']?.p99Ms ?? '–'} ms)`),
  ];
}
