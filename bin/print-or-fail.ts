/** Prints what `work` says, or the error it fails with (exit code 1). */
export async function printOrFail(work: () => Promise<string>): Promise<void> {
  try {
    process.stdout.write(await work());
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
