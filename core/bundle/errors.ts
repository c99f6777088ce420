/** The error of a frame bundle (or a view upload) that cannot be read. */
import { InputError } from "../errors.js";

/**
 * A frame bundle that cannot be read: names the file and the field. `detail` is the message without the
 * file, for front-ends that must not show a path of theirs (the service's data directory).
 */
export class BundleError extends InputError {
  declare readonly file: string;
  declare readonly field: string;
  readonly detail: string;
  constructor(file: string, field: string, detail: string) {
    super(`${file}: ${field}: ${detail}`, { file, field });
    this.name = "BundleError";
    this.detail = detail;
  }
}
