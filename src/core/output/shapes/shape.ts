/**
 * An output shape: what a family of commands prints, as data. The command names it (when known);
 * lines of the text are evidence for it otherwise; its rules say which lines are signal (always
 * shown), which are routine (foldable by rule) and, by default, plain.
 */
import type { LineRole } from '../types.js';

export type ShapeKind = 'test' | 'build' | 'listing' | 'diff' | 'vcs' | 'package' | 'script';

export interface LineRule {
  re: RegExp;
  role: LineRole;
  /** What the folded lines are, in a marker ("passed tests"). */
  label?: string;
  /** The lines after it that are indented deeper than it belong to it (a frame's source line). */
  withIndented?: boolean;
}

export interface OutputShape {
  name: string;
  kind: ShapeKind;
  /** Matches a program (and its arguments) in the command line. */
  command?: RegExp;
  /** A line that is evidence for this shape when the command is unknown. */
  evidence?: RegExp;
  /** Lines of evidence needed (default 2). */
  minEvidence?: number;
  rules: LineRule[];
  /** It prints compiler or linter diagnostics (shapes/diagnostics.ts): they stay or fold as whole blocks. */
  diagnostics?: boolean;
}
