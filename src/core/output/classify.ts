/**
 * Each output line's role by the rules of its shape, then of the other shapes it shows, then the
 * rules every output shares (tracebacks, progress). The first rule that matches decides; a rule
 * marked `withIndented` also decides the deeper-indented lines right after it (a frame's source).
 */
import type { DetectedShape } from './detect.js';
import { DROPPED_NOTE_RE } from './dropped.js';
import { indentOf } from './lines.js';
import { type LineRule, NOISE_RULES, TRACE_RULES } from './shapes/index.js';
import type { LineRole } from './types.js';

/** Where a capture dropped the middle of the output: always shown. */
const DROPPED_NOTE: LineRule = { re: DROPPED_NOTE_RE, role: 'signal' };

export interface Classified {
  roles: LineRole[];
  /** For routine lines: what they are ("passed tests"). */
  labels: (string | undefined)[];
}

export function classifyLines(lines: readonly string[], shape: DetectedShape): Classified {
  const rules: LineRule[] = [DROPPED_NOTE, ...shape.main.rules, ...shape.also.flatMap((s) => s.rules), ...TRACE_RULES, ...NOISE_RULES];
  const roles: LineRole[] = new Array(lines.length).fill('plain');
  const labels: (string | undefined)[] = new Array(lines.length).fill(undefined);
  for (let i = 0; i < lines.length; i++) {
    const rule = rules.find((r) => r.re.test(lines[i]));
    if (!rule) continue;
    roles[i] = rule.role;
    labels[i] = rule.label;
    if (!rule.withIndented) continue;
    const indent = indentOf(lines[i]);
    while (i + 1 < lines.length && lines[i + 1].trim() !== '' && indentOf(lines[i + 1]) > indent && !rules.some((r) => r.re.test(lines[i + 1]))) {
      i++;
      roles[i] = rule.role;
      labels[i] = rule.label;
    }
  }
  keepRaisingFrames(lines, roles, labels);
  framesWhole(lines, roles, labels);
  return { roles, labels };
}

const PY_FRAME = /^\s+File "[^"]+", line \d+/;

/**
 * The last frame of a Python traceback is where the error was raised: it stays even when it lies
 * outside the project (`os.py, in fsencode` is the story of a UnicodeEncodeError).
 */
function keepRaisingFrames(lines: readonly string[], roles: LineRole[], labels: (string | undefined)[]): void {
  for (let i = 0; i < lines.length; i++) {
    if (!PY_FRAME.test(lines[i])) continue;
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== '' && indentOf(lines[j]) > indentOf(lines[i]) && !PY_FRAME.test(lines[j])) j++;
    if (j < lines.length && PY_FRAME.test(lines[j])) continue;
    for (let k = i; k < j; k++) {
      if (roles[k] !== 'routine') continue;
      roles[k] = 'signal';
      labels[k] = undefined;
    }
    i = j - 1;
  }
}

/**
 * A Rust backtrace frame: its number and function (`  4: ledger::post`; with RUST_BACKTRACE=full,
 * `  4:     0x55d0c9b1c0a3 - ledger::post`), then where it is (`at ./src/ledger.rs:30:9`).
 */
const FRAME_FUNCTION = /^\s+\d+: +\S/;
const FRAME_LOCATION = /^\s+at \S+:\d+:\d+$/;

/**
 * A frame printed on two lines is one frame: its function line takes the role of its location,
 * folded with it when outside the project (whatever the function's name: `<fn() as
 * core::ops::function::FnOnce>::call_once` is the runtime's), else shown with it, as a Python
 * frame in the project is.
 */
function framesWhole(lines: readonly string[], roles: LineRole[], labels: (string | undefined)[]): void {
  for (let i = 1; i < lines.length; i++) {
    if (!FRAME_LOCATION.test(lines[i]) || !FRAME_FUNCTION.test(lines[i - 1]) || indentOf(lines[i]) <= indentOf(lines[i - 1])) continue;
    const role = roles[i] === 'routine' ? 'routine' : 'signal';
    const label = role === 'routine' ? labels[i] : undefined;
    for (const k of [i - 1, i]) {
      roles[k] = role;
      labels[k] = label;
    }
  }
}
