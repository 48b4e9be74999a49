/** A node one-liner as a container: the process runtime runs real processes. */
export const nodeScript = (script: string) => ({ command: [process.execPath, '-e', script] });
