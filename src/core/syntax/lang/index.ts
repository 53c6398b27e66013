/** Registry of per-language grammar tables, keyed by canonical language name. */

import { c, cpp } from './c.js';
import { c_sharp } from './csharp.js';
import { go } from './go.js';
import { java } from './java.js';
import { javascript, tsx, typescript } from './javascript.js';
import { php } from './php.js';
import { python } from './python.js';
import { ruby } from './ruby.js';
import { rust } from './rust.js';
import type { GrammarSpec } from './types.js';

const SPECS: Record<string, GrammarSpec> = { python, javascript, typescript, tsx, go, java, rust, c, cpp, ruby, php, c_sharp };

export function grammarSpec(language: string): GrammarSpec | undefined {
  return SPECS[language];
}
export type { GrammarSpec, NameAt } from './types.js';
