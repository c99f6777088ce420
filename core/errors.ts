/**
 * One error hierarchy for every stage and front-end. `InputError` (and its subclasses) is anything a user
 * can fix: bad flags, bad files, bad request bodies, a missing API key. Each front-end maps errors once:
 * the command line with `exitCodeOf` (2 for input errors, no stack trace), the service with its HTTP
 * mapping (400 for input errors). Messages name the file and the field, never a front-end's flag: the
 * front-ends translate fields to flags where they differ.
 */
import { ZodError } from "zod";

export interface ErrorPlace {
  /** the file the bad input came from, when it came from one */
  file?: string;
  /** the field inside it (dotted path), or the option */
  field?: string;
}

export class InputError extends Error {
  readonly file?: string;
  readonly field?: string;
  constructor(message: string, where: ErrorPlace = {}) {
    super(message);
    this.name = "InputError";
    if (where.file !== undefined) this.file = where.file;
    if (where.field !== undefined) this.field = where.field;
  }
}

/** How many zod issues an error message shows: enough to fix a file, never a flood. */
export const MAX_REPORTED_ISSUES = 5;
/** The longest issue message kept (characters): zod can list every key of a large object in one message. */
const MAX_ISSUE_MESSAGE_CHARS = 200;

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

/** The first issues of a zod error as `{field, message}`, each message clipped; `prefix` roots the paths. */
export function zodIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, prefix: string[] = []): Array<{ field: string; message: string }> {
  return issues.slice(0, MAX_REPORTED_ISSUES).map((i) => {
    const path = [...prefix, ...i.path.map(String)];
    return { field: path.length ? path.join(".") : "(root)", message: clip(i.message, MAX_ISSUE_MESSAGE_CHARS) };
  });
}

/** One line per zod issue: "path: message" (the first few only). */
export function formatZodIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const shown = zodIssues(issues);
  const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : "";
  return shown.map((i) => `${i.field}: ${i.message}`).join("; ") + more;
}

/** A zod failure of a file's content as an input error naming the file and the first field. */
export function inputErrorFromZod(e: ZodError, where: ErrorPlace & { what?: string } = {}): InputError {
  const first = zodIssues(e.issues)[0];
  const head = [where.file, where.what].filter(Boolean).join(": ");
  return new InputError(`${head ? head + ": " : ""}${formatZodIssues(e.issues)}`, { file: where.file, field: first?.field });
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** A run stopped by Ctrl-C (128 + SIGINT); it resumes with --resume. */
export const EXIT_INTERRUPTED = 130;

function isInputError(e: unknown): e is InputError | ZodError {
  return e instanceof InputError || e instanceof ZodError;
}

/** The exit code of a command that failed with `e`. */
export function exitCodeOf(e: unknown): number {
  return isInputError(e) ? EXIT_USAGE : EXIT_FAILURE;
}

/** The one-line message a user sees for `e` (zod errors listed by field, never a stack). */
export function userMessage(e: unknown): string {
  if (e instanceof ZodError) return `invalid input: ${formatZodIssues(e.issues)}`;
  return (e as Error)?.message ?? String(e);
}
