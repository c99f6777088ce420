/**
 * Text for a terminal. A model's reply, a task's question or a file's label may hold control characters; written
 * raw, `\x1b[2J` clears the screen and `\x1b]0;...\x07` retitles the window. Such characters are shown
 * as escapes instead, as JSON shows them in items.jsonl; line breaks and tabs stay.
 */

/** C0 controls but tab and line feed, DEL, and the C1 controls (ESC's 8-bit forms). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `s` with every control character but \n and \t written as \xHH. */
export function printable(s: string): string {
  return s.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
