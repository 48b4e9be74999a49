import { ControlError } from './control-replies.js';
import { describeProblems, parseFlap, parseShape, type FieldProblem, type FlapRequest, type ShapeRequest } from './link-shape/parse.js';
import type { LinkProxy, LinkState } from './link-proxy.js';

export const SHAPE_ACTIONS = ['shape', 'flap'] as const;
export type ShapeAction = (typeof SHAPE_ACTIONS)[number];

const invalid = (problems: FieldProblem[]): ControlError => new ControlError(400, 'BadRequest', describeProblems(problems));

/**
 * POST /links/<node>/shape?profile=satellite | ?latency=600ms&jitter=100ms&loss=2%25&rate=64kbit
 * (rateUp, rateDown, seed) | ?clear=true (the profile and any flap), and
 * POST /links/<node>/flap?down=5s&every=30s(&seed=N) | ?stop=true: the link state after it.
 */
export function shapeLink(link: LinkProxy, action: ShapeAction, query: URLSearchParams): LinkState {
  const input = Object.fromEntries(query);
  if (action === 'flap') {
    const flap = parseFlap(input);
    if (flap.problems) throw invalid(flap.problems);
    return flapBy(link, flap.value);
  }
  const shape = parseShape(input);
  if (shape.problems) throw invalid(shape.problems);
  return shapeBy(link, shape.value);
}

/** Shapes the link, or clears its profile and stops any flap. */
export function shapeBy(link: LinkProxy, request: ShapeRequest): LinkState {
  if (!request.clear) return link.shape(request.profile);
  link.flap(undefined);
  return link.shape(undefined);
}

export function flapBy(link: LinkProxy, request: FlapRequest): LinkState {
  return link.flap(request.stop ? undefined : request.schedule);
}
