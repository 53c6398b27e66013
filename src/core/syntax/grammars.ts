/**
 * Lazy, once-per-process loading of web-tree-sitter and the grammar wasm files shipped by
 * @repomix/tree-sitter-wasms. Concurrent callers share one load promise per grammar.
 * After `ensureGrammar(lang)` resolved true, `loadedParser(lang)` gives a parser synchronously.
 */
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import { normalizeLanguage } from './languages.js';

const require = createRequire(import.meta.url);

/** Canonical language -> wasm grammar name. */
const WASM_NAMES: Record<string, string> = {
  python: 'python',
  javascript: 'javascript',
  typescript: 'typescript',
  tsx: 'tsx',
  go: 'go',
  java: 'java',
  rust: 'rust',
  c: 'c',
  cpp: 'cpp',
  ruby: 'ruby',
  php: 'php',
  c_sharp: 'c_sharp',
};

let initPromise: Promise<void> | null = null;
const languagePromises = new Map<string, Promise<Language | null>>();
const parsers = new Map<string, Parser>();
const failures = new Map<string, string>();

/** Whether a grammar exists for this language (loaded or not). */
export function grammarAvailable(language: string): boolean {
  return normalizeLanguage(language) in WASM_NAMES;
}

/** Path of the grammar wasm file, resolved through node resolution (works from src/, dist/ and installs). */
export function grammarWasmPath(language: string): string {
  const name = WASM_NAMES[normalizeLanguage(language)];
  if (!name) throw new Error(`no tree-sitter grammar for language "${language}"`);
  return require.resolve(`@repomix/tree-sitter-wasms/out/tree-sitter-${name}.wasm`);
}

function initRuntime(): Promise<void> {
  // the runtime's .wasm named by package resolution, not found next to the JavaScript that loads
  // it: the same file whether web-tree-sitter runs from node_modules or from the bundle (dist/skim-read.cjs)
  initPromise ??= Parser.init({ locateFile: () => require.resolve('web-tree-sitter/web-tree-sitter.wasm') });
  return initPromise;
}

async function load(lang: string): Promise<Language | null> {
  try {
    await initRuntime();
    const language = await Language.load(grammarWasmPath(lang));
    const parser = new Parser();
    parser.setLanguage(language);
    parsers.set(lang, parser);
    return language;
  } catch (err) {
    // A broken or missing wasm must not break pruning: callers fall back to heuristics.
    failures.set(lang, err instanceof Error ? err.message : String(err));
    return null;
  }
}

/**
 * Load the grammar for `language` once. Resolves true when a parser is ready, false when the
 * language has no grammar or it failed to load (see `grammarLoadError`). Never rejects.
 */
export async function ensureGrammar(language: string): Promise<boolean> {
  const lang = normalizeLanguage(language);
  if (!(lang in WASM_NAMES)) return false;
  let p = languagePromises.get(lang);
  if (!p) {
    p = load(lang);
    languagePromises.set(lang, p);
  }
  return (await p) !== null;
}

/** Load every grammar (for servers that want no first-call latency). */
export async function ensureAllGrammars(): Promise<void> {
  await Promise.all(Object.keys(WASM_NAMES).map((l) => ensureGrammar(l)));
}

/** The parser for a language whose grammar was loaded by `ensureGrammar`, else null. */
export function loadedParser(language: string): Parser | null {
  return parsers.get(normalizeLanguage(language)) ?? null;
}

/** Why a grammar failed to load, if it did. */
export function grammarLoadError(language: string): string | undefined {
  return failures.get(normalizeLanguage(language));
}
