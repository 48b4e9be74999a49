import type { Clock } from '../../shared/clock.js';
import type { EdgeComponent } from '../../edge/network/edge-component.js';

/** TEST DOUBLE. An edge component that only remembers whether it runs, and since when (on `clock`). */
export class FakeComponent implements EdgeComponent {
  private up = true;
  private changedAt: number;
  readonly calls: string[] = [];

  constructor(
    readonly name: string,
    private readonly clock: Clock,
  ) {
    this.changedAt = clock.now();
  }

  running(): boolean {
    return this.up;
  }

  since(): number {
    return this.changedAt;
  }

  async start(): Promise<void> {
    this.set(true, 'start');
  }

  async stop(): Promise<void> {
    this.set(false, 'stop');
  }

  private set(up: boolean, call: string): void {
    this.calls.push(call);
    this.up = up;
    this.changedAt = this.clock.now();
  }
}
