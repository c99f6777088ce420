/** What the page exposes to tests and to a person at the console as `window.__esi3d` (test/apps/viewer). */
export interface Hooks {
  ready: boolean;
  error: string | null;
  timings: Record<string, number>;
  key: string;
  select(nodeId: string | null): void;
  screenPoint(nodeId: string): { x: number; y: number } | null;
  show(key: string): Promise<void>;
}

declare global {
  interface Window {
    __esi3d: Hooks;
  }
}
