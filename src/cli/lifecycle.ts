/**
 * What the composition root started, in order, so that shutdown stops it in reverse: a part is
 * recorded only once it runs, so a start that fails half-way stops exactly what had started.
 */
import type { Logger } from "../log.js";

interface Part {
  name: string;
  stop: () => Promise<void> | void;
}

export class Lifecycle {
  private readonly parts: Part[] = [];
  private stopping: Promise<void> | undefined;
  /** The parts stopped so far, in the order they were stopped. */
  readonly stopped: string[] = [];

  constructor(private readonly logger?: Logger) {}

  /** Records that `name` runs now; `stop` ends it at shutdown. */
  started(name: string, stop: () => Promise<void> | void): void {
    if (this.stopping) throw new Error(`${name} started while the service stops`);
    this.parts.push({ name, stop });
  }

  /** The running parts, in start order. */
  get names(): string[] {
    return this.parts.map((p) => p.name);
  }

  /**
   * Stops every part, last started first. A part whose stop throws is logged and the others
   * still stop (nothing is left open). A second call waits for the first and does nothing more.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const part of [...this.parts].reverse()) {
        try {
          await part.stop();
        } catch (err) {
          this.logger?.warn({ err, part: part.name }, "stopping failed");
        }
        this.stopped.push(part.name);
      }
    })();
    return this.stopping;
  }
}
