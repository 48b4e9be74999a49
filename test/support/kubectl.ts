import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const KUBECTL = '/usr/bin/kubectl';
export const hasKubectl = existsSync(KUBECTL);

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
