/** Registry of per-language grammar tables, keyed by canonical language name. */
import type { GrammarSpec } from './types.js';
import { python } from './python.js';
import { javascript, typescript, tsx } from './javascript.js';
import { go } from './go.js';
import { java } from './java.js';
import { rust } from './rust.js';
import { c, cpp } from './c.js';
import { ruby } from './ruby.js';
import { php } from './php.js';
import { c_sharp } from './csharp.js';

const SPECS: Record<string, GrammarSpec> = { python, javascript, typescript, tsx, go, java, rust, c, cpp, ruby, php, c_sharp };

export function grammarSpec(language: string): GrammarSpec | undefined {
  return SPECS[language];
}
export type { GrammarSpec, NameAt } from './types.js';
