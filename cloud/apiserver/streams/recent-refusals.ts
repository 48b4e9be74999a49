import type { Clock } from '../../../shared/clock.js';
import type { ApiResponse } from '../request.js';

/**
 * Why a WebSocket upgrade was just refused, by caller and URL, for a short while: kubectl
 * retries a refused WebSocket as SPDY at once, and that retry (which kedge does not speak)
 * gets the same answer, so kubectl prints the real reason (the node is away, the pod is gone)
 * rather than which protocols kedge speaks.
 */
export class RecentRefusals {
  private readonly byKey = new Map<string, { response: ApiResponse; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly keepMs = 10_000,
    private readonly maxEntries = 1024,
  ) {}

  remember(key: string, response: ApiResponse): void {
    this.byKey.delete(key);
    this.byKey.set(key, { response, at: this.clock.now() });
    for (const oldest of this.byKey.keys()) {
      if (this.byKey.size <= this.maxEntries) break;
      this.byKey.delete(oldest);
    }
  }

  /** The refusal remembered for `key`, once: undefined when none or when it is too old. */
  recall(key: string): ApiResponse | undefined {
    const entry = this.byKey.get(key);
    this.byKey.delete(key);
    return entry && this.clock.now() - entry.at <= this.keepMs ? entry.response : undefined;
  }
}
