import { readFileSync } from 'node:fs';
import { checkSyntax, buildSyntaxIndex, ensureGrammar } from '../src/core/syntax/index.js';
import { loadedParser } from '../src/core/syntax/grammars.js';
for (const [f, l] of [['sample.py', 'python'], ['sample.rb', 'ruby']]) {
  const text = readFileSync('test/fixtures/syntax/' + f, 'utf8');
  await ensureGrammar(l);
  const lines = text.split('\n');
  const first = buildSyntaxIndex(lines, l).scopes[0]!;
  console.log(first);
  const broken = lines.filter((_, i) => i !== first.start).join('\n');
  console.log(await checkSyntax(broken, l), await checkSyntax('x = 1\n    y = 2\n', l), await checkSyntax('x = 1\nend\n', l));
  console.log(loadedParser(l)!.parse('x = 1\n    y = 2\n')!.rootNode.toString());
}
