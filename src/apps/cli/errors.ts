/** Maps errors to exit codes: 2 for usage and input errors (with a clear message, no stack), 1 otherwise. */
import { ZodError } from "zod";
import { InputError, formatZodIssues } from "../../core/errors.js";
import { BundleError } from "../../../bridge/bundle/io.js";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function isInputError(e: unknown): boolean {
  return e instanceof InputError || e instanceof BundleError || e instanceof ZodError || (e as { exitCode?: number })?.exitCode === EXIT_USAGE;
}

export function reportError(e: unknown): number {
  if (e instanceof ZodError) {
    process.stderr.write(`esi3d: invalid input: ${formatZodIssues(e.issues)}\n`);
    return EXIT_USAGE;
  }
  if (isInputError(e)) {
    process.stderr.write(`esi3d: ${(e as Error).message}\n`);
    return EXIT_USAGE;
  }
  const err = e as Error;
  process.stderr.write(`esi3d: ${err?.message ?? String(e)}\n`);
  if (process.env.ESI3D_DEBUG && err?.stack) process.stderr.write(err.stack + "\n");
  return EXIT_FAILURE;
}
