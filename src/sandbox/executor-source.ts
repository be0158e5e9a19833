/**
 * Where a container's executor comes from. The sandbox image carries it at /opt/toolshed
 * (images/build.sh copies src/sandbox/executor and labels the image with the code's hash), so a
 * worker needs no host path the engine can see: compose and remote engines work. A bind mount of
 * this process's own executor directory is used only when the image carries none (an image built
 * before) or another version than this process's (a worker whose image was not rebuilt after the
 * executor changed; warned, and it works only where the engine sees this process's files).
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type Dockerode from "dockerode";
import type { SandboxLogger } from "./sandbox-logger.js";

/** The image label holding the hash of the executor code it carries. */
export const LABEL_EXECUTOR = "toolshed.executor";

/**
 * The hash images/build.sh computes: sha256 of `sha256sum`'s lines over the directory's files in
 * byte order of their `./relative` paths, first 12 hex digits.
 */
export async function executorHash(dir: string): Promise<string> {
  const files: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path);
      else if (e.isFile()) files.push(`./${path}`);
    }
  };
  await walk("");
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  let lines = "";
  for (const f of files) {
    const sum = createHash("sha256")
      .update(await readFile(join(dir, f)))
      .digest("hex");
    lines += `${sum}  ${f}\n`;
  }
  return createHash("sha256").update(lines).digest("hex").slice(0, 12);
}

/**
 * The host directory to bind-mount over the image's executor, or undefined to use the image's.
 * Asked once per process (the image does not change under a running worker).
 */
export async function executorMount(
  docker: Dockerode,
  image: string,
  localDir: string,
  logger: SandboxLogger,
): Promise<string | undefined> {
  const [labels, local] = await Promise.all([
    docker
      .getImage(image)
      .inspect()
      .then((i) => (i.Config?.Labels ?? {}) as Record<string, string>),
    executorHash(localDir).catch(() => undefined),
  ]);
  const carried = labels[LABEL_EXECUTOR];
  if (carried && (local === undefined || carried === local)) return undefined;
  if (!carried) logger.info({ image }, "the sandbox image carries no executor: mounting this process's");
  else
    logger.warn(
      { image, image_executor: carried, local_executor: local },
      "the sandbox image carries another executor version than this process: mounting this process's (rebuild the image: npm run images:build)",
    );
  return localDir;
}
