/**
 * The line matcher of `skim grep` and the MCP grep tool: RE2 syntax (the re2js port), matched in
 * time linear in the line. A JavaScript RegExp backtracks, so a pattern such as `(a+)+$` on a
 * line of 100 a's and a b never returns: the CLI hangs, and the MCP server stops answering every
 * other call. RE2 is what ripgrep and Go use: the same syntax as a JavaScript regular expression
 * for everything a search needs, without lookaround and backreferences.
 */
import { RE2JS } from 're2js';
import { SkimError } from '../core/errors.js';

export interface LinePatternOptions {
  ignoreCase?: boolean;
  /** The pattern is a literal string. */
  fixedStrings?: boolean;
}

export interface LinePattern {
  /** True when the pattern matches somewhere in the line. */
  test(line: string): boolean;
}

/** Compile a search pattern; a SkimError (EUSAGE) names what is wrong with it. */
export function compileLinePattern(pattern: string, opts: LinePatternOptions = {}): LinePattern {
  const source = opts.fixedStrings ? RE2JS.quote(pattern) : pattern;
  try {
    return RE2JS.compile(source, opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    const reason = (err as Error).message.replace(/^error parsing regexp: /, '');
    // Valid JavaScript that RE2 refuses (lookaround, \1, \u0041): say which syntax applies.
    const hint = isJavaScriptRegExp(source) ? ' (patterns use RE2 syntax, matched in linear time: no lookahead, lookbehind or backreferences; write \\x{41} for \\u0041)' : '';
    throw new SkimError(`invalid regular expression /${pattern}/: ${reason}${hint}`, 'EUSAGE');
  }
}

function isJavaScriptRegExp(source: string): boolean {
  try {
    new RegExp(source); // compiles only: nothing is matched
    return true;
  } catch {
    return false;
  }
}
