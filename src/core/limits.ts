/**
 * Size and shape limits of the core, in one place. Every stage is linear in the input; these
 * bounds keep the constants small on degenerate input (deep nesting, huge files) and say where
 * skim stops pruning and hands the input back whole (fail open).
 */

/**
 * The ceiling: inputs larger than this come back whole with a warning, unpruned (in every mode:
 * a budget is not applied). Below it prune() runs at about 1 MB of typical code per second on one
 * core (BENCHMARKS.md, "Scaling"), so the ceiling bounds one call to seconds. 200,000 lines of
 * code up to 80 characters wide fit under it.
 */
export const MAX_PRUNE_CHARS = 16 * 1024 * 1024;
export const MAX_PRUNE_LINES = 200_000;

/**
 * Inputs smaller than this (lines, or o200k tokens) come back whole in threshold mode: pruning
 * them saves little and risks a re-read. A budget still prunes them.
 */
export const SMALL_INPUT_LINES = 40;
export const SMALL_INPUT_TOKENS = 500;

/** Beyond these sizes the tree-sitter pass is skipped (indentation/bracket fallback instead). */
export const MAX_PARSE_CHARS = 4_000_000;
export const MAX_PARSE_LINES = 60_000;
/** A line longer than this is minified/generated code: parsing it costs seconds and yields no useful structure. */
export const MAX_PARSE_LINE = 200_000;
/**
 * Nesting deeper than this (brackets, or indentation levels) is generated or hostile text, not code
 * to read: tree-sitter's cost per line grows with the depth there (Python's indent stack), so the
 * fallback index takes it.
 */
export const MAX_PARSE_DEPTH = 256;

/**
 * Scopes nested deeper than this are not tracked: each line lists its enclosing scopes, so the
 * index is O(lines x depth); capping the depth keeps it linear. Real code stays far below it.
 */
export const MAX_SCOPE_DEPTH = 64;

/**
 * A clause group (if/elif.../else, switch cases, try/except...) larger than this pairs each clause
 * with its owner and its neighbours only, instead of with every other clause (quadratic).
 */
export const MAX_CLAUSE_GROUP = 64;

/**
 * Syntax repair parses the pruned output again after each fix; a large file has many error sites,
 * so the rounds grow with it. All of one prune() call's repair parsing is bounded by this many
 * times the input's characters (and at least FIX_PARSE_FLOOR, plenty for files of a few thousand
 * lines): beyond it the repair stops with a warning that the output may not parse.
 */
export const FIX_PARSE_FACTOR = 3;
export const FIX_PARSE_FLOOR = 2_000_000;

/** Queries (and tasks) are truncated to this many characters (a pasted log should not dominate the run time). */
export const MAX_QUERY_CHARS = 20_000;
