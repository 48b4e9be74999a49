import { describeCloudStep, describeLeaders } from './cloud-step.js';
import { describeProfile } from '../link-shape/profile.js';
import type { Expectation, FlapStep, PodRef, PodsExpectation, ServiceExpectation, ShapeStep, Step } from './types.js';

/** Milliseconds as a short Go-style duration: "1m30s", "40s", "2.5s", "300ms". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 100) / 10;
  if (s < 60) return `${s}s`;
  const whole = Math.round(s);
  const [h, m, sec] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec ? `${sec}s` : ''}`;
}

function howMany(e: { min: number; max: number }): string {
  if (e.min === e.max) return String(e.min);
  if (e.min === 0) return `at most ${e.max}`;
  return e.max >= 100_000 ? `at least ${e.min}` : `${e.min} to ${e.max}`;
}

function podsText(e: PodsExpectation): string {
  const parts = [howMany(e), e.min === 1 && e.max === 1 ? 'pod' : 'pods'];
  if (e.selector) parts.push(e.selector);
  if (e.phase) parts.push(e.phase);
  if (e.ready !== undefined) parts.push(e.ready ? 'ready' : 'not ready');
  if (e.scheduled !== undefined) parts.push(e.scheduled ? 'scheduled' : 'unscheduled');
  if (e.minRestarts !== undefined) parts.push(`restarted at least ${e.minRestarts}x`);
  if (e.maxRestarts !== undefined) parts.push(`restarted at most ${e.maxRestarts}x`);
  if (e.waiting !== undefined) parts.push(`waiting ${e.waiting}`);
  if (e.message !== undefined) parts.push(`saying "${e.message}"`);
  if (e.node) parts.push(`on ${e.node}`);
  if (e.namespace) parts.push(`in ${e.namespace}`);
  const viewer = e.view === 'cloud' ? 'the cloud sees it' : e.node ? `${e.node} sees it` : 'the edges see it';
  return `${parts.join(' ')} (as ${viewer})`;
}

const refText = (ref: PodRef): string => ('name' in ref ? ref.name : ref.newest ? `the newest ${ref.newest === 1 ? 'pod' : `${ref.newest} pods`} ${ref.selector}` : `every pod ${ref.selector}`);

function serviceText(e: ServiceExpectation): string {
  const asked: string[] = [];
  if (e.answers !== undefined) asked.push(e.answers ? 'answers every request' : 'answers none');
  if (e.servedBy) asked.push(`${howMany(e.servedBy)} distinct answers`);
  if (e.includes) asked.push(`${refText(e.includes)} among them`);
  if (e.excludes) asked.push(`not ${refText(e.excludes)}`);
  const port = e.port === undefined ? 'nodePort' : `nodePort of port ${e.port}`;
  const ns = e.namespace === 'default' ? '' : ` in ${e.namespace}`;
  return `service ${e.service}${ns} through ${e.node}'s address and ${port} (${e.requests} GET ${e.path}): ${asked.join(', ')}`;
}

/** What an expectation asks, in words. Pure. */
export function describeExpectation(e: Expectation): string {
  switch (e.kind) {
    case 'pods':
      return podsText(e);
    case 'node':
      return `${e.node} Ready=${e.ready} (as the cloud sees it)`;
    case 'deployment':
      return `deployment ${e.name}: ${e.available} available`;
    case 'connection':
      return `${e.node} says it is ${e.connected ? 'connected' : 'offline'}`;
    case 'rejected':
      return `creating ${(e.object.kind ?? '').toLowerCase()}/${e.object.metadata.name ?? e.object.metadata.generateName} fails${e.status ? ` with HTTP ${e.status}` : ''}`;
    case 'file':
      return `${e.path} in the ${e.selector} pod on ${e.node} holds "${e.contains}" (as ${e.node} sees it)`;
    case 'service':
      return serviceText(e);
    case 'write':
      return `a write through the API ${e.succeeds ? 'is acknowledged' : `fails${e.status ? ` with HTTP ${e.status}` : ''}`}`;
    case 'written':
      return 'every acknowledged write is still there';
    case 'read': {
      const asked = e.answers === undefined ? 'which etcd members answer' : e.answers ? 'at least one etcd member answers' : 'no etcd member answers';
      return `a ${e.consistency} read: ${asked}`;
    }
    case 'leaders':
      return describeLeaders(e);
  }
}

function describeLinkStep(step: ShapeStep | FlapStep): string {
  if (step.kind === 'shape') {
    const r = step.request;
    return r.clear ? `unshape ${step.node}'s link (and stop any flap)` : `shape ${step.node}'s link: ${r.profile.name} (${describeProfile(r.profile)})`;
  }
  const r = step.request;
  if (r.stop) return `stop flapping ${step.node}'s link`;
  const seed = r.schedule.seed === undefined ? '' : ` (random, seed ${r.schedule.seed})`;
  return `flap ${step.node}'s link: down ${formatDuration(r.schedule.downMs)} every ${formatDuration(r.schedule.everyMs)}${seed}`;
}

/** A step in words, as progress lines and the report show it. Pure. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'apply':
      return `apply ${step.path ?? step.objects.map((o) => `${(o.kind ?? '').toLowerCase()}/${o.metadata.name ?? o.metadata.generateName}`).join(', ')}`;
    case 'delete':
      return step.name !== undefined
        ? `delete ${step.target.kind.toLowerCase()}/${step.name}`
        : `delete ${step.count ?? 'every'} ${step.target.kind.toLowerCase()}${step.count === 1 ? '' : 's'} ${step.selector}`;
    case 'scale':
      return `scale deployment/${step.deployment} to ${step.replicas}`;
    case 'stop':
    case 'start':
      return `${step.kind} ${step.component}${step.node ? ` on ${step.node}` : ''}`;
    case 'wait':
      return `wait ${formatDuration(step.ms)}`;
    case 'etcd':
      return `${step.action} etcd member ${step.member}`;
    case 'cloud':
      return describeCloudStep(step);
    case 'shape':
    case 'flap':
      return describeLinkStep(step);
    case 'expect': {
      const within = step.withinMs > 0 ? ` within ${formatDuration(step.withinMs)}` : '';
      const lasting = step.forMs > 0 ? ` for ${formatDuration(step.forMs)}` : '';
      return `expect ${describeExpectation(step.expectation)}${within}${lasting}`;
    }
    default:
      return `${step.kind} ${step.nodes.join(', ')}`;
  }
}
