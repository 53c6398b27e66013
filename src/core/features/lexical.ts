/**
 * Lexical analysis shared by the heuristic scorer, the learned model's features and the
 * baselines: split text into normalized terms (identifiers split on camelCase/snake_case,
 * lower-cased, lightly stemmed), and BM25 over a set of "documents" (lines, windows).
 */

const STOPWORDS = new Set(
  (
    'a an the and or not of to in on at by for from with without into onto is are was were be been being ' +
    'it its this that these those there here what which who whom whose when where why how do does did ' +
    'done doing have has had i we you he she they them our your my me us can could should would will ' +
    'shall may might must if then else than so such as but also only just very more most some any all ' +
    'each every other same own no nor too s t about above below up down out over under again further ' +
    'once get gets got use uses used using make makes made like need needs want wants way work works ' +
    'one two new code file line lines function method value values return returns call calls called'
  ).split(/\s+/),
);

/** Keywords of common languages: frequent, carry no topical signal. */
const CODE_KEYWORDS = new Set(
  (
    'def class self cls import from as return if elif else try except finally raise with while for in ' +
    'pass break continue lambda yield async await none true false null undefined var let const function ' +
    'new this typeof instanceof void delete export default extends implements interface type enum public ' +
    'private protected static readonly abstract package func go defer chan struct map range fn impl pub ' +
    'mut use mod crate trait where match loop ref end begin module require include int str bool string ' +
    'char float double long short unsigned signed auto switch case throw throws catch of is not and or'
  ).split(/\s+/),
);

/** Split one identifier into lower-case parts: "parseHTTPResponse_v2" -> ["parse","http","response","v2"]. */
export function splitIdentifier(id: string): string[] {
  const parts: string[] = [];
  for (const chunk of id.split(/[_\-$.]+/)) {
    if (!chunk) continue;
    const pieces = chunk.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g);
    if (!pieces) continue;
    for (const p of pieces) parts.push(p.toLowerCase());
  }
  return parts;
}

/** A light suffix stemmer (Porter-like, step 1 only): good enough to join "parses/parsed/parsing". */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 5 && w.endsWith('ly')) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  return w;
}

/**
 * Derivational suffixes of stemmed terms, longest first (Porter's steps 2-4, in stem() space, where
 * a final "e" and "s"/"ing"/"ed" are already gone): "serialization", "serializer" and "serializ(e)"
 * share the root "serial", "positivity" and "positiv(e)" the root "posit".
 */
const DERIVATIONAL = [
  'ization',
  'isation',
  'ational',
  'ivity',
  'ation',
  'ator',
  'izer',
  'iser',
  'ness',
  'ment',
  'ity',
  'ion',
  'enc',
  'anc',
  'abl',
  'ibl',
  'al',
  'er',
  'or',
  'iv',
  'iz',
  'at',
];
/** A root shorter than this is too ambiguous to join words on ("glob(al)", "sign(al)", "head(er)"). */
export const MIN_ROOT = 5;

/**
 * The root of a stemmed term: derivational suffixes stripped while at least MIN_ROOT characters
 * remain ("conditional" -> "condition" -> "condit"). Coarser than stem(): used only to find the
 * form a file uses for a query word it does not contain.
 */
export function rootOf(term: string): string {
  let w = term;
  for (;;) {
    const suffix = DERIVATIONAL.find((x) => w.endsWith(x) && w.length - x.length >= MIN_ROOT);
    if (!suffix) return w;
    w = w.slice(0, -suffix.length);
    if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  }
}

const WORD_RE = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g;

/** Raw identifier-like tokens of a text, unsplit ("parse_args", "HTTPError"). */
export function rawTokens(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

export interface TermOptions {
  /** Drop English stopwords (default true). */
  dropStopwords?: boolean;
  /** Drop programming keywords (default true). */
  dropKeywords?: boolean;
  /** Also emit the whole lower-cased identifier when it splits into several parts (default true). */
  keepCompound?: boolean;
}

/** Normalized terms of a text: split identifiers, lower-case, stem, filter. Order preserved, duplicates kept. */
export function terms(text: string, opts: TermOptions = {}): string[] {
  return termsOfTokens(rawTokens(text), opts);
}

/** terms() for tokens already extracted with rawTokens() (lets callers reuse the tokens). */
export function termsOfTokens(tokens: string[], opts: TermOptions = {}): string[] {
  const dropStop = opts.dropStopwords ?? true;
  const dropKw = opts.dropKeywords ?? true;
  const compound = opts.keepCompound ?? true;
  const out: string[] = [];
  for (const tok of tokens) {
    const parts = splitIdentifier(tok);
    if (compound && parts.length > 1) {
      const whole = tok.toLowerCase().replace(/[_$]/g, '');
      if (whole.length > 2) out.push(whole);
    }
    for (const p of parts) {
      if (p.length < 2 && !/[0-9]/.test(p)) continue;
      if (dropStop && STOPWORDS.has(p)) continue;
      if (dropKw && CODE_KEYWORDS.has(p)) continue;
      out.push(stem(p));
    }
  }
  return out;
}

/** BM25 index over a list of term lists (one per "document": a line, a window, a file). */
export class Bm25 {
  readonly df = new Map<string, number>();
  readonly docs: Map<string, number>[];
  readonly lengths: Float64Array;
  readonly avgLength: number;

  constructor(
    docs: string[][],
    readonly k1 = 1.2,
    readonly b = 0.75,
  ) {
    this.docs = docs.map((d) => {
      const tf = new Map<string, number>();
      for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return tf;
    });
    this.lengths = Float64Array.from(docs, (d) => d.length);
    let total = 0;
    for (const l of this.lengths) total += l;
    this.avgLength = docs.length ? Math.max(1, total / docs.length) : 1;
  }

  get size(): number {
    return this.docs.length;
  }

  idf(term: string): number {
    const n = this.docs.length;
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** BM25 score of document i for the (deduplicated) query terms. */
  score(i: number, queryTerms: Iterable<string>): number {
    const tf = this.docs[i];
    const len = this.lengths[i];
    let s = 0;
    for (const q of queryTerms) {
      const f = tf.get(q);
      if (!f) continue;
      s += (this.idf(q) * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * len) / this.avgLength));
    }
    return s;
  }

  scoreAll(queryTerms: string[]): Float64Array {
    const uniq = [...new Set(queryTerms)];
    const out = new Float64Array(this.docs.length);
    for (let i = 0; i < out.length; i++) out[i] = this.score(i, uniq);
    return out;
  }
}
