/** Every output shape skim knows, in the order ties are broken. */
import { BUILD_SHAPES } from './build.js';
import { listing } from './listing.js';
import { PACKAGE_SHAPES } from './packages.js';
import type { OutputShape } from './shape.js';
import { TEST_SHAPES } from './tests.js';
import { VCS_SHAPES } from './vcs.js';

export { type DiagnosticBlock, diagnosticBlocks } from './diagnostics.js';
export { directoryOfEntries } from './listing.js';
export type { LineRule, OutputShape, ShapeKind } from './shape.js';
export { testOutcomesLabel } from './tests.js';
export { NOISE_RULES, TRACE_RULES } from './traces.js';

export const OUTPUT_SHAPES: readonly OutputShape[] = [...TEST_SHAPES, ...BUILD_SHAPES, ...VCS_SHAPES, ...PACKAGE_SHAPES, listing];

/** Output of a script or of anything unknown: only the common rules (tracebacks, progress) apply. */
export const SCRIPT_SHAPE: OutputShape = { name: 'text', kind: 'script', rules: [] };
