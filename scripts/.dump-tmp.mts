import { Parser, Language } from 'web-tree-sitter';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const req = createRequire(import.meta.url);
await Parser.init();
const [name, file] = process.argv.slice(2);
const lang = await Language.load(req.resolve(`@repomix/tree-sitter-wasms/out/tree-sitter-${name}.wasm`));
const p = new Parser(); p.setLanguage(lang);
const tree = p.parse(readFileSync(file, 'utf8'))!;
const c = tree.walk(); let depth = 0;
for (;;) {
  const f = c.currentFieldName;
  const txt = c.nodeIsNamed ? '' : JSON.stringify(c.nodeText);
  if (c.nodeIsNamed || !/^[,;.]$/.test(c.nodeType)) console.log(`${'  '.repeat(depth)}${f ? f + ': ' : ''}${c.nodeIsNamed ? c.nodeType : txt} [${c.startPosition.row}-${c.endPosition.row}]${c.nodeIsNamed && c.startPosition.row===c.endPosition.row && c.nodeText.length<40 && c.childCount===0? ' '+JSON.stringify(c.nodeText):''}`);
  if (c.gotoFirstChild()) { depth++; continue; }
  let ok = false;
  while (!(ok = c.gotoNextSibling())) { if (!c.gotoParent()) break; depth--; }
  if (!ok) break;
}
