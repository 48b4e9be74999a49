import { isDeepStrictEqual } from 'node:util';
import type { ServiceRule } from './service-rules.js';

/** What makes the data plane serve the table: a rule to add, one whose content changed, one to remove. */
export type RuleAction =
  | { type: 'open'; rule: ServiceRule }
  | { type: 'update'; rule: ServiceRule }
  | { type: 'close'; key: string };

/** The actions that turn the rules in place (`current`) into `desired` (pure); unchanged rules get none. */
export function planRules(desired: readonly ServiceRule[], current: ReadonlyMap<string, ServiceRule>): RuleAction[] {
  const actions: RuleAction[] = [];
  const wanted = new Set(desired.map((r) => r.key));
  for (const key of current.keys()) if (!wanted.has(key)) actions.push({ type: 'close', key });
  for (const rule of desired) {
    const now = current.get(rule.key);
    if (!now) actions.push({ type: 'open', rule });
    else if (!isDeepStrictEqual(now, rule)) actions.push({ type: 'update', rule });
  }
  return actions;
}
