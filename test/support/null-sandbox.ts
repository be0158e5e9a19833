/** A sandbox provider that refuses to run anything: for API-shape tests that never run a tool. */
import { type SandboxProvider, SandboxUnavailableError } from "../../src/sandbox/sandbox.js";

export class NullSandboxProvider implements SandboxProvider {
  readonly removed: string[] = [];
  async acquire(): Promise<never> {
    throw new SandboxUnavailableError("no sandboxes in API-shape tests");
  }
  async stop(): Promise<void> {}
  async remove(sessionId: string): Promise<void> {
    this.removed.push(sessionId);
  }
  async reapOrphans(): Promise<number> {
    return 0;
  }
  async close(): Promise<void> {}
}
