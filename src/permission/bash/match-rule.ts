/**
 * Bash rule matching (docs/permission.md#bash-rule-matching): `X:*` prefixes and plain contents match at a
 * word boundary, `*` is a wildcard within one simple command, `\*` and `\\` are literal. Deny
 * and ask rules match the whole line or any simple command; an allow rule set must cover every
 * simple command (read-only ones excepted).
 */
import type { PermissionRule } from "../types.js";
import { STAR, type Wildcard, wildcardMatch } from "../wildcard.js";
import type { BashAnalysis } from "./analysis.js";
import { isHarmlessRedirect, isReadOnlyCommand } from "./read-only.js";
import type { SimpleCommand } from "./simple-commands.js";
import { isSoundLine } from "./sound-line.js";
import { isExact } from "./word-shape.js";

/** A compiled rule content: a test on one piece of command text. */
export type CompiledRule = (text: string) => boolean;

const compiled = new Map<string, CompiledRule>();

function hasUnescapedStar(content: string): boolean {
  for (let i = 0; i < content.length; i++) {
    if (content[i] === "\\") i++;
    else if (content[i] === "*") return true;
  }
  return false;
}

/** `\*` is `*`, `\\` is `\`, any other backslash stays a literal backslash. */
function unescapeContent(content: string): string {
  return content.replace(/\\([*\\])/g, "$1");
}

/** Whitespace that ends a word: space, tab, newline, carriage return. */
function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Per compiled rule: a text it matches always starts with this literal head. */
const heads = new WeakMap<CompiledRule, string>();

function wordPrefix(prefix: string): CompiledRule {
  const rule: CompiledRule = (text) =>
    text === prefix || (text.startsWith(prefix) && isBlank(text.charCodeAt(prefix.length)));
  heads.set(rule, prefix);
  return rule;
}

function wildcard(content: string): CompiledRule {
  const full: (string | typeof STAR)[] = [];
  for (let i = 0; i < content.length; i++) {
    const c = content[i] as string;
    if (c === "\\" && (content[i + 1] === "*" || content[i + 1] === "\\")) full.push(content[++i] as string);
    else full.push(c === "*" ? STAR : c);
  }
  // `git *` also matches a bare `git` (the reference's trailing-wildcard rule).
  const trimmed = full[full.length - 1] === STAR ? withoutTrailingBlanks(full.slice(0, -1)) : null;
  // Both patterns start with the literal text before the first `*` (trailing blanks trimmed):
  // a cheap necessary test that skips the matching for most texts.
  const head = literalHead(content).trimEnd();
  const matches = (pattern: Wildcard<string>, text: string) =>
    wildcardMatch(pattern, text.length, (c, i) => c === text[i]);
  const rule: CompiledRule = (text) =>
    text.startsWith(head) && (matches(full, text) || (trimmed !== null && matches(trimmed, text)));
  heads.set(rule, head);
  return rule;
}

function withoutTrailingBlanks(pattern: (string | typeof STAR)[]): (string | typeof STAR)[] {
  let end = pattern.length;
  while (end > 0 && typeof pattern[end - 1] === "string" && /^\s$/.test(pattern[end - 1] as string)) end--;
  return pattern.slice(0, end);
}

/** The literal text of `content` before its first unescaped `*` (`\*` is `*`, `\\` is `\`). */
function literalHead(content: string): string {
  let head = "";
  for (let i = 0; i < content.length; i++) {
    const c = content[i] as string;
    if (c === "\\" && (content[i + 1] === "*" || content[i + 1] === "\\")) head += content[++i];
    else if (c === "*") return head;
    else head += c;
  }
  return head;
}

/** Compiles (and caches) one rule content. */
export function compileBashRule(content: string): CompiledRule {
  const hit = compiled.get(content);
  if (hit) return hit;
  let rule: CompiledRule;
  if (content.endsWith(":*")) rule = wordPrefix(content.slice(0, -2).trim());
  else if (!hasUnescapedStar(content)) rule = wordPrefix(unescapeContent(content));
  else rule = wildcard(content);
  if (compiled.size > 1000) compiled.clear();
  compiled.set(content, rule);
  return rule;
}

