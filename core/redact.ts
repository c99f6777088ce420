/**
 * Text a client sees must not show the server's own places: its data directory, the model endpoint it
 * calls (OPENAI_BASE_URL), model files. `redactor` replaces each known value with a label (the longest
 * first, so a path inside another is replaced whole); the server's log keeps the real values.
 */
export function redactor(known: ReadonlyArray<readonly [value: string | null | undefined, label: string]>): (text: string) => string {
  const pairs = known.filter((p): p is readonly [string, string] => typeof p[0] === "string" && p[0].length > 1).sort((a, b) => b[0].length - a[0].length);
  return (text) => {
    let out = text;
    for (const [value, label] of pairs) out = out.split(value).join(label);
    return out;
  };
}

/** `value` with `redact` applied to every string in it (records a client reads back, e.g. a run's items). */
export function redactStrings<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact)) as T;
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v, redact)])) as T;
  return value;
}
