import { humanDuration } from '../client/human-duration.js';

/** Why the cloud cannot reach a node that is away: since when, and how long ago (`now` and `since` in epoch ms). */
export function unreachable(node: string, since: number | undefined, now: number): string {
  if (since === undefined) return `node "${node}" is not connected to the cloud`;
  return `node "${node}" is unreachable since ${new Date(since).toISOString()} (${humanDuration(now - since)} ago)`;
}