/** The simple command with wrappers, assignments and quoting stripped: `sudo FOO=1 /bin/rm "x"` is `rm x`. */
function normalisedText(cmd: SimpleCommand): string | null {
  if (cmd.name === null) return null;
  if (cmd.memo.normalised === undefined) {
    let n = cmd.name;
    for (const a of cmd.args) n += ` ${a.lit}`;
    cmd.memo.normalised = n;
  }
  return cmd.memo.normalised;
}

/** Could a text beginning with `name` start with `head`? */
function couldStartWith(name: string, head: string): boolean {
  return head.length <= name.length ? name.startsWith(head) : head.startsWith(name);
}

/** Deny/ask matching: the whole line, or any simple command as written or normalised. */
export function matchesAnyPart(content: string, a: BashAnalysis): boolean {
  const rule = compileBashRule(content);
  if (rule(a.command)) return true;
  const trimmed = a.command.trim();
  if (trimmed !== a.command && rule(trimmed)) return true;
  const head = heads.get(rule) ?? "";
  for (const c of a.commands) {
    if (rule(c.text) || couldExpandTo(head, c)) return true;
    // The normalised text starts with the name: skip building it when the head rules it out.
    if (c.name === null || !couldStartWith(c.name, head)) continue;
    const n = normalisedText(c);
    if (n !== null && rule(n)) return true;
  }
  return false;
}

/** The words of each rule's literal head. */
const headWords = new Map<string, string[]>();

/**
 * Could a word bash still expands make this command start with `head`, the rule's literal words?
 * A brace (`git {push,origin}` runs `git push origin`), a glob (`git pus[h]` with a file `push`) or
 * an unknown `$X` may become any word, or several: from the first such word on, the command
 * could be anything, so a deny or ask rule matches it (attack26a). Words before it must be the
 * rule's own (the last may be a prefix of the command's word when the rule goes on with `*`).
 */
function couldExpandTo(head: string, cmd: SimpleCommand): boolean {
  if (cmd.words.every(isExact)) return false;
  let want = headWords.get(head);
  if (want === undefined) {
    want = head.split(/[ \t\n\r]+/).filter((w) => w !== "");
    if (headWords.size > 1000) headWords.clear();
    headWords.set(head, want);
  }
  if (want.length === 0) return false;
  const nameAt = cmd.words.length - cmd.args.length - 1;
  const got = nameAt < 0 ? cmd.args : cmd.words.slice(nameAt);
  for (let i = 0; i < want.length; i++) {
    const w = got[i];
    if (w === undefined) return false;
    if (!isExact(w)) return true;
    const word = (i === 0 && cmd.name !== null ? cmd.name : w.value) as string;
    const last = i === want.length - 1 && !/[ \t\n\r]$/.test(head);
    if (last ? !word.startsWith(want[i] as string) : word !== want[i]) return false;
  }
  return false;
}

/** Allow-set matching: the first rule used when every simple command is covered, else undefined. */
export function matchAllowSet(rules: readonly PermissionRule[], a: BashAnalysis): PermissionRule | undefined {
  if (a.failure !== null || a.injection !== null || a.hasError || a.commands.length === 0) return undefined;
  if (!a.looseRedirects.every(isHarmlessRedirect)) return undefined;
  // The content rules, compiled once for all the commands.
  const withContent: PermissionRule[] = [];
  const tests: CompiledRule[] = [];
  for (const r of rules) {
    if (r.ruleContent === null || r.ruleContent === "") continue;
    withContent.push(r);
    tests.push(compileBashRule(r.ruleContent));
  }
  let decided: PermissionRule | undefined;
  for (const cmd of a.commands) {
    let rule: PermissionRule | undefined;
    for (let i = 0; i < tests.length; i++) {
      if ((tests[i] as CompiledRule)(cmd.text)) {
        rule = withContent[i];
        break;
      }
    }
    if (rule) decided ??= rule;
    // A read-only command needs no rule, but only in a line where read-only can be judged at all.
    else if (!isReadOnlyCommand(cmd) || !isSoundLine(a)) return undefined;
  }
  return decided;
}
