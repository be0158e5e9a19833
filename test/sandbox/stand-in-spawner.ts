import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Starts `server` (a ForkServer) on a stand-in spawner written to `dir`: a shell script that says
 * it adopts orphans (R, so no /proc scan finds anything), waits for the first start request's
 * first byte, runs `then` (printf of the spawner's lines; $$ is its pid) and idles.
 */
export async function startStandIn(
  server: { start(bin: string): Promise<boolean> },
  dir: string,
  then: string,
): Promise<boolean> {
  const bin = join(dir, "spawner");
  await writeFile(bin, `#!/bin/sh\nprintf 'R\\n'; head -c 1 >/dev/null\n${then}\nexec sleep 60\n`);
  await chmod(bin, 0o755);
  return server.start(bin);
}
