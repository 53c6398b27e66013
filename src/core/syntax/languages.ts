/**
 * Language names, aliases, detection, and small per-language facts (comment syntax,
 * block style, placeholder statement) that ingest/repair/render need.
 * Canonical names are tree-sitter grammar names where a grammar exists ("c_sharp", "tsx").
 */

export type BlockStyle = 'braces' | 'end' | 'indent' | 'none';

export interface LanguageInfo {
  /** Canonical language name. */
  readonly name: string;
  /** Prefix of a line comment, used for omission markers; null when the language has none. */
  readonly lineComment: string | null;
  /** Block comment delimiters, for languages without line comments (css, html). */
  readonly blockComment: readonly [string, string] | null;
  /** True when blocks are delimited by indentation alone (python, yaml). */
  readonly indentScoped: boolean;
  /** How a block ends. */
  readonly blockEnd: BlockStyle;
  /** Statement to put in a block whose body is all omitted, or null when a comment is enough. */
  readonly placeholder: string | null;
  /** Whether a tree-sitter grammar ships for it. */
  readonly hasGrammar: boolean;
}

function info(
  name: string,
  lineComment: string | null,
  blockEnd: BlockStyle,
  opts: Partial<Pick<LanguageInfo, 'blockComment' | 'placeholder' | 'hasGrammar' | 'indentScoped'>> = {},
): LanguageInfo {
  return Object.freeze({
    name,
    lineComment,
    blockComment: opts.blockComment ?? (lineComment === '//' ? (['/*', '*/'] as const) : null),
    indentScoped: opts.indentScoped ?? blockEnd === 'indent',
    blockEnd,
    placeholder: opts.placeholder ?? null,
    hasGrammar: opts.hasGrammar ?? false,
  });
}

const G = { hasGrammar: true };

const INFOS: Record<string, LanguageInfo> = {
  python: info('python', '#', 'indent', { ...G, placeholder: '...' }),
  javascript: info('javascript', '//', 'braces', G),
  typescript: info('typescript', '//', 'braces', G),
  tsx: info('tsx', '//', 'braces', G),
  go: info('go', '//', 'braces', G),
  java: info('java', '//', 'braces', G),
  rust: info('rust', '//', 'braces', G),
  c: info('c', '//', 'braces', G),
  cpp: info('cpp', '//', 'braces', G),
  c_sharp: info('c_sharp', '//', 'braces', G),
  php: info('php', '//', 'braces', G),
  ruby: info('ruby', '#', 'end', G),
  kotlin: info('kotlin', '//', 'braces'),
  swift: info('swift', '//', 'braces'),
  scala: info('scala', '//', 'braces'),
  dart: info('dart', '//', 'braces'),
  shell: info('shell', '#', 'end'),
  sql: info('sql', '--', 'none'),
  lua: info('lua', '--', 'end'),
  yaml: info('yaml', '#', 'indent'),
  toml: info('toml', '#', 'none'),
  json: info('json', null, 'braces'),
  markdown: info('markdown', null, 'none', { blockComment: ['<!--', '-->'] }),
  html: info('html', null, 'none', { blockComment: ['<!--', '-->'] }),
  xml: info('xml', null, 'none', { blockComment: ['<!--', '-->'] }),
  css: info('css', null, 'braces', { blockComment: ['/*', '*/'] }),
  text: info('text', null, 'none'),
};

const ALIASES: Record<string, string> = {
  py: 'python',
  python3: 'python',
  py3: 'python',
  pyi: 'python',
  pyw: 'python',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  nodejs: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  golang: 'go',
  rs: 'rust',
  'c++': 'cpp',
  cc: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
  cplusplus: 'cpp',
  'h++': 'cpp',
  ipp: 'cpp',
  inl: 'cpp',
  h: 'c',
  cs: 'c_sharp',
  csharp: 'c_sharp',
  'c#': 'c_sharp',
  'c-sharp': 'c_sharp',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  kt: 'kotlin',
  kts: 'kotlin',
  sc: 'scala',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  ksh: 'shell',
  fish: 'shell',
  console: 'shell',
  yml: 'yaml',
  md: 'markdown',
  mdx: 'markdown',
  rst: 'text',
  jsonc: 'json',
  json5: 'json',
  jsonl: 'json',
  ndjson: 'json',
  htm: 'html',
  xhtml: 'html',
  vue: 'html',
  svelte: 'html',
  svg: 'xml',
  xsd: 'xml',
  plist: 'xml',
  scss: 'css',
  less: 'css',
  txt: 'text',
  plain: 'text',
  plaintext: 'text',
  log: 'text',
  logs: 'text',
  '': 'text',
  unknown: 'text',
  none: 'text',
  ini: 'toml',
  cfg: 'toml',
  conf: 'toml',
};

