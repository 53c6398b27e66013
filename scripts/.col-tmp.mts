import { Parser, Language } from 'web-tree-sitter';
import { createRequire } from 'node:module';
const req = createRequire(import.meta.url);
await Parser.init();
const lang = await Language.load(req.resolve(`@repomix/tree-sitter-wasms/out/tree-sitter-python.wasm`));
const p = new Parser(); p.setLanguage(lang);
const src = "s = 'ü€😀'; abc = 1\nx = 2";
const t = p.parse(src)!;
const c = t.walk();
for (;;) { if (c.nodeType === 'identifier') console.log(c.nodeText, c.startPosition, c.endPosition, c.startIndex, c.nodeTypeId, lang.nodeTypeForId(c.nodeTypeId), c.nodeIsNamed); if (c.gotoFirstChild()) continue; let ok=false; while(!(ok=c.gotoNextSibling())) { if(!c.gotoParent()) break; } if(!ok) break; }
console.log(lang.nodeTypeCount, lang.types?.length);
