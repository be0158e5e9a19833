/**
 * Named points of a call's path through the service, published on a diagnostics channel so that
 * `npm run bench -- hops` can time each hop of a warm call (rounds 9-14 rebuilt a marked copy of
 * the tree for that each time). Free while nobody listens: one `hasSubscribers` check a point.
 */
import { channel } from "node:diagnostics_channel";

/** The channel's name; a subscriber gets each point's name as it is passed. */
export const CALL_PATH_CHANNEL = "toolshed:call-path";

/** The points, in the order a warm Read with `wait` passes them. */
export const CALL_POINTS = [
  "authenticated",
  "body read",
  "route",
  "session loaded",
  "planned",
  "ordered",
  "executor asked",
  "executor answered",
  "tool returned",
  "stored",
] as const;

export type CallPoint = (typeof CALL_POINTS)[number];

const points = channel(CALL_PATH_CHANNEL);

/** Tells a listener (a bench) that the current call passed `point`. */
export function passed(point: CallPoint): void {
  if (points.hasSubscribers) points.publish(point);
}