/** Canonical name for a language name or alias; unknown names pass through lower-cased. */
export function normalizeLanguage(name: string | undefined | null): string {
  const n = String(name ?? '')
    .trim()
    .toLowerCase();
  if (INFOS[n]) return n;
  if (n in ALIASES) return ALIASES[n]!;
  const stripped = n.replace(/^\./, '');
  if (INFOS[stripped]) return stripped;
  if (stripped in ALIASES) return ALIASES[stripped]!;
  return n || 'text';
}

/** Facts about a language; unknown languages get the 'text' facts under their own name. */
export function languageInfo(language: string): LanguageInfo {
  const n = normalizeLanguage(language);
  return INFOS[n] ?? { ...INFOS.text!, name: n };
}

/** Every language skim knows (canonical names): the ones with a grammar, then the fallback's. */
export const LANGUAGES: readonly string[] = Object.keys(INFOS);

/** Whether a name or alias is a known language (normalizeLanguage passes unknown names through). */
export function isKnownLanguage(name: string): boolean {
  return Object.hasOwn(INFOS, normalizeLanguage(name));
}

/** Languages with a tree-sitter grammar (canonical names). */
export const GRAMMAR_LANGUAGES: readonly string[] = Object.values(INFOS)
  .filter((i) => i.hasGrammar)
  .map((i) => i.name);

const EXTENSIONS: Record<string, string> = {
  py: 'python',
  pyi: 'python',
  pyw: 'python',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  go: 'go',
  java: 'java',
  rs: 'rust',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  'c++': 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
  ipp: 'cpp',
  inl: 'cpp',
  cu: 'cpp',
  cs: 'c_sharp',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  ru: 'ruby',
  php: 'php',
  phtml: 'php',
  kt: 'kotlin',
  kts: 'kotlin',
  swift: 'swift',
  scala: 'scala',
  sc: 'scala',
  dart: 'dart',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  ksh: 'shell',
  fish: 'shell',
  sql: 'sql',
  lua: 'lua',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  ini: 'toml',
  cfg: 'toml',
  json: 'json',
  jsonc: 'json',
  json5: 'json',
  jsonl: 'json',
  md: 'markdown',
  mdx: 'markdown',
  markdown: 'markdown',
  rst: 'text',
  html: 'html',
  htm: 'html',
  vue: 'html',
  svelte: 'html',
  xml: 'xml',
  svg: 'xml',
  css: 'css',
  scss: 'css',
  less: 'css',
  txt: 'text',
  log: 'text',
  out: 'text',
};

const FILENAMES: Record<string, string> = {
  makefile: 'shell',
  gnumakefile: 'shell',
  dockerfile: 'shell',
  gemfile: 'ruby',
  rakefile: 'ruby',
  podfile: 'ruby',
  vagrantfile: 'ruby',
  guardfile: 'ruby',
  brewfile: 'ruby',
  'cmakelists.txt': 'text',
  '.bashrc': 'shell',
  '.zshrc': 'shell',
  '.profile': 'shell',
  'build.gradle.kts': 'kotlin',
};

const SHEBANGS: [RegExp, string][] = [
  [/\bpython[0-9.]*\b/, 'python'],
  [/\b(node|nodejs|bun)\b/, 'javascript'],
  [/\b(deno|ts-node|tsx)\b/, 'typescript'],
  [/\bruby\b/, 'ruby'],
  [/\bphp\b/, 'php'],
  [/\b(bash|sh|zsh|ksh|dash|fish)\b/, 'shell'],
  [/\blua\b/, 'lua'],
  [/\bkotlin\b/, 'kotlin'],
];

