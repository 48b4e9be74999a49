/** The order in which `contenders` run in round `round`: rotated by one each round, so that no contender always runs first or last. */
export function roundOrder(contenders: number, round: number): number[] {
  return Array.from({ length: contenders }, (_, i) => (i + round) % contenders);
}

/** `rounds` rounds, each running every contender once in roundOrder; results[contender][round]. */
export async function interleavedRounds<T>(contenders: number, rounds: number, run: (contender: number, round: number) => Promise<T>): Promise<T[][]> {
  const results = Array.from({ length: contenders }, (): T[] => []);
  for (let r = 0; r < rounds; r++) {
    for (const c of roundOrder(contenders, r)) results[c]![r] = await run(c, r);
  }
  return results;
}
