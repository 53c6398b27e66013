/**
 * Prints the SyntaxIndex of a file line by line (kind, depth, defines, closers, pairs, statement range, uses)
 * and its scopes/imports/definitions. Usage: npx tsx scripts/syntax-dump.ts FILE [language]
 */
import { readFileSync } from 'node:fs';
import { buildSyntaxIndex, detectLanguage, ensureGrammar } from '../src/core/syntax/index.js';

const [file, langArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx scripts/syntax-dump.ts FILE [language]');
  process.exit(2);
}
const text = readFileSync(file, 'utf8');
const lang = langArg ?? detectLanguage(file, text);
await ensureGrammar(lang);
const lines = text.split('\n');
const idx = buildSyntaxIndex(lines, lang);
console.log('lang', lang, 'grammar', idx.hasGrammar, 'ok', idx.parseOk);
idx.lines.forEach((l, i) => {
  const extra = [
    l.defines.length ? 'def=' + l.defines.join(',') : '',
    l.closers.length ? 'cl=' + l.closers : '',
    l.pairs.length ? 'pr=' + l.pairs : '',
    l.stmtStart !== i || l.stmtEnd !== i ? `st=${l.stmtStart}-${l.stmtEnd}` : '',
    l.uses.length ? 'u=' + l.uses.slice(0, 6).join(',') : '',
  ]
    .filter(Boolean)
    .join(' ');
  console.log(String(i).padStart(3), l.kind.padEnd(9), String(l.depth), (lines[i] ?? '').slice(0, 60).padEnd(60), extra);
});
idx.scopes.forEach((s, i) =>
  console.log('scope', i, s.kind, s.name, s.start, s.headerEnd, s.bodyStart, s.end, 'dec', s.decorators, JSON.stringify(s.bodyIndent), s.isDefinition),
);
console.log('imports', [...idx.imports]);
console.log('defs', [...idx.definitions].map(([k, v]) => k + ':' + v).join(' '));
