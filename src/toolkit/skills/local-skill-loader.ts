/**
 * A folder of skills on the host (docs/toolkit.md#skill-sources-and-toolkitcreate). The only file in the
 * toolkit that touches the host's file system (tools reach files through the Sandbox): it reads SKILL.md
 * files when loading and again when the `Skill` viewer is called, so an edited body shows without reloading.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Skill, SkillSource } from "./skill.js";
import { SkillLoaderBase, SkillSourceError } from "./skill-loader.js";
import { checkSkillMeta } from "./skill-meta.js";

/** Where the loader looks. */
export interface LocalSkillLoaderOptions {
  /** One skill's directory, or with `scanSubdir` a folder of skills; made absolute. */
  directory: string;
  /** Also every sub-directory, at any depth, that holds a SKILL.md (symbolic links are not followed). */
  scanSubdir?: boolean;
}

/** Loads the skills of a host directory; each skill's `dir` is its absolute host path. */
export class LocalSkillLoader extends SkillLoaderBase implements SkillSource {
  readonly directory: string;
  readonly scanSubdir: boolean;
  readonly label: string;

  constructor(opts: LocalSkillLoaderOptions) {
    super();
    this.directory = resolve(opts.directory);
    this.scanSubdir = opts.scanSubdir ?? false;
    this.label = `LocalSkillLoader(${this.directory}${this.scanSubdir ? ", scanSubdir" : ""})`;
  }

  async load(): Promise<Skill[]> {
    const root = this.directory;
    const info = await stat(root).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") {
        throw this.error(`the directory ${root} does not exist.`, root);
      }
      throw this.error(`${root} cannot be read (${err.code}).`, root);
    });
    if (!info.isDirectory()) throw this.error(`${root} is not a directory.`, root);
    const dirs = this.scanSubdir ? await skillDirs(root) : [root];
    if (this.scanSubdir && dirs.length === 0) {
      throw this.error(`no SKILL.md in ${root} or any of its sub-directories.`, root);
    }
    return Promise.all(dirs.map((dir) => this.loadOne(dir)));
  }

  /** The SKILL.md as it is now (the viewer strips the front matter). */
  readSkillMd(skill: Skill): Promise<string> {
    return readFile(join(skill.dir, "SKILL.md"), "utf8");
  }

  private async loadOne(dir: string): Promise<Skill> {
    const file = join(dir, "SKILL.md");
    const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw this.error(`${file} cannot be read (${err.code}).`, file);
      const hint = this.scanSubdir ? "" : " (without scanSubdir the directory must be one skill)";
      throw this.error(`${file} does not exist${hint}.`, file);
    });
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw this.error(`${file}: SKILL.md must be UTF-8 text.`, file);
    }
    const checked = checkSkillMeta(text);
    if (!checked.ok) throw this.error(`${file}: ${checked.problems.join(" ")}`, file);
    const { name, description } = checked.meta;
    return { name, description, dir, source: this, origin: file };
  }

  private error(problem: string, file: string): SkillSourceError {
    return new SkillSourceError(this.label, problem, file);
  }
}

/** `root` and each directory below it that holds a SKILL.md, depth first, by name. */
async function skillDirs(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (entries.some((e) => e.name === "SKILL.md" && !e.isDirectory())) found.push(dir);
    for (const e of entries) if (e.isDirectory()) await walk(join(dir, e.name));
  };
  await walk(root);
  return found;
}
