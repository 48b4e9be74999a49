import type { Node } from '../../shared/types.js';
import { nodeRef, type EventRecorder } from './event-types.js';
import { messages, REASONS } from './kubelet-events.js';

/** What the kubelet tells of its own start: Starting, and Rebooted when the boot id is not the one it ran under before. */
export function recordNodeStart(recorder: EventRecorder, nodeName: string, boot: { bootId: string; rebooted: boolean }): void {
  const about = nodeRef(nodeName);
  recorder.record(about, 'Normal', REASONS.starting, messages.starting());
  if (boot.rebooted) recorder.record(about, 'Warning', REASONS.rebooted, messages.rebooted(nodeName, boot.bootId));
}

/** NodeReady / NodeNotReady, once per change of the node's Ready condition (the first status seen counts as one). */
export function nodeReadyEvents(recorder: EventRecorder, nodeName: string): (node: Node) => Node {
  let ready: boolean | undefined;
  return (node) => {
    const now = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (now !== ready) recorder.record(nodeRef(nodeName), 'Normal', now ? REASONS.nodeReady : REASONS.nodeNotReady, messages.nodeStatus(nodeName, now));
    ready = now;
    return node;
  };
}
