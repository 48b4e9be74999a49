import { Subject, type Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import type { ComponentControl, ComponentDef, ComponentHandle, ComponentState } from './component.js';

interface Entry {
  def: ComponentDef;
  /** What the user asked for; a child runs only when it and its parent are wanted. */
  wanted: boolean;
  handle?: ComponentHandle;
  /** Started and closed by its owner (the cloud's composition root); `close` leaves it be. */
  adopted: boolean;
  since: number;
  error?: string;
  /** Start/stop calls on this entry run one after another. */
  busy: Promise<unknown>;
}

/**
 * The cloud's stoppable components and their state. Stopping a parent (controller-manager)
 * stops its children but keeps what the user asked of each, so starting the parent brings
 * back exactly the children that were running.
 */
export class ComponentSet implements ComponentControl {
  private readonly entries = new Map<string, Entry>();
  private readonly changed = new Subject<string>();
  /** The name of each component that has just started, stopped or failed to start. */
  readonly changes$: Observable<string> = this.changed.asObservable();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Registers a component, wanted or not (`kedge cloud --disable`); `startAll` starts the wanted ones. */
  add(def: ComponentDef, wanted = true): void {
    if (this.entries.has(def.name)) throw new Error(`component ${def.name} registered twice`);
    if (def.parent !== undefined && !this.entries.has(def.parent)) throw new Error(`component ${def.name}: unknown parent ${def.parent}`);
    this.entries.set(def.name, { def, wanted, adopted: false, since: this.clock.now(), busy: Promise.resolve() });
  }

  /**
   * Registers a component its owner has already started (the apiserver, the store, the broker):
   * running from now. `stop` and `start` switch it as any other; `close` leaves it to its owner.
   */
  adopt(def: ComponentDef, running: ComponentHandle): void {
    this.add(def);
    const entry = this.entries.get(def.name)!;
    entry.handle = running;
    entry.adopted = true;
  }

  get names(): string[] {
    return [...this.entries.keys()];
  }

  async startAll(): Promise<void> {
    for (const entry of this.entries.values()) if (this.shouldRun(entry)) await this.serial(entry, () => this.run(entry));
  }

  list(): ComponentState[] {
    return [...this.entries.values()].map((e) => this.stateOf(e));
  }

  async start(name: string): Promise<ComponentState> {
    const entry = this.entry(name);
    const parent = entry.def.parent === undefined ? undefined : this.entry(entry.def.parent);
    if (parent && !parent.wanted) throw new KedgeError('Conflict', `${name} runs inside ${parent.def.name}, which is stopped: start ${parent.def.name} first`);
    entry.wanted = true;
    await this.serial(entry, () => this.run(entry));
    for (const child of this.childrenOf(name)) if (child.wanted) await this.serial(child, () => this.run(child));
    return this.stateOf(entry);
  }

  async stop(name: string): Promise<ComponentState> {
    const entry = this.entry(name);
    if (entry.def.unstoppable !== undefined) throw new KedgeError('BadRequest', `${name} cannot be stopped: ${entry.def.unstoppable}`);
    for (const child of this.childrenOf(name)) await this.serial(child, () => this.halt(child));
    entry.wanted = false;
    await this.serial(entry, () => this.halt(entry));
    return this.stateOf(entry);
  }

  /** Stops everything it started (children first), keeping what was wanted; adopted parts are their owner's to close. */
  async close(): Promise<void> {
    for (const entry of [...this.entries.values()].reverse()) if (!entry.adopted) await this.serial(entry, () => this.halt(entry));
  }

  private entry(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new KedgeError('NotFound', `no component named "${name}" (known: ${this.names.join(', ')})`);
    return entry;
  }

  private childrenOf(name: string): Entry[] {
    return [...this.entries.values()].filter((e) => e.def.parent === name);
  }

  private shouldRun(entry: Entry): boolean {
    const parent = entry.def.parent === undefined ? undefined : this.entries.get(entry.def.parent);
    return entry.wanted && (parent?.wanted ?? true);
  }

  private serial(entry: Entry, work: () => Promise<void>): Promise<void> {
    const next = entry.busy.then(work);
    entry.busy = next.catch(() => undefined);
    return next;
  }

  private async run(entry: Entry): Promise<void> {
    if (entry.handle) return;
    try {
      entry.handle = await entry.def.start();
      entry.error = undefined;
      this.logger.info('component started', { component: entry.def.name });
    } catch (err) {
      entry.error = (err as Error).message;
      this.logger.error('component failed to start', { component: entry.def.name, error: entry.error });
    }
    entry.since = this.clock.now();
    this.changed.next(entry.def.name);
  }

  private async halt(entry: Entry): Promise<void> {
    const handle = entry.handle;
    if (!handle) return;
    entry.handle = undefined;
    entry.since = this.clock.now();
    await handle.close().catch((err: unknown) => this.logger.warn('component stop failed', { component: entry.def.name, error: String(err) }));
    this.logger.info('component stopped', { component: entry.def.name });
    this.changed.next(entry.def.name);
  }

  private stateOf(entry: Entry): ComponentState {
    const running = entry.handle !== undefined;
    const health = running ? entry.def.health?.() : undefined;
    const since = new Date(Math.max(entry.since, health?.since ?? entry.since)).toISOString();
    const message = running ? (health?.message ?? 'ok') : entry.error !== undefined ? `failed to start: ${entry.error}` : this.shouldRun(entry) ? 'starting' : 'stopped';
    const healthy = running && (health?.healthy ?? true);
    const state: ComponentState = { name: entry.def.name, running, healthy, stoppable: entry.def.unstoppable === undefined, since, message };
    if (entry.def.parent !== undefined) state.parent = entry.def.parent;
    return state;
  }
}
