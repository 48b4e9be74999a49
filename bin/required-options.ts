import type { Command, Option } from 'commander';

/** `'--node <name>'`, or for a choice `'--cloud <url>' (or '--broker <url>')`. */
function describe([first, ...others]: Option[]): string {
  return others.length === 0 ? `'${first!.flags}'` : `'${first!.flags}' (or ${others.map((o) => `'${o.flags}'`).join(', or ')})`;
}

function andList(items: string[]): string {
  return items.length === 1 ? items[0]! : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Names every missing required option of `command` in one error (commander stops at the first:
 * one per run). Its required options (requiredOption), and `oneOf`: groups of which one is enough.
 * Call it once the options are declared.
 */
export function requireEveryOption(command: Command, oneOf: string[][] = []): Command {
  const option = (flag: string): Option => {
    const found = command.options.find((o) => o.long === flag);
    if (!found) throw new Error(`kedge ${command.name()} has no option ${flag}`);
    return found;
  };
  const required = command.options.filter((o) => o.mandatory);
  for (const o of required) o.makeOptionMandatory(false); // the hook below checks them, all at once
  const groups = [...required.map((o) => [o]), ...oneOf.map((flags) => flags.map(option))];
  return command.hook('preAction', () => {
    const missing = groups.filter((group) => group.every((o) => command.getOptionValue(o.attributeName()) === undefined));
    if (missing.length === 0) return;
    const s = missing.length === 1 ? '' : 's';
    command.error(`error: required option${s} ${andList(missing.map(describe))} not specified`, { code: 'commander.missingMandatoryOptionValue' });
  });
}
