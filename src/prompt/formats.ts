/** The scene-graph serializations a prompt can carry (docs/prompts.md). */
export const GRAPH_FORMATS = ["json", "text", "relations", "cogmap"] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];
