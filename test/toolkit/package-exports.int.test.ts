/**
 * The toolkit as a package: `npm run build:lib` compiles it to dist/, and a host program
 * imports it by name (`toolshed/toolkit`, the root package.json's `exports`) with plain Node,
 * then defines a tool and runs a call.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;

const HOST = `
import { z } from "zod";
import { createHostContext, FunctionTool, Toolkit } from "toolshed/toolkit";
const add = new FunctionTool({
  name: "add",
  description: "Add two numbers.",
  schema: z.object({ a: z.number(), b: z.number().default(2) }),
  isReadOnly: true,
  fn: ({ a, b }) => a + " + " + b + " = " + (a + b),
});
const toolkit = new Toolkit({ tools: [add] });
const response = await toolkit.callTool("add", '{"a": 40}', createHostContext(), { callId: "call_1" });
console.log(response.id, response.state, response.content.map((b) => b.text).join(""));
`;

it("builds and is imported as toolshed/toolkit by plain Node", () => {
  execFileSync("npm", ["run", "-s", "build:lib"], { cwd: root, encoding: "utf8" });
  expect(existsSync(`${root}dist/toolkit/index.d.ts`)).toBe(true);
  const out = execFileSync("node", ["--input-type=module", "-e", HOST], { cwd: root, encoding: "utf8" });
  expect(out.trim()).toBe("call_1 success 40 + 2 = 42");
}, 180_000);
