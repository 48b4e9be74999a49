import { parseScenario, ScenarioFileError } from '../../sim/scenario/parse.js';

/** A scenario document with these steps. */
export const withSteps = (...steps: unknown[]): unknown => ({ name: 'demo', description: 'A test.', steps });

/** The problems a document has, or [] when it parses. */
export function problemsOf(doc: unknown): string[] {
  try {
    parseScenario(doc, 'test.yaml');
    return [];
  } catch (err) {
    if (!(err instanceof ScenarioFileError)) throw err;
    return err.problems;
  }
}
