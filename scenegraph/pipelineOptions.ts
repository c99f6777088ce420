/**
 * Everything that decides a graph, declared apart from the pipeline that builds it: a command registers its
 * flags from this (and `--help` prints them) without loading the reconstruction and clustering code.
 */
import type * as z from "zod";
import type { FlagSpec } from "../core/flags.js";
import { CloudOptionsSchema, CLOUD_FLAGS } from "../reconstruct/options.js";
import { GRAPH_FLAGS, GraphOptionsSchema } from "./options.js";

/** The cloud's source and options, the evidence mode and the instance builder. */
export const GraphPipelineOptionsSchema = CloudOptionsSchema.extend(GraphOptionsSchema.shape).strict();
export type GraphPipelineOptions = z.infer<typeof GraphPipelineOptionsSchema>;
export const GRAPH_PIPELINE_FLAGS: readonly FlagSpec[] = [...CLOUD_FLAGS, ...GRAPH_FLAGS];
