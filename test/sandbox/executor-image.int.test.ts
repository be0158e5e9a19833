/**
 * The executor ships inside the sandbox image (images/build.sh copies it to /opt/toolshed and
 * labels the image with its hash), so a worker needs no host path the engine can see: the
 * container has no bind mount of the executor, and calls still work. An image without the label
 * (built before) or with another executor version gets this process's executor mounted over it.
 */
// suite: parallel — it reads the sandbox image by label and changes no image
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXECUTOR_CODE_DIR } from "../../src/sandbox/container-spec.js";
import { executorHash, executorMount, LABEL_EXECUTOR } from "../../src/sandbox/executor-source.js";
import { createTestProvider, docker, serviceContainers, sh, type TestProvider } from "./harness.js";

const localDir = fileURLToPath(new URL("../../src/sandbox/executor/", import.meta.url));
let image: string;
let t: TestProvider;

beforeAll(async () => {
  const want = await executorHash(localDir);
  const images = await docker.listImages({ filters: { label: [`${LABEL_EXECUTOR}=${want}`] } });
  if (!images[0]) throw new Error(`no sandbox image carries executor ${want}: run npm run images:build`);
  image = images[0].Id;
  t = await createTestProvider({ image, workspaceQuota: "off" });
});
afterAll(async () => t?.cleanup());

it("runs the image's own executor: no bind mount over /opt/toolshed, and calls work", async () => {
  const sb = await t.provider.acquire({ sessionId: "ses_img", tenantId: "ten_a" });
  expect((await sb.exec(sh("echo from-image"))).stdout).toBe("from-image\n");
  const [info] = await serviceContainers(t.serviceId, "ses_img");
  const mounts = (await docker.getContainer(info!.Id).inspect()).Mounts.map((m) => m.Destination);
  expect(mounts).toContain("/workspace");
  expect(mounts).not.toContain(EXECUTOR_CODE_DIR);
});

it("mounts this process's executor only over an image without it or with another version", async () => {
  const silent = { info: () => {}, warn: () => {} };
  expect(await executorMount(docker, image, localDir, silent)).toBeUndefined();
  // The same image seen from a checkout whose executor differs (its hash does not match).
  const other = fileURLToPath(new URL("../../src/sandbox/executor/reader-bin/", import.meta.url));
  expect(await executorMount(docker, image, other, silent)).toBe(other);
});
