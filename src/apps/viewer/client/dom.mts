/** A small element builder: h("div", {class: "x", onclick}, child, "text"). */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v as EventListener);
    else if (k === "class") el.className = String(v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
  }
  return el;
}

export const fix = (x: number | null | undefined, dp = 2): string => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(dp));
export const pct = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? "–" : `${(x * 100).toFixed(0)}%`);
export const css = (c: readonly number[]): string => `rgb(${Math.round(c[0]!)}, ${Math.round(c[1]!)}, ${Math.round(c[2]!)})`;
