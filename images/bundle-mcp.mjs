// Bundles the platform-provided MCP servers into /opt/mcp of the sandbox image: third-party npm
// packages (devDependencies of this repository, so no registry is needed at build time), one
// self-contained ESM file each, for the sandbox's Node 18. Usage: node bundle-mcp.mjs <outdir>
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(new URL("../package.json", import.meta.url));
const { build } = require("esbuild");
const out = process.argv[2];
if (!out) throw new Error("usage: node bundle-mcp.mjs <outdir>");

// file name → package; tenants register them as {"transport":"stdio","command":"node","args":["/opt/mcp/<file>"]}.
const SERVERS = {
  "everything.mjs": "@modelcontextprotocol/server-everything",
  "memory.mjs": "@modelcontextprotocol/server-memory",
};

const versions = {};
for (const [file, pkg] of Object.entries(SERVERS)) {
  const manifest = require(`${pkg}/package.json`);
  versions[pkg] = manifest.version;
  await build({
    entryPoints: [require.resolve(`${pkg}/${manifest.bin ? Object.values(manifest.bin)[0] : manifest.main}`)],
    outfile: join(out, file),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    logLevel: "warning",
    // Bundled CommonJS dependencies still call require() for Node built-ins.
    banner: { js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);' },
  });
}
writeFileSync(join(out, "versions.json"), `${JSON.stringify(versions, null, 2)}\n`);
console.log(JSON.stringify(versions));
