/**
 * The CLI's output, and what must happen before the process ends early. A write resolves once its
 * bytes are out and rejects when they cannot be (the reader went away: EPIPE); work registered
 * with onEarlyExit (session memory: say that the read was not shown) runs before the process
 * exits on an output failure or a signal.
 */
import { cliIO } from './io.js';

const hooks = new Set<() => Promise<void>>();

/** Run `hook` if the process ends early; returns the function that unregisters it. */
export function onEarlyExit(hook: () => Promise<void>): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Run every registered hook (each bounds its own wait), then nothing is left to do. */
export async function runEarlyExitHooks(): Promise<void> {
  await Promise.allSettled([...hooks].map((h) => h()));
}

/** Write to the run's stdout; settles when the text was written (or could not be). */
export function writeOut(text: string, encoding: BufferEncoding = 'utf8'): Promise<void> {
  const { stdout } = cliIO();
  return new Promise((resolve, reject) => {
    stdout.write(text, encoding, (err?: Error | null) => (err ? reject(err) : resolve()));
  });
}
