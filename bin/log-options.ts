import { Option, type Command } from 'commander';
import { LOG_FORMATS, LOG_LEVELS, type Logger, type LogSettings } from '../shared/log.js';

/** --log-format and --log-level, for the long-running commands (cloud, edge, demo, fleet). */
export function withLogOptions(command: Command): Command {
  return command
    .addOption(new Option('--log-format <format>', 'text (for people) or json (one object a line: time, level, component, message, fields)').choices(LOG_FORMATS).default('text'))
    .addOption(new Option('--log-level <level>', 'the least severe level logged').choices(LOG_LEVELS).default('info'));
}

/** The settings those options chose. */
export function logSettings(o: { logFormat: LogSettings['format']; logLevel: LogSettings['level'] }): LogSettings {
  return { format: o.logFormat, level: o.logLevel };
}

/** The same options for a role process this one starts (the demo's cloud and edges). */
export function logArgs(settings: LogSettings): string[] {
  return ['--log-format', settings.format, '--log-level', settings.level];
}

/**
 * Where a child's output line ("[name] …") goes. As text: as it is. As json: a child's JSON
 * line as it is, any other line (a ready line) as an info record of that child.
 */
export function childLineWriter(settings: LogSettings, logger: Logger, write: (line: string) => void): (line: string) => void {
  if (settings.format === 'text') return write;
  return (line) => {
    const [, name, rest] = /^\[([^\]]+)\] (.*)$/s.exec(line) ?? [];
    if (rest?.startsWith('{')) return write(rest);
    if (name !== undefined && rest !== undefined) return logger.child(name).info(rest);
    logger.info(line);
  };
}
