/**
 * Bash's brace expansion of a word whose quotes are already removed, so a target such as
 * `{.git/hooks/pre-commit,}` or `.gi{t,x}/config` can be checked alternative by alternative.
 */

/** How many words an expansion may give before the caller must assume the worst. */
const LIMIT = 64;

/** `a..e`, `1..10`, `10..1..3`: the words of a sequence expression, or null when it is none. */
function sequence(body: string): string[] | null {
  const chars = /^([A-Za-z])\.\.([A-Za-z])$/.exec(body);
  const nums = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  let from: number;
  let to: number;
  let step = 1;
  if (chars) {
    from = (chars[1] as string).charCodeAt(0);
    to = (chars[2] as string).charCodeAt(0);
  } else if (nums) {
    from = Number(nums[1]);
    to = Number(nums[2]);
    step = Math.abs(Number(nums[3] ?? 1)) || 1;
  } else return null;
  if (Math.abs(to - from) / step >= LIMIT) return [];
  const out: string[] = [];
  const dir = to >= from ? 1 : -1;
  for (let n = from; dir > 0 ? n <= to : n >= to; n += dir * step) {
    out.push(chars ? String.fromCharCode(n) : String(n));
  }
  return out;
}

/** The group `{…}` opening at `open`: its end and its top-level comma positions; null when unclosed. */
function group(s: string, open: number): { close: number; commas: number[] } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let j = open; j < s.length; j++) {
    const c = s[j];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return { close: j, commas };
    else if (c === "," && depth === 1) commas.push(j);
  }
  return null;
}

/** The words `s` expands to, in bash's order; null when there would be more than LIMIT. */
export function expandBraces(s: string): string[] | null {
  for (let i = s.indexOf("{"); i !== -1; i = s.indexOf("{", i + 1)) {
    const g = group(s, i);
    if (g === null) return [s];
    const body = s.slice(i + 1, g.close);
    let parts: string[] | null;
    if (g.commas.length > 0) {
      parts = [];
      let from = i + 1;
      for (const c of [...g.commas, g.close]) {
        parts.push(s.slice(from, c));
        from = c + 1;
      }
    } else parts = sequence(body);
    // `{x}` and `{}` stay as written; look for a later group.
    if (parts === null) continue;
    if (parts.length === 0) return null;
    const out: string[] = [];
    for (const p of parts) {
      const sub = expandBraces(s.slice(0, i) + p + s.slice(g.close + 1));
      if (sub === null || out.length + sub.length > LIMIT) return null;
      out.push(...sub);
    }
    return out;
  }
  return [s];
}
