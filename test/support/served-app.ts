/**
 * The API test app (`createApiTestApp`) behind a real node-server listener on loopback: what
 * `app.request` skips, Node's own request and response, is then on the path.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createApiTestApp } from "./harness.js";
import { NullSandboxProvider } from "./null-sandbox.js";

export async function servedApiTestApp(): Promise<{ port: number; close: () => Promise<void> }> {
  const t = await createApiTestApp(new NullSandboxProvider());
  const server = createServer(getRequestListener(t.app.fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      t.close();
    },
  };
}
