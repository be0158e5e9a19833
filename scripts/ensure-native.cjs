// tree-sitter ships prebuilds linked against a newer libstdc++ than Debian 12 has; when the
// prebuild will not load, compile it here (node-gyp-build then prefers build/Release).
const { execSync, spawnSync } = require("node:child_process");

const probe = `const P=require("tree-sitter");const p=new P();p.setLanguage(require("tree-sitter-bash"));p.parse("ls")`;
const loads = () => spawnSync(process.execPath, ["-e", probe], { stdio: "ignore" }).status === 0;

if (!loads()) {
  console.log("tree-sitter prebuild does not load here; building it from source (about 40 s)");
  execSync("npm rebuild tree-sitter tree-sitter-bash", {
    stdio: "inherit",
    env: { ...process.env, npm_config_build_from_source: "true" },
  });
  if (!loads()) {
    console.error("tree-sitter still does not load after a source build");
    process.exit(1);
  }
}
