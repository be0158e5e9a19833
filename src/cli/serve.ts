/** `toolshed serve|api|worker`: composes the service (compose.ts), runs until SIGINT/SIGTERM, then stops it. */
import { loadConfig } from "../config.js";
import { type ServeMode, startService } from "./compose.js";

export async function runServer(mode: ServeMode): Promise<number> {
  const config = loadConfig();
  const service = await startService(config, mode);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  service.deps.logger.info("stopping");
  await service.stop();
  // What an operator reads to know the stop finished, and in which order its parts stopped.
  service.deps.logger.info({ parts: service.parts.stopped }, "stopped");
  return 0;
}
