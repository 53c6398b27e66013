/**
 * Lists the functions in src/ longer than a limit (default 120 lines), longest first: what a
 * reader cannot hold at once. Counts every line from the function's first to its last, comments
 * included. Nested functions are listed on their own and still count in the lines of the outer.
 *   npx tsx scripts/long-units.ts [--min 120] [dir]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const { values, positionals } = parseArgs({ options: { min: { type: 'string', default: '120' } }, allowPositionals: true });
const min = Number(values.min);
const root = positionals[0] ?? 'src';

function* sourceFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

const found: { lines: number; where: string; name: string }[] = [];
for (const file of sourceFiles(root)) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > min) found.push({ lines, where: `${file}:${start + 1}`, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
found.sort((a, b) => b.lines - a.lines || a.where.localeCompare(b.where));
for (const f of found) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.where}`);
console.log(`${found.length} functions over ${min} lines in ${root}/`);
