/** Parsers for command-line values, raising input errors that name the flag and the expected form. */
import { InputError } from "../../core/errors.js";

export function intOption(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^-?\d+$/.test(v.trim()) || n < min || n > max) throw new InputError(`${flag}: expected an integer in [${min}, ${max}], got "${v}"`);
    return n;
  };
}

export function numberOption(flag: string, min: number, max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === "" || !Number.isFinite(n) || n < min || n > max) throw new InputError(`${flag}: expected a number in [${min}, ${max}], got "${v}"`);
    return n;
  };
}

export function choiceOption<T extends string>(flag: string, choices: readonly T[]) {
  return (v: string): T => {
    if (!(choices as readonly string[]).includes(v)) throw new InputError(`${flag}: expected one of ${choices.join(", ")}, got "${v}"`);
    return v as T;
  };
}

/** A comma-separated list of choices, e.g. "gt,noisy". */
export function listOption<T extends string>(flag: string, choices: readonly T[]) {
  return (v: string): T[] => {
    const items = v.split(",").map((s) => s.trim()).filter(Boolean);
    if (items.length === 0) throw new InputError(`${flag}: expected a comma-separated list of ${choices.join(", ")}`);
    for (const i of items) if (!(choices as readonly string[]).includes(i)) throw new InputError(`${flag}: "${i}" is not one of ${choices.join(", ")}`);
    return [...new Set(items)] as T[];
  };
}
