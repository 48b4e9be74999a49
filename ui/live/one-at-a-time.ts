/**
 * Runs the tasks given to it one after another. A browser opens at most six connections to a
 * host over HTTP/1.1 and the four watches hold four: the polls take turns on one more, leaving
 * one for the buttons.
 */
export function oneAtATime(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const next = last.then(task, task);
    last = next.catch(() => {});
    return next;
  };
}
