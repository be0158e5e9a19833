/**
 * The Python source Glob runs inside the sandbox (`python3 -I -c SOURCE`, its input as JSON on
 * stdin): matching, brace expansion and a result cap as docs/tools.md#glob says. It
 * prints `{"files": [...newest first, at most limit], "total": n}`.
 */

/** The helper program; stdin: `{"pattern", "base", "limit"}` (no input travels in its argv). */
export const GLOB_HELPER_SOURCE = String.raw`
import json, os, re, sys

def expand_braces(p):
    depth, start = 0, -1
    for i, ch in enumerate(p):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                parts, d, last = [], 0, start + 1
                for j in range(start + 1, i):
                    c = p[j]
                    if c == "{":
                        d += 1
                    elif c == "}":
                        d -= 1
                    elif c == "," and d == 0:
                        parts.append(p[last:j])
                        last = j + 1
                if not parts:
                    continue
                parts.append(p[last:i])
                out = []
                for part in parts:
                    out.extend(expand_braces(p[:start] + part + p[i + 1:]))
                return out
    return [p]

def segment_regex(seg):
    out = []
    for ch in seg:
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
    return re.compile("".join(out), re.S)

def entries(d):
    try:
        with os.scandir(d) as it:
            return list(it)
    except OSError:
        return []

def walk_files(d, found):
    for e in entries(d):
        try:
            if e.is_dir(follow_symlinks=False):
                walk_files(e.path, found)
            elif e.is_file(follow_symlinks=False):
                found.add(e.path)
        except OSError:
            pass

def match(d, segs, found):
    if not segs:
        return
    head, rest = segs[0], segs[1:]
    if head == "**":
        if not rest:
            walk_files(d, found)
            return
        match(d, rest, found)
        for e in entries(d):
            if e.is_dir(follow_symlinks=False):
                match(e.path, segs, found)
        return
    rx = segment_regex(head)
    for e in entries(d):
        if not rx.fullmatch(e.name):
            continue
        try:
            if not rest and e.is_file(follow_symlinks=False):
                found.add(e.path)
            elif rest and e.is_dir(follow_symlinks=False):
                match(e.path, rest, found)
        except OSError:
            pass

def main():
    request = json.load(sys.stdin)
    pattern, base, limit = request["pattern"], request["base"], int(request["limit"])
    found = set()
    for p in expand_braces(pattern):
        match(base, [s for s in re.split(r"[/\\]+", p) if s], found)
    def mtime(f):
        try:
            return os.lstat(f).st_mtime_ns
        except OSError:
            return 0
    ordered = sorted(found, key=lambda f: (-mtime(f), f))
    print(json.dumps({"files": ordered[:limit], "total": len(ordered)}))

main()
`;
