/**
 * Which reasoner answers, declared once: offline programs by name, language models as `provider:model`.
 * The CLI's `--reasoner`, a run's config and the service's bodies all check names with these schemas.
 */
import * as z from "zod";

export const OFFLINE_REASONERS = ["symbolic", "symbolic-2d", "shortcut"] as const;
export type OfflineReasoner = (typeof OFFLINE_REASONERS)[number];
export const LLM_PROVIDERS = ["openai", "gemini"] as const;
const LLM_SPEC = new RegExp(`^(${LLM_PROVIDERS.join("|")}):\\S.*$`);

export const REASONER_FORMS = "symbolic, symbolic-2d, shortcut, openai:<model> or gemini:<model>";

export const ReasonerSpecSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => (OFFLINE_REASONERS as readonly string[]).includes(s) || LLM_SPEC.test(s), `expected ${REASONER_FORMS}`)
  .describe(`who answers: ${REASONER_FORMS}`);

/** A run's reasoner answers the 3D arms: symbolic-2d and shortcut are the baseline arms (`baseline: 2d,shortcut`), not a run's reasoner. */
export const RunReasonerSchema = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (s) => s === "symbolic" || LLM_SPEC.test(s),
    "expected symbolic, openai:<model> or gemini:<model> (symbolic-2d and shortcut are baselines: baseline 2d,shortcut)",
  )
  // ',' separates a run's reasoners and '|' the parts of an item key (src/eval/records.ts itemKey)
  .refine((s) => !/[,|]/.test(s), "a reasoner name holds no ',' or '|'")
  .describe("the 3D arms' reasoner: symbolic (offline graph programs) | openai:<model> | gemini:<model>");

/**
 * The reasoners of a run, each evaluated on every item: a list, or one name or a comma-separated list as the
 * command line and configs before several reasoners wrote it ("symbolic" is a list of one).
 */
export const RunReasonersSchema = z.preprocess(
  (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()) : v),
  z
    .array(RunReasonerSchema)
    .min(1)
    .refine((rs) => new Set(rs).size === rs.length, "a reasoner is named twice")
    // on the list itself: flags and JSON Schemas read the description under the preprocess
    .describe("the 3D arms' reasoners, comma-separated, each evaluated on every item: symbolic (offline graph programs) | openai:<model> | gemini:<model>"),
);

export const isLlmReasoner = (spec: string): boolean => LLM_SPEC.test(spec);
