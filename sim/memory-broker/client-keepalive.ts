import type { Cancel, Clock } from '../../shared/clock.js';

/**
 * mqtt.js 5's keepalive rule (KeepaliveManager): a tick every half keepalive, started again by
 * every acknowledgement or ping answer; the second tick sends a ping, the third gives up. So a
 * client that hears nothing closes 1.5 keepalives after it last heard an answer.
 */
export class ClientKeepalive {
  private ticks = 0;
  private cancel: Cancel | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly keepaliveMs: number,
    private readonly ping: () => void,
    private readonly timedOut: () => void,
  ) {
    this.restart();
  }

  /** An acknowledgement or a ping's answer came. */
  answered(): void {
    this.restart();
  }

  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  private restart(): void {
    this.stop();
    this.ticks = 0;
    this.cancel = this.clock.setRepeating(Math.ceil(this.keepaliveMs / 2), () => this.tick());
  }

  private tick(): void {
    this.ticks += 1;
    if (this.ticks === 2) this.ping();
    else if (this.ticks > 2) {
      this.stop();
      this.timedOut();
    }
  }
}
