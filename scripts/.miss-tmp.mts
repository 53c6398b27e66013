import { Parser, Language, Query } from 'web-tree-sitter';
import { createRequire } from 'node:module';
const req = createRequire(import.meta.url);
await Parser.init();
for (const [l, src] of [['c', 'int f() { return 1 }'], ['python', 'def f(:\n  pass'], ['javascript', 'foo(1, 2'], ['go','package a\nfunc f() {\n']]) {
  const lang = await Language.load(req.resolve(`@repomix/tree-sitter-wasms/out/tree-sitter-${l}.wasm`));
  const p = new Parser(); p.setLanguage(lang);
  const t = p.parse(src)!;
  const q = new Query(lang, '(MISSING) @m');
  console.log(l, t.rootNode.hasError, t.rootNode.toString(), q.captures(t.rootNode).length);
}
