/**
 * Which shape an output has: the command names candidates, lines of the text are evidence. A shape
 * named by the command wins over one only the text suggests; among those, the most evidence wins.
 */
import { OUTPUT_SHAPES, type OutputShape, SCRIPT_SHAPE } from './shapes/index.js';

export interface DetectedShape {
  /** The shape whose rules come first. */
  main: OutputShape;
  /** Every other shape the command names or the text shows (a `pip install && pytest` prints both). */
  also: OutputShape[];
}

/** Lines looked at for evidence (the head and the tail of a long output). */
const EVIDENCE_LINES = 400;

export function detectShape(lines: readonly string[], command: string | undefined): DetectedShape {
  const sample = lines.length <= EVIDENCE_LINES ? lines : [...lines.slice(0, EVIDENCE_LINES / 2), ...lines.slice(-EVIDENCE_LINES / 2)];
  const scored: { shape: OutputShape; named: boolean; evidence: number }[] = [];
  for (const shape of OUTPUT_SHAPES) {
    const named = !!command && !!shape.command?.test(command);
    let evidence = 0;
    if (shape.evidence) for (const l of sample) if (shape.evidence.test(l)) evidence++;
    if (named || evidence >= (shape.minEvidence ?? 2)) scored.push({ shape, named, evidence });
  }
  if (scored.length === 0) return { main: SCRIPT_SHAPE, also: [] };
  // Named by the command and shown by the text first (a `cd x && ls && pytest` prints a test run),
  // then named by the command, then the most evidence.
  scored.sort((a, b) => Number(b.named && b.evidence > 0) - Number(a.named && a.evidence > 0) || Number(b.named) - Number(a.named) || b.evidence - a.evidence);
  return { main: scored[0].shape, also: scored.slice(1).map((s) => s.shape) };
}
