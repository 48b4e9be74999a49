import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The kubectl on PATH (the machine's image ships v1.32 as /usr/bin/kubectl). */
function findKubectl(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v kubectl']).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

export const KUBECTL = findKubectl() ?? '/usr/bin/kubectl';
export const hasKubectl = findKubectl() !== undefined;
if (!hasKubectl) console.warn('kubectl is not on PATH: the tests that drive the real kubectl are skipped');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl with a kubeconfig, a private HOME and a private discovery cache. */
export function kubectlIn(home: string, kubeconfig: string): (...args: string[]) => Promise<Run> {
  return (...args) =>
    new Promise((resolve) => {
      const env = { ...process.env, HOME: home, KUBECONFIG: kubeconfig };
      execFile(KUBECTL, ['--cache-dir', join(home, 'kube-cache'), ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
}