/** A C header that is really C++ (fmt, most modern headers). */
function looksCpp(content: string): boolean {
  return /^\s*(namespace\s+\w|template\s*<|class\s+\w+[^;]*\{|using\s+namespace\b)|std::|\bconstexpr\b/m.test(content);
}

/** Light content sniffing for inputs without a usable path or shebang. Ordered: most distinctive first. */
function sniff(content: string): string {
  const c = content.slice(0, 20000);
  if (/<\?php/.test(c)) return 'php';
  if (/^\s*#include\s*[<"]/m.test(c)) return looksCpp(c) ? 'cpp' : 'c';
  if (/^package\s+\w+\s*$/m.test(c) && /^\s*(func|import)\b/m.test(c)) return 'go';
  if (/^\s*(use\s+[\w:]+.*;|pub\s+(fn|struct|enum|mod)\b|fn\s+\w+\s*[(<]|impl\b.*\{)/m.test(c) && /\b(let|fn|impl|pub)\b/.test(c)) return 'rust';
  if (/^\s*using\s+System\b|^\s*namespace\s+[\w.]+\s*[{;]?\s*$/m.test(c) && /\b(public|private|internal)\s/.test(c)) return 'c_sharp';
  if (/^\s*package\s+[\w.]+;\s*$/m.test(c) || /^\s*import\s+(static\s+)?[\w.]+(\.\*)?;\s*$/m.test(c)) return 'java';
  if (/^\s*(fun|val|var)\s+\w+.*[=:({]/m.test(c) && /^\s*(package|import)\s+[\w.]+\s*$/m.test(c)) return 'kotlin';
  if (/^\s*(def\s+\w+\s*\(.*\)\s*(->\s*[^:]+)?:\s*$|class\s+\w+(\(.*\))?:\s*$|from\s+[\w.]+\s+import\s|import\s+[\w.]+\s*$)/m.test(c)) return 'python';
  if (
    /^\s*(interface\s+\w+|type\s+\w+\s*=|export\s+(interface|type)\s)|:\s*(string|number|boolean)\b/m.test(c) &&
    /\b(const|let|function|export|import)\b/.test(c)
  )
    return 'typescript';
  if (/^\s*(const|let|var)\s+\w+\s*=\s*require\(|^\s*(import\s.*from\s+['"]|export\s+(default|const|function)\b)|^\s*function\s+\w+\s*\(/m.test(c))
    return 'javascript';
  if (/^\s*(require\s+['"]|module\s+[A-Z]\w*\s*$|def\s+\w+[!?]?(\(.*\))?\s*$)/m.test(c) && /^\s*end\s*$/m.test(c)) return 'ruby';
  if (/^\s*(public|private|protected)\s+(static\s+)?(final\s+)?class\s+\w+/m.test(c)) return 'java';
  if (/^---\s*$|^\s*[\w-]+:\s+\S/m.test(c) && /^\s*-\s+\w|^\s*[\w-]+:\s*$/m.test(c) && !/[;{}]\s*$/m.test(c)) return 'yaml';
  if (/^\s*[[{]/.test(c)) {
    try {
      JSON.parse(content);
      return 'json';
    } catch {
      /* not json */
    }
  }
  if (/^#{1,6}\s+\S/m.test(c) && /^(\s*[-*]\s+|\s*```|.*\]\(.*\))/m.test(c)) return 'markdown';
  return 'text';
}

/** Language of a file from its path (extension, file name), then shebang, then content. 'text' when unknown. */
export function detectLanguage(path?: string, content?: string): string {
  try {
    if (path) {
      const base = path.split(/[\\/]/).pop() ?? '';
      const lower = base.toLowerCase();
      if (FILENAMES[lower]) return FILENAMES[lower]!;
      const dot = lower.lastIndexOf('.');
      if (dot >= 0) {
        const ext = lower.slice(dot + 1);
        const lang = EXTENSIONS[ext];
        if (lang === 'c' && content && looksCpp(content.slice(0, 20000))) return 'cpp';
        if (lang) return lang;
      }
    }
    if (content) {
      const first = content.slice(0, 200).split('\n', 1)[0] ?? '';
      if (first.startsWith('#!')) {
        for (const [re, lang] of SHEBANGS) if (re.test(first)) return lang;
      }
      return sniff(content);
    }
  } catch {
    /* detection must never throw */
  }
  return 'text';
}
