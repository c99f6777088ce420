/**
 * Ctrl-C for long commands: the first SIGINT asks the work to stop after the items in flight, the second
 * abandons them. Installed by the command only while its work runs (library code never touches process
 * signals), and removed afterwards whatever happens.
 */
export async function withInterrupts<T>(onFirst: () => void, work: (signals: { signal: AbortSignal; abandon: AbortSignal }) => Promise<T>): Promise<T> {
  const stop = new AbortController(),
    abandon = new AbortController();
  const onSignal = () => {
    if (!stop.signal.aborted) {
      stop.abort();
      onFirst();
    } else abandon.abort();
  };
  process.on("SIGINT", onSignal);
  try {
    return await work({ signal: stop.signal, abandon: abandon.signal });
  } finally {
    process.off("SIGINT", onSignal);
  }
}

export const INTERRUPT_NOTE = "interrupted: finishing the items in flight (Ctrl-C again to abandon them); --resume completes the run";

/** What an interrupted run prints last: that it is not finished, and the one command that finishes it. */
export const resumeHint = (command: string, out: string): string =>
  `interrupted: the run is not finished; its finished items are kept. To finish it: esi3d ${command} --resume --out ${/^[\w./@:+-]+$/.test(out) ? out : JSON.stringify(out)}\n`;
